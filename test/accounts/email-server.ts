// A real SMTP server for the tests of the account mails (smtp-server), on a free local port.
// Every message it receives is parsed (mailparser) and kept; `next` waits for the next one to an
// address.
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface ReceivedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
}

export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  readonly #waiting: Array<{ to: string; resolve: (mail: ReceivedMail) => void }> = [];
  #server: SMTPServer;
  port = 0;

  private constructor() {
    this.#server = new SMTPServer({
      // Plain SMTP on the loopback: no STARTTLS offered, no login asked.
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then((parsed) => {
            this.#deliver(parsed, session.envelope.rcptTo.map((r) => r.address.toLowerCase()));
            callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
  }

  static async start(): Promise<TestSmtpServer> {
    const server = new TestSmtpServer();
    await new Promise<void>((resolve) => server.#server.listen(0, '127.0.0.1', resolve));
    server.port = (server.#server.server.address() as { port: number }).port;
    return server;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The next mail to `to` (already received and not yet taken, or the next to arrive). */
  next(to: string, timeoutMs = 15_000): Promise<ReceivedMail> {
    const address = to.toLowerCase();
    const index = this.received.findIndex((mail) => mail.to === address);
    if (index >= 0) return Promise.resolve(this.received.splice(index, 1)[0]);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)), timeoutMs);
      this.#waiting.push({ to: address, resolve: (mail) => (clearTimeout(timer), resolve(mail)) });
    });
  }

  /** Mails received to `to` and not taken. */
  count(to: string): number {
    return this.received.filter((mail) => mail.to === to.toLowerCase()).length;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #deliver(parsed: ParsedMail, recipients: string[]): void {
    for (const to of recipients) {
      const mail = { to, from: parsed.from?.text ?? '', subject: parsed.subject ?? '', text: parsed.text ?? '', html: typeof parsed.html === 'string' ? parsed.html : '' };
      const waiter = this.#waiting.findIndex((w) => w.to === to);
      if (waiter >= 0) this.#waiting.splice(waiter, 1)[0].resolve(mail);
      else this.received.push(mail);
    }
  }
}

/** The token of the link in a mail's text: `…#/{page}?token=…`. */
export function linkToken(mail: ReceivedMail, page: string): { link: string; token: string } {
  const match = new RegExp(`(\\S*#/${page}\\?token=([A-Za-z0-9_%-]+))`).exec(mail.text);
  if (!match) throw new Error(`no ${page} link in: ${mail.text}`);
  return { link: match[1], token: decodeURIComponent(match[2]) };
}

/**
 * The outbound guard's test allowance for the mail server: the mailer refuses loopback addresses
 * unless APPBUILDER_HTTP_ALLOW lists them (as http.request does), and this server is on 127.0.0.1.
 * Returns what puts the setting back.
 */
export function allowLoopbackMail(): () => void {
  const before = process.env.APPBUILDER_HTTP_ALLOW;
  process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
  return () => {
    if (before === undefined) delete process.env.APPBUILDER_HTTP_ALLOW;
    else process.env.APPBUILDER_HTTP_ALLOW = before;
  };
}
