/**
 * Event actions ("when a user signs up, create a welcome to-do") and schedules ("every
 * weekday at 9:00, emit the daily-digest event"): an action of one effect and the trigger
 * that starts it. Ids: `urn:svc:action:<slug>` and `urn:svc:trigger:<slug>`, the slug saying
 * when and what (`on-user-created-create-todo`, `every-weekday-0900-emit-daily-digest`).
 */
import type { ActionEffect, Model } from '../../../../definition/schema.ts';
import { slugOf as slugWords, uniqueId } from '../../../../definition/edits/index.ts';
import { Unclear, modelOf, type Context, type Rule, type Step } from '../context.ts';
import { keyOf, resolveModel } from '../names.ts';
import { emailDoingOf } from './email.ts';

const EVENTS: ReadonlyArray<readonly [RegExp, 'created' | 'updated' | 'deleted']> = [
  [/^(?:is created|is added|gets created|signs up|registers|joins|is registered|is opened|is placed|is made|is submitted)$/i, 'created'],
  [/^(?:is updated|is changed|changes|is edited|gets updated)$/i, 'updated'],
  [/^(?:is deleted|is removed|gets deleted)$/i, 'deleted'],
];

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

interface Doing {
  effect: ActionEffect;
  /** When the doing takes more than one effect (read a record, then mail): all of them, `effect` last. */
  effects?: ActionEffect[];
  slug: string;
  says: string;
}

const EVENT_WORDS = 'is created|is added|gets created|signs up|registers|joins|is registered|is opened|is placed|is made|is submitted|is updated|is changed|changes|is edited|gets updated|is deleted|is removed|gets deleted';

