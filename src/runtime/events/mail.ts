// The mails of `email.send` (DESIGN §7): the effect writes them to the outbox (`appbuilder.events`,
// name MAIL_EVENT) in the run's transaction; the dispatcher turns each committed row into one job of
// MAIL_QUEUE (its id fixed by the row, so a resend never doubles it), and this sends it through the
// app's `SMTP_URL` secret (else APPBUILDER_SMTP_URL) over the outbound guard (accounts/mailer.ts).
// Once sent, the row's body is dropped. A mail that cannot be sent is retried, then logged without
// its body.
import { sql } from 'kysely';
import type { Db } from '../../storage/db.ts';
import type { JobLogger } from '../../jobs/queue.ts';
import type { AppValuesSource } from '../../secrets/app-values.ts';
import type { Mailer } from '../accounts/mailer.ts';
import type { OutgoingMail } from '../actions/types.ts';

/** The outbox name of a queued mail: `$` starts no event name a trigger or `event.emit` may use. */
export const MAIL_EVENT = '$mail';
export const MAIL_QUEUE = 'app-mail';

export interface MailJob {
  eventId: string;
  applicationId: string;
}

export interface MailDeps {
  db: Db;
  mailer: Pick<Mailer, 'send'>;
  values: AppValuesSource;
  /** APPBUILDER_SMTP_URL and APPBUILDER_MAIL_FROM. */
  smtpUrl: string | null;
  mailFrom: string;
  logger: JobLogger;
}

export async function sendQueuedMail(deps: MailDeps, job: MailJob): Promise<void> {
  const row = await deps.db.kysely.selectFrom('appbuilder.events').select(['payload']).where('id', '=', job.eventId).executeTakeFirst();
  const mail = row?.payload as Partial<OutgoingMail> | undefined;
  // Deleted with its application, or already sent (the body is dropped once sent).
  if (!mail?.to || !mail.subject) return;
  const values = await deps.values.forApplication(job.applicationId);
  const smtpUrl = values.secrets.SMTP_URL || deps.smtpUrl;
  if (!smtpUrl) {
    deps.logger.warn({ applicationId: job.applicationId, eventId: job.eventId }, 'email.send: the application has no SMTP_URL secret; the mail was not sent');
    return;
  }
  await deps.mailer.send(smtpUrl, {
    from: mail.from ?? (values.env.MAIL_FROM || deps.mailFrom),
    to: mail.to.join(', '),
    subject: mail.subject,
    ...(mail.text !== undefined ? { text: mail.text } : {}),
    ...(mail.html !== undefined ? { html: mail.html } : {}),
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
  });
  await sql`update appbuilder.events set payload = cast(${JSON.stringify({ sent: true, to: mail.to.length })} as jsonb) where id = ${job.eventId}`.execute(deps.db.kysely);
  deps.logger.info({ applicationId: job.applicationId, eventId: job.eventId, recipients: mail.to.length }, 'email.send: mail sent');
}
