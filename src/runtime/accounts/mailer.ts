// Mail of the account flows through nodemailer over SMTP (DESIGN §18), sent off the request path:
// a request queues the work (looking the account up, storing its token, sending) and answers at
// once, so an answer takes the same time whether or not a mail goes out, and a slow SMTP server
// holds no request. A failure is logged without the message (it holds a token), never thrown.
import type { Transporter } from 'nodemailer';

// Imported with the first mail (~4.6 MB of V8 heap): most services never send one (issue 28).
type Nodemailer = typeof import('nodemailer');
let nodemailer: Promise<Nodemailer> | undefined;
function loadNodemailer(): Promise<Nodemailer> {
  nodemailer ??= import('nodemailer');
  return nodemailer;
}

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailLogger {
  warn(details: object, message?: string): void;
}

/** Transports kept at most (one per SMTP URL in use); past it they are closed and made again. */
const MAX_TRANSPORTS = 100;
/** Queued jobs at most: past it a new one is dropped (and logged) rather than memory growing without bound. */
const MAX_QUEUED = 10_000;
/** Jobs running at once. */
const CONCURRENCY = 4;

export class Mailer {
  readonly #transports = new Map<string, Transporter>();
  readonly #queue: Array<() => Promise<void>> = [];
  #running = 0;
  #idle: Array<() => void> = [];

  constructor(private readonly logger: MailLogger = { warn: () => undefined }) {}

  /** Sends one message through the SMTP server at `smtpUrl` (`smtp://`, `smtps://`, with credentials if any). */
  async send(smtpUrl: string, message: MailMessage): Promise<void> {
    const mailer = await loadNodemailer();
    await this.#transport(mailer, smtpUrl).sendMail(message);
  }

  /** Runs `job` off the request path; what it throws is logged (`what` names it, never its data). */
  queue(what: string, applicationId: string, job: () => Promise<void>): void {
    if (this.#queue.length >= MAX_QUEUED) {
      this.logger.warn({ applicationId, job: what }, 'end-user mail queue full; a mail was not sent');
      return;
    }
    this.#queue.push(async () => {
      try {
        await job();
      } catch (error) {
        // The error of a refused delivery names the server and the reason, not the message.
        this.logger.warn({ applicationId, job: what, error: (error as Error).message }, 'an end-user mail could not be sent');
      }
    });
    this.#pump();
  }

  /** Resolves when nothing is queued or running (shutdown; tests). */
  idle(): Promise<void> {
    if (this.#running === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  close(): void {
    for (const transport of this.#transports.values()) transport.close();
    this.#transports.clear();
  }

  #pump(): void {
    while (this.#running < CONCURRENCY && this.#queue.length > 0) {
      const job = this.#queue.shift()!;
      this.#running++;
      void job().finally(() => {
        this.#running--;
        this.#pump();
        if (this.#running === 0 && this.#queue.length === 0) for (const resolve of this.#idle.splice(0)) resolve();
      });
    }
  }

  #transport(mailer: Nodemailer, smtpUrl: string): Transporter {
    let transport = this.#transports.get(smtpUrl);
    if (!transport) {
      if (this.#transports.size >= MAX_TRANSPORTS) this.close();
      transport = mailer.createTransport(smtpUrl);
      this.#transports.set(smtpUrl, transport);
    }
    return transport;
  }
}
