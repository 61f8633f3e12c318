// email.send (DESIGN §7): fills the Mustache templates (`to`, `subject`, `text`, `html`) over the
// action's scope and queues the mail in the outbox of the run's transaction, so it is sent after
// commit and never for a rolled-back run. The output (what the run records) names the recipients
// and the subject, never the body.
import Mustache from 'mustache';
import { ActionError } from '../errors.ts';
import type { EffectModule, OutgoingMail } from '../types.ts';

type SendParams = { to: string | string[]; subject: string; text?: string; html?: string; from?: string; replyTo?: string };

/** Recipients of one mail at most. */
export const MAX_RECIPIENTS = 50;
const ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/;

/** Text parts are not HTML: values go in as they are. HTML parts escape them (Mustache's default). */
const plain = (template: string, view: Record<string, unknown>) => Mustache.render(template, view, {}, { escape: (value: unknown) => String(value) });
const html = (template: string, view: Record<string, unknown>) => Mustache.render(template, view, {});

function render(what: string, template: string, view: Record<string, unknown>, asHtml = false): string {
  try {
    return asHtml ? html(template, view) : plain(template, view);
  } catch (error) {
    throw new ActionError(422, 'template_invalid', `The ${what} template of email.send is not valid Mustache: ${(error as Error).message}`);
  }
}

function addresses(what: string, value: string): string[] {
  const list = value.split(/\s*,\s*/).map((a) => a.trim()).filter((a) => a.length > 0);
  for (const address of list) if (!ADDRESS.test(address)) throw new ActionError(422, 'invalid_address', `email.send: '${address}' (${what}) is not an email address.`);
  return list;
}

export const emailSend: EffectModule<SendParams> = {
  name: 'email.send',
  async run(params, ctx) {
    if (params.text === undefined && params.html === undefined) throw new ActionError(422, 'invalid_params', 'email.send needs a text or an html template.');
    if (!ctx.ports.mail) throw new ActionError(503, 'mail_unavailable', 'This run cannot send mail.');
    const view = ctx.scope();
    const to = (Array.isArray(params.to) ? params.to : [params.to]).flatMap((t) => addresses('to', render('to', t, view)));
    if (to.length === 0) throw new ActionError(422, 'invalid_address', 'email.send: the to template gave no address.');
    if (to.length > MAX_RECIPIENTS) throw new ActionError(422, 'invalid_address', `email.send: at most ${MAX_RECIPIENTS} recipients.`);
    // One line: a subject cannot add headers.
    const subject = render('subject', params.subject, view).replace(/[\r\n]+/g, ' ').trim();
    const mail: OutgoingMail = { to, subject };
    if (params.text !== undefined) mail.text = render('text', params.text, view);
    if (params.html !== undefined) mail.html = render('html', params.html, view, true);
    if (params.from !== undefined) mail.from = addresses('from', render('from', params.from, view))[0];
    if (params.replyTo !== undefined) mail.replyTo = addresses('replyTo', render('replyTo', params.replyTo, view))[0];
    await ctx.ports.mail(mail);
    return { to, subject, queued: true };
  },
};
