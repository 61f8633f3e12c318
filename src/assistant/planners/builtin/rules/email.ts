/**
 * The email.send of an event action: "send a welcome email", "email the customer", "send the
 * support rep a notification", "notify help@example.com". The recipient is the event's record
 * when it has an email, else the record one of its relationships names (read first with
 * data.get), else an address written out. Templates are Mustache over the action's scope.
 */
import type { ActionEffect, Field, Model } from '../../../../definition/schema.ts';
import { slugOf as slugWords } from '../../../../definition/edits/index.ts';
import { Unclear, modelOf, type Context } from '../context.ts';
import { resolveField, wordsOf } from '../names.ts';

export interface EmailDoing {
  effects: ActionEffect[];
  slug: string;
  says: string;
}

const MAIL = '(?:e-?mails?|mails?|messages?|notifications?|notes?)';
const PRONOUN = /^(?:them|him|her|it|they|the user|the new user|the person|that person)$/i;
const ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function emailField(model: Pick<Model, 'fields'>): Field | undefined {
  return model.fields.find((f) => f.to.startsWith('p_') && f.max === 1 && /^e-?mail(?:address)?$/i.test(f.name.replace(/[^A-Za-z]/g, '')));
}

/** The display field of a record (a name or title) for the text. */
function displayField(model: Pick<Model, 'fields'>): Field | undefined {
  return (
    model.fields.find((f) => f.to === 'p_TEXT' && f.max === 1 && /^(?:name|title|firstName|fullName|companyName|subject|label)$/.test(f.name)) ??
    model.fields.find((f) => f.to === 'p_TEXT' && f.max === 1 && f.min >= 1 && !/e-?mail/i.test(f.name))
  );
}

/** Parses the sentence's doing; null when it is not an email. */
export function emailDoingOf(ctx: Context, text: string, source: Model | undefined, event: string): EmailDoing | null {
  let adjective: string | undefined;
  let recipient: string | undefined;
  let m = new RegExp(`^send\\s+(.+?)\\s+(?:an?|the)\\s+(?:(.+?)\\s+)?${MAIL}$`, 'i').exec(text);
  if (m) [recipient, adjective] = [m[1], m[2]];
  else if ((m = new RegExp(`^send\\s+(?:out\\s+)?(?:an?|the)\\s+(?:(.+?)\\s+)?${MAIL}(?:\\s+to\\s+(.+?))?$`, 'i').exec(text))) [adjective, recipient] = [m[1], m[2]];
  else if ((m = new RegExp(`^send\\s+(?:out\\s+)?(?:(.+?)\\s+)?${MAIL}(?:\\s+to\\s+(.+?))?$`, 'i').exec(text))) [adjective, recipient] = [m[1], m[2]];
  else if ((m = /^(?:e-?mail|mail|notify|write to)\s+(.+?)(?:\s+(?:about it|about this|about that|by e-?mail))?$/i.exec(text))) recipient = m[1];
  else return null;
  if (!source) throw new Unclear('I can send a mail when a record is created, updated or deleted; say which (e.g. "when an order is created, email the customer").');
  if (adjective && /^(?:an?|the)$/i.test(adjective)) adjective = undefined;
  const effects: ActionEffect[] = [];
  let to: string;
  let who: string;
  const phrase = recipient?.trim().replace(/^(?:the|a|an|their|its)\s+/i, '');
  const sourceWords = wordsOf(source.name).join(' ');
  if (phrase && ADDRESS.test(phrase)) {
    to = phrase;
    who = phrase;
  } else if (!phrase || PRONOUN.test(recipient!.trim()) || modelOf(ctx, phrase)?.id === source.id || phrase.toLowerCase() === `new ${sourceWords}`) {
    const own = emailField(source);
    if (own) {
      to = `{{event.payload.${own.name}}}`;
      who = `the ${source.name}'s ${own.name}`;
    } else {
      const owner = source.fields.find((f) => f.to === ctx.def.userModelId && f.max === 1);
      const user = ctx.def.models.find((x) => x.id === ctx.def.userModelId);
      const userEmail = user && emailField(user);
      if (!owner || !user || !userEmail) throw new Unclear(`${source.name} has no email field; say who gets the mail (e.g. "email help@example.com").`);
      ({ to, who } = related(effects, owner, user, userEmail));
    }
  } else {
    const field = resolveField(source, phrase) ?? source.fields.find((f) => f.max === 1 && f.to === modelOf(ctx, phrase)?.id);
    const target = field && ctx.def.models.find((x) => x.id === field.to);
    const address = target && emailField(target);
    if (!field || !target || !address || field.max !== 1) throw new Unclear(`I do not know the email address of "${recipient}" for a ${source.name}; name a field with an email, or write the address.`);
    ({ to, who } = related(effects, field, target, address));
  }
  const eventWords = event === 'created' && source.id === ctx.def.userModelId ? 'signed up' : event;
  const subject = adjective ? adjective[0].toUpperCase() + adjective.slice(1) : `${source.name} ${eventWords}`;
  const display = displayField(source);
  const shown = display ? `{{event.payload.${display.name}}}` : '{{event.payload.id}}';
  const body = /^welcome$/i.test(subject) ? `Welcome, ${shown}!` : `${subject}: ${shown}.`;
  effects.push({ actionEffectId: 'email', effect: 'email.send', params: { to, subject, text: body } });
  for (let i = 0; i < effects.length - 1; i++) effects[i] = { ...effects[i], next: effects[i + 1].actionEffectId };
  return { effects, slug: `email-${adjective ? slugWords(adjective) : slugWords(phrase ?? 'notification')}`, says: `email ${who} "${subject}"` };
}

/** Reads the related record first; the mail goes to its email. */
function related(effects: ActionEffect[], field: Field, target: Model, address: Field): { to: string; who: string } {
  const id = `get-${slugWords(field.name)}`;
  effects.push({ actionEffectId: id, effect: 'data.get', params: { model: target.name }, bindParams: { id: `event.payload.${field.name}` } });
  return { to: `{{results.${id}.${address.name}}}`, who: `the ${field.name}'s ${address.name}` };
}
