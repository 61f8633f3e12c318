// The mails of the account flows: a subject, a text and an HTML body per kind, with defaults that
// need nothing set. An application replaces any of them with its variables (DESIGN §11; read per
// request, so a change applies without republishing, as `SMTP_URL` does): `MAIL_VERIFY_SUBJECT`,
// `MAIL_VERIFY_TEXT`, `MAIL_VERIFY_HTML`, the same with `PASSWORD_RESET`, `EMAIL_CHANGE`,
// `EMAIL_CHANGED` (the notice to the old address) and `SIGNUP_EXISTING` (the notice of a sign-up
// with a registered address, SIGNUP_NEUTRAL), and `MAIL_FROM`. They are Mustache templates over
// `appName`, `link`, `token`, `email`, `expiresIn` (and `newEmail` in the notice of a change); the
// HTML body escapes what it inserts, the text and the subject insert it as it is. The two notices
// carry no token: their link is the app's front page.
import type MustacheModule from 'mustache';

// Imported with the first mail: most services never send one (issue 28).
let mustache: Promise<typeof MustacheModule> | undefined;
function loadMustache(): Promise<typeof MustacheModule> {
  mustache ??= import('mustache').then((module) => module.default);
  return mustache;
}

export type MailKind = 'verify' | 'passwordReset' | 'emailChange' | 'emailChanged' | 'signupExisting';
/** The mails that tell the user something and carry no token. */
export type NoticeKind = 'emailChanged' | 'signupExisting';
export const isNotice = (kind: MailKind): kind is NoticeKind => kind === 'emailChanged' || kind === 'signupExisting';

export interface MailView {
  appName: string;
  /** The page of the app's frontend that takes the token. */
  link: string;
  token: string;
  /** The address the mail goes to. */
  email: string;
  /** How long the link works, in words (`24 hours`). */
  expiresIn: string;
  /** The account's new address (the notice of an email change, sent to the old one). */
  newEmail?: string;
}

interface Template {
  subject: string;
  text: string;
  html: string;
}

const DEFAULTS: Record<MailKind, Template> = {
  verify: {
    subject: 'Confirm your email address for {{appName}}',
    text: 'Hello,\n\nplease confirm that {{email}} is your address for {{appName}} by opening this link:\n\n{{link}}\n\nIt works once, for {{expiresIn}}. If you did not sign up for {{appName}}, ignore this mail.\n',
    html: '<p>Hello,</p><p>please confirm that {{email}} is your address for {{appName}}:</p><p><a href="{{link}}">Confirm my email address</a></p><p>The link works once, for {{expiresIn}}. If you did not sign up for {{appName}}, ignore this mail.</p>',
  },
  passwordReset: {
    subject: 'Choose a new password for {{appName}}',
    text: 'Hello,\n\nsomeone asked to reset the password of the {{appName}} account of {{email}}. Choose a new one here:\n\n{{link}}\n\nIt works once, for {{expiresIn}}, and logs the account out everywhere. If you did not ask for it, ignore this mail: your password stays as it is.\n',
    html: '<p>Hello,</p><p>someone asked to reset the password of the {{appName}} account of {{email}}.</p><p><a href="{{link}}">Choose a new password</a></p><p>The link works once, for {{expiresIn}}, and logs the account out everywhere. If you did not ask for it, ignore this mail: your password stays as it is.</p>',
  },
  emailChange: {
    subject: 'Confirm your new email address for {{appName}}',
    text: 'Hello,\n\nconfirm {{email}} as the new address of your {{appName}} account by opening this link:\n\n{{link}}\n\nIt works once, for {{expiresIn}}. If you did not ask for it, ignore this mail.\n',
    html: '<p>Hello,</p><p>confirm {{email}} as the new address of your {{appName}} account:</p><p><a href="{{link}}">Confirm my new address</a></p><p>The link works once, for {{expiresIn}}. If you did not ask for it, ignore this mail.</p>',
  },
  emailChanged: {
    subject: 'The email address of your {{appName}} account changed',
    text: 'Hello,\n\nthe {{appName}} account of {{email}} now has the address {{newEmail}}; this address no longer signs in to it.\n\nIf you did not make this change, your account may have been taken over: contact the people who run {{appName}} at once.\n\n{{link}}\n',
    html: '<p>Hello,</p><p>the {{appName}} account of {{email}} now has the address {{newEmail}}; this address no longer signs in to it.</p><p>If you did not make this change, your account may have been taken over: contact the people who run {{appName}} at once.</p><p><a href="{{link}}">{{appName}}</a></p>',
  },
  signupExisting: {
    subject: 'Someone tried to sign up for {{appName}} with your address',
    text: 'Hello,\n\nsomeone tried to sign up for {{appName}} with {{email}}, which already has an account. If it was you, log in, or ask for a new password if you forgot it:\n\n{{link}}\n\nIf it was not you, ignore this mail: nothing changed.\n',
    html: '<p>Hello,</p><p>someone tried to sign up for {{appName}} with {{email}}, which already has an account. If it was you, log in, or ask for a new password if you forgot it:</p><p><a href="{{link}}">{{appName}}</a></p><p>If it was not you, ignore this mail: nothing changed.</p>',
  },
};

const VARIABLE_PREFIX: Record<MailKind, string> = {
  verify: 'MAIL_VERIFY',
  passwordReset: 'MAIL_PASSWORD_RESET',
  emailChange: 'MAIL_EMAIL_CHANGE',
  emailChanged: 'MAIL_EMAIL_CHANGED',
  signupExisting: 'MAIL_SIGNUP_EXISTING',
};

/** The names of the variables an application may set for its mails. */
export const TEMPLATE_VARIABLES = Object.values(VARIABLE_PREFIX).flatMap((prefix) => ['SUBJECT', 'TEXT', 'HTML'].map((part) => `${prefix}_${part}`));

const asIs = (value: unknown): string => String(value);
/** HTML's five: enough inside text and quoted attributes, and a link stays readable (Mustache's own also escapes `/` and `=`). */
const html = (value: unknown): string =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function render(Mustache: typeof MustacheModule, template: string, view: MailView, escape: boolean): string {
  // No partials; `{{{…}}}` and `{{&…}}` still insert unescaped where a builder asks for it.
  return Mustache.render(template, view, {}, { escape: escape ? html : asIs });
}

/** The subject, text and HTML of a mail of `kind`, from the app's variables or the defaults. */
export async function renderMail(kind: MailKind, view: MailView, env: Record<string, string>): Promise<Template> {
  const Mustache = await loadMustache();
  const prefix = VARIABLE_PREFIX[kind];
  const pick = (part: keyof Template) => env[`${prefix}_${part.toUpperCase()}`] || DEFAULTS[kind][part];
  return {
    // A subject is one line: a template's line breaks would start the headers' body.
    subject: render(Mustache, pick('subject'), view, false).replace(/[\r\n]+/g, ' ').trim(),
    text: render(Mustache, pick('text'), view, false),
    html: render(Mustache, pick('html'), view, true),
  };
}

/** `3600` → `1 hour`, `86400` → `24 hours`, `90` → `2 minutes`. */
export function durationWords(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds % 3600 === 0) return plural(seconds / 3600, 'hour');
  if (seconds >= 60) return plural(Math.ceil(seconds / 60), 'minute');
  return plural(seconds, 'second');
}