/** The effects of "create a welcome to-do", "emit the daily-digest event" or "email the customer". */
function doingOf(ctx: Context, text: string, source?: Model, event = 'created'): Doing | null {
  const mail = emailDoingOf(ctx, text, source, event);
  if (mail) return { effect: mail.effects[mail.effects.length - 1], effects: mail.effects, slug: mail.slug, says: mail.says };
  const emit = /^(?:emit|send|raise|fire|publish)\s+(?:an?\s+|the\s+)?(?:event\s+)?["'“]?([A-Za-z][\w.-]*)["'”]?(?:\s+event)?$/i.exec(text);
  if (emit) {
    return {
      effect: { actionEffectId: 'emit', effect: 'event.emit', params: { eventName: emit[1], payload: {} } },
      slug: `emit-${slugWords(emit[1])}`,
      says: `emit the event ${emit[1]}`,
    };
  }
  const create = /^(?:create|add|make)\s+(?:a|an|one)\s+(?:new\s+)?(.+?)(?:\s+(?:called|titled|named|saying)\s+["'“](.+?)["'”])?(?:\s+for\s+(?:them|him|her|it))?$/i.exec(text);
  if (!create) return null;
  const words = create[1].trim().split(/\s+/);
  for (let k = 0; k < words.length; k++) {
    const target = resolveModel(ctx.def, words.slice(k).join(' '));
    if (!target) continue;
    const adjective = words.slice(0, k).join(' ');
    const title = create[2] ?? (adjective ? adjective[0].toUpperCase() + adjective.slice(1) : `New ${target.name}`);
    const entries: string[] = [];
    const chosen: string[] = [];
    const quoted = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    // The record's name or title: said, else its adjective ("a welcome playlist": 'Welcome'), required or not.
    const display =
      target.fields.find((f) => f.to === 'p_TEXT' && f.max === 1 && !f.enum && f.defaultValue === undefined && /^(?:name|title|subject|label|summary)$/i.test(f.name)) ??
      target.fields.find((f) => f.to === 'p_TEXT' && f.max === 1 && !f.enum && f.min >= 1 && f.defaultValue === undefined && f.computed === undefined);
    const user = ctx.def.userModelId;
    const sourceOwner = source?.fields.find((f) => f.to === user && f.max === 1);
    for (const field of target.fields) {
      if (source && field.to === source.id && field.max === 1) entries.push(`'${field.name}': event.payload.id`);
      else if (field === display) entries.push(`'${field.name}': ${quoted(title)}`);
      else if (field.min >= 1 && field.defaultValue === undefined && field.computed === undefined) {
        if (field.to === user && sourceOwner) entries.push(`'${field.name}': event.payload.${sourceOwner.name}`);
        else if (field.to === 'p_NUMBER' || field.to === 'p_CURRENCY_AMOUNT') {
          entries.push(`'${field.name}': 0`);
          chosen.push(`${field.name} 0`);
        } else if (field.to === 'p_BOOLEAN') {
          entries.push(`'${field.name}': false`);
          chosen.push(`${field.name} false`);
        } else if (field.to.startsWith('p_') && field.enum?.length) {
          entries.push(`'${field.name}': ${JSON.stringify(field.enum[0])}`);
          chosen.push(`${field.name} ${String(field.enum[0])}`);
        } else if (field.to === 'p_DATE_TIME' || field.to === 'p_DATE') {
          entries.push(`'${field.name}': now`);
          chosen.push(`${field.name} now`);
        } else throw new Unclear(`I cannot fill ${target.name}.${field.name} (required) in "${text}"; say its value.`);
      }
    }
    return {
      effect: { actionEffectId: 'create', effect: 'data.create', params: { model: target.name, values: {} }, bindParams: { values: `{${entries.join(', ')}}` } },
      slug: `create-${slugWords(target.name)}`,
      says: `create a ${target.name} (${entries.join(', ')})${chosen.length ? `; values I chose for required fields: ${chosen.join(', ')}` : ''}`,
    };
  }
  return null;
}

function automationStep(ctx: Context, slug: string, doing: Doing, trigger: { eventName: string; payload: Record<string, unknown> }, says: string): Step {
  const action = uniqueId(`urn:svc:action:${slug}`, new Set(ctx.def.actions.map((a) => a.id)));
  const triggerId = uniqueId(`urn:svc:trigger:${slug}`, new Set(ctx.def.triggers.map((t) => t.trigger.id)));
  return {
    operations: [
      { op: 'addAction', action: { id: action, startEffectId: (doing.effects ?? [doing.effect])[0].actionEffectId, effects: doing.effects ?? [doing.effect] } },
      { op: 'addTrigger', trigger: { trigger: { id: triggerId, type: 'event', ...trigger }, actionId: action, initialState: {}, validation: [] } },
    ],
    understood: `${says}, ${doing.says}.`,
  };
}

export const eventAction: Rule = (sentence, ctx) => {
  const m = new RegExp(`^(?:when(?:ever)?|after|once|each time|every time|if)\\s+(?:(?:a|an|the|someone|somebody)\\s+)?(?:new\\s+)?(.+?)\\s+(${EVENT_WORDS})\\s*,?\\s*(?:then\\s+|automatically\\s+|we should\\s+|please\\s+|i want to\\s+|we want to\\s+)?(.+)$`, 'i').exec(sentence);
  // "send a welcome email when a customer signs up": the doing first.
  const reversed = m ? null : new RegExp(`^(.+?)\\s+(?:when(?:ever)?|after|once|each time|every time|as soon as)\\s+(?:(?:a|an|the|someone|somebody)\\s+)?(?:new\\s+)?(.+?)\\s+(${EVENT_WORDS})$`, 'i').exec(sentence);
  if (!m && !reversed) return null;
  const [who, happens, doingText] = m ? [m[1], m[2], m[3]] : [reversed![2], reversed![3], reversed![1]];
  const source = modelOf(ctx, who) ?? (/^(?:someone|somebody|user|new user|person)$/i.test(who) ? ctx.def.models.find((x) => x.id === ctx.def.userModelId) : undefined);
  if (!source) {
    if (reversed) return null;
    throw new Unclear(`I found no model "${who}".`);
  }
  const event = EVENTS.find(([pattern]) => pattern.test(happens))![1];
  const doing = doingOf(ctx, doingText.trim().replace(/^(?:please\s+|automatically\s+)/i, ''), source, event);
  if (!doing) throw new Unclear(`I can create a record, emit an event or send an email when a ${source.name} is ${event}, not "${doingText}".`);
  const step = automationStep(ctx, `on-${slugWords(source.name)}-${event}-${doing.slug}`, doing, { eventName: `${source.name}.${event}`, payload: {} }, `When a ${source.name} is ${event}`);
  if (doing.effects) step.warnings = ['The mail goes out through the application\'s SMTP_URL secret: set it (Settings → Secrets) before publishing.'];
  return step;
};

/** "every weekday at 9:00", "every day at 6pm", "every monday at 8:30", "every hour". */
export const schedule: Rule = (sentence, ctx) => {
  const m = /^(?:every|each)\s+(hour|day|night|morning|evening|weekday|week ?day|weekend day|(?:sun|mon|tues|wednes|thurs|fri|satur)day)(?:\s+at\s+(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?|\s+at\s+(midnight|noon))?\s*,?\s*(.+)$/i.exec(sentence) ??
    /^at\s+(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm)?\s+every\s+(day|weekday|(?:sun|mon|tues|wednes|thurs|fri|satur)day)\s*,?\s*(.+)$/i.exec(sentence);
  if (!m) return null;
  const [period, hourText, minuteText, meridiem, named, rest] = m[0].toLowerCase().startsWith('at')
    ? [m[4], m[1], m[2], m[3], undefined, m[5]]
    : [m[1], m[2], m[3], m[4], m[5], m[6]];
  const p = period.toLowerCase().replace(/\s+/g, '');
  let hour = named ? (named.toLowerCase() === 'noon' ? 12 : 0) : hourText === undefined ? (p === 'night' ? 0 : 9) : Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  if (meridiem?.toLowerCase().startsWith('p') && hour < 12) hour += 12;
  if (meridiem?.toLowerCase().startsWith('a') && hour === 12) hour = 0;
  if (hour > 23 || minute > 59) throw new Unclear(`${hour}:${String(minute).padStart(2, '0')} is not a time of day.`);
  const day = DAYS.indexOf(p);
  const dow = p === 'weekday' ? '1-5' : p === 'weekendday' ? '0,6' : day >= 0 ? String(day) : '*';
  const cron = p === 'hour' ? `${minute} * * * *` : `${minute} ${hour} * * ${dow}`;
  const doing = doingOf(ctx, rest.trim());
  if (!doing) throw new Unclear(`I can create a record or emit an event on a schedule, not "${rest}".`);
  const hhmm = `${String(hour).padStart(2, '0')}${String(minute).padStart(2, '0')}`;
  const when = p === 'hour' ? 'hour' : `${p === 'weekendday' ? 'weekend-day' : ['night', 'morning', 'evening'].includes(p) ? 'day' : p}-${hhmm}`;
  return automationStep(ctx, `every-${when}-${doing.slug}`, doing, { eventName: 'schedule', payload: { cron } }, `On the schedule ${cron}`);
};

/**
 * "after the complete-todo action runs, emit the todo-completed event": one more effect at the
 * end of an existing action, the effect that ends it on success (no `next`, not a fail or a
 * return) pointing to it (insertEffects: an update of that effect, then the insert).
 */
export const afterAction: Rule = (sentence, ctx) => {
  const m = /^(?:after|when|once)\s+(?:the\s+)?(.+?)\s+action\s+(?:runs|has run|finishes|completes|succeeds|is done)\s*,?\s*(?:also\s+|then\s+)?(.+)$/i.exec(sentence);
  if (!m) return null;
  const key = keyOf(m[1]);
  const action = ctx.def.actions.find((a) => keyOf(a.id.replace(/^urn:svc:action:/, '')) === key);
  if (!action) throw new Unclear(`I found no action "${m[1]}".`);
  const doing = doingOf(ctx, m[2].trim());
  if (!doing) throw new Unclear(`I can add an effect that creates a record or emits an event, not "${m[2]}".`);
  const ends = action.effects.flatMap((e, index) => (e.next === undefined && e.effect !== 'flow.fail' && e.effect !== 'flow.return' ? [{ e, index }] : []));
  if (ends.length !== 1) throw new Unclear(`The action ${action.id} does not end in one effect; say after which effect.`);
  const id = uniqueId(doing.slug, new Set(action.effects.map((e) => e.actionEffectId)));
  const [{ e: end, index }] = ends;
  return {
    operations: [
      {
        op: 'insertEffects',
        actionId: action.id,
        modifications: [
          { index, modification: 'update', effect: { ...end, next: id } },
          { index: action.effects.length, modification: 'insert', effect: { ...doing.effect, actionEffectId: id } },
        ],
      },
    ],
    understood: `After ${end.actionEffectId} in ${action.id}, ${doing.says}.`,
  };
};
