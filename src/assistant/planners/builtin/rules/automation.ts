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

const EVENTS: ReadonlyArray<readonly [RegExp, 'created' | 'updated' | 'deleted']> = [
  [/^(?:is created|is added|gets created|signs up|registers|joins|is registered|is opened|is placed|is made)$/i, 'created'],
  [/^(?:is updated|is changed|changes|is edited|gets updated)$/i, 'updated'],
  [/^(?:is deleted|is removed|gets deleted)$/i, 'deleted'],
];

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

interface Doing {
  effect: ActionEffect;
  slug: string;
  says: string;
}

/** The one effect of "create a welcome to-do" or "emit the daily-digest event". */
function doingOf(ctx: Context, text: string, source?: Model): Doing | null {
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
    let first = true;
    for (const field of target.fields) {
      if (source && field.to === source.id && field.max === 1) entries.push(`'${field.name}': event.payload.id`);
      else if (field.min >= 1 && field.defaultValue === undefined && field.computed === undefined) {
        if (field.to === 'p_TEXT' && first) {
          entries.push(`'${field.name}': ${JSON.stringify(title).replace(/^"|"$/g, "'")}`);
          first = false;
        } else if (field.to === 'p_NUMBER') entries.push(`'${field.name}': 0`);
        else if (field.to === 'p_BOOLEAN') entries.push(`'${field.name}': false`);
        else if (field.to.startsWith('p_') && field.enum?.length) entries.push(`'${field.name}': ${JSON.stringify(field.enum[0])}`);
        else throw new Unclear(`I cannot fill ${target.name}.${field.name} (required) in "${text}".`);
      }
    }
    return {
      effect: { actionEffectId: 'create', effect: 'data.create', params: { model: target.name, values: {} }, bindParams: { values: `{${entries.join(', ')}}` } },
      slug: `create-${slugWords(target.name)}`,
      says: `create a ${target.name} (${entries.join(', ')})`,
    };
  }
  return null;
}

function automationStep(ctx: Context, slug: string, doing: Doing, trigger: { eventName: string; payload: Record<string, unknown> }, says: string): Step {
  const action = uniqueId(`urn:svc:action:${slug}`, new Set(ctx.def.actions.map((a) => a.id)));
  const triggerId = uniqueId(`urn:svc:trigger:${slug}`, new Set(ctx.def.triggers.map((t) => t.trigger.id)));
  return {
    operations: [
      { op: 'addAction', action: { id: action, startEffectId: doing.effect.actionEffectId, effects: [doing.effect] } },
      { op: 'addTrigger', trigger: { trigger: { id: triggerId, type: 'event', ...trigger }, actionId: action, initialState: {}, validation: [] } },
    ],
    understood: `${says}, ${doing.says}.`,
  };
}

export const eventAction: Rule = (sentence, ctx) => {
  const m = /^(?:when(?:ever)?|after|once|each time|every time)\s+(?:a|an|the|someone|somebody)?\s*(?:new\s+)?(.+?)\s+(is created|is added|gets created|signs up|registers|joins|is registered|is opened|is placed|is made|is updated|is changed|changes|is edited|gets updated|is deleted|is removed|gets deleted)\s*,?\s*(?:then\s+|automatically\s+|we should\s+|please\s+)?(.+)$/i.exec(sentence);
  if (!m) return null;
  const source = modelOf(ctx, m[1]) ?? (/^(?:someone|somebody|user)$/i.test(m[1]) ? ctx.def.models.find((x) => x.id === ctx.def.userModelId) : undefined);
  if (!source) throw new Unclear(`I found no model "${m[1]}".`);
  const event = EVENTS.find(([pattern]) => pattern.test(m[2]))![1];
  const doing = doingOf(ctx, m[3].trim(), source);
  if (!doing) throw new Unclear(`I can create a record or emit an event when a ${source.name} is ${event}, not "${m[3]}".`);
  return automationStep(ctx, `on-${slugWords(source.name)}-${event}-${doing.slug}`, doing, { eventName: `${source.name}.${event}`, payload: {} }, `When a ${source.name} is ${event}`);
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
