// Mail of the account flows through nodemailer over SMTP (DESIGN §18), sent off the request path:
// a request queues the work (looking the account up, storing its token, sending) and answers at
// once, so an answer takes the same time whether or not a mail goes out, and a slow SMTP server
// holds no request. A failure is logged without the message (it holds a token), never thrown.
//
// The SMTP server is reached through the outbound guard of http.request: its host is resolved and
// every address checked (loopback, private and this host's own addresses refused unless
// APPBUILDER_HTTP_ALLOW lists them), and the connection goes to the checked address, with the
// host name kept for TLS (SNI and certificate check), so a DNS answer that changes in between
// cannot point it elsewhere.
import { isIP } from 'node:net';
import type { Transporter } from 'nodemailer';
import { allowListFromEnv, resolveChecked } from '../actions/http/address-guard.ts';

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
  text?: string;
  html?: string;
  replyTo?: string;
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

  /**
   * Sends one message through the SMTP server at `smtpUrl` (`smtp://`, `smtps://`, with credentials
   * if any), connecting only to an address the outbound guard allows (`allow`: APPBUILDER_HTTP_ALLOW).
   */
  async send(smtpUrl: string, message: MailMessage, allow: readonly string[] = allowListFromEnv()): Promise<void> {
    const server = await vettedServer(smtpUrl, allow);
    const mailer = await loadNodemailer();
    await this.#transport(mailer, server).sendMail(message);
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

  #transport(mailer: Nodemailer, server: VettedServer): Transporter {
    let transport = this.#transports.get(server.key);
    if (!transport) {
      if (this.#transports.size >= MAX_TRANSPORTS) this.close();
      transport = mailer.createTransport(server.options);
      this.#transports.set(server.key, transport);
    }
    return transport;
  }
}

interface VettedServer {
  /** The URL and the checked address: a transport per pair, so a changed DNS answer gets a new one. */
  key: string;
  options: { host: string; port?: number; secure: boolean; auth?: { user: string; pass: string }; tls?: { servername: string } };
}

/** The SMTP URL's server, its host resolved and checked by the outbound guard; throws naming the host when refused. */
async function vettedServer(smtpUrl: string, allow: readonly string[]): Promise<VettedServer> {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new Error('SMTP_URL is not a URL (smtp://user:password@host:port or smtps://…).');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_URL must be smtp:// or smtps://, not ${url.protocol}//.`);
  const address = await resolveChecked(url, allow, 'the mail server (SMTP_URL)');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const options: VettedServer['options'] = { host: address.address, secure: url.protocol === 'smtps:' };
  if (url.port) options.port = Number(url.port);
  if (url.username) options.auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  // Connected by address, so TLS is told the name it must check the certificate against.
  if (isIP(host) === 0) options.tls = { servername: host };
  return { key: `${smtpUrl}\u0000${address.address}`, options };
}
