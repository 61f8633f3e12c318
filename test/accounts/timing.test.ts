// Issue 25 (DESIGN §18): a password-reset request for an unknown email cannot be told from one for
// a registered email, by its answer or by its time. The request path does the same work for both
// (the look-up, the token and the mail are queued behind the answer: accounts/email-flows.ts), so
// the property holds by construction; this test checks it from the outside.
//
// Robust on a loaded machine: requests alternate between the two emails (in AB then BA order, so
// neither always goes first), after a warm-up; what is compared are medians and quartiles of many
// requests, with generous bounds. It asserts that the distributions overlap, never a duration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { allowLoopbackMail, TestSmtpServer } from './email-server.ts';
import { startAccountsApp, type AccountsApp } from './sessions-app.ts';

const PAIRS = 40;
const WARM_UP = 5;
const KNOWN = 'ann@example.test';
const UNKNOWN = 'nobody-here@example.test';

interface Sample {
  status: number;
  body: string;
  contentType: string | null;
  ms: number;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.ceil(at)] - sorted[low]) * (at - low);
}

describe.each(await availableDrivers())('password-reset answers for known and unknown emails on %s', (driver) => {
  let a: AccountsApp;
  let smtp: TestSmtpServer;
  let restoreAllow: (() => void) | undefined;

  beforeAll(async () => {
    restoreAllow = allowLoopbackMail();
    smtp = await TestSmtpServer.start();
    // No per-account limit here: the same two emails are asked about many times.
    a = await startAccountsApp(driver, { accountPerMinute: 0 });
    await a.setValue('SMTP_URL', smtp.url, 'secrets');
    await a.api.signup('Ann', KNOWN);
  });
  afterAll(async () => {
    await a?.t.close();
    await smtp?.close();
    restoreAllow?.();
  });

  async function ask(email: string): Promise<Sample> {
    const started = performance.now();
    const response = await fetch(`${a.api.base}/auth/password/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    const body = await response.text();
    return { status: response.status, body, contentType: response.headers.get('content-type'), ms: performance.now() - started };
  }

  it('answers 202 with the same body, in times whose distributions overlap', async () => {
    for (let i = 0; i < WARM_UP; i++) {
      await ask(KNOWN);
      await ask(UNKNOWN);
    }
    const known: Sample[] = [];
    const unknown: Sample[] = [];
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2 === 0) {
        known.push(await ask(KNOWN));
        unknown.push(await ask(UNKNOWN));
      } else {
        unknown.push(await ask(UNKNOWN));
        known.push(await ask(KNOWN));
      }
    }
    // The same answer, every time.
    const answers = new Set([...known, ...unknown].map((s) => JSON.stringify([s.status, s.contentType, s.body])));
    expect([...answers]).toEqual([JSON.stringify([202, 'application/json; charset=utf-8', known[0].body])]);
    expect(JSON.parse(known[0].body)).toEqual({ message: expect.any(String) });
    // The known account did get its mails (so the two did differ behind the answer).
    await smtp.next(KNOWN);
    expect(smtp.count(UNKNOWN)).toBe(0);

    const k = known.map((s) => s.ms);
    const u = unknown.map((s) => s.ms);
    const figures = (xs: number[]) => [0.25, 0.5, 0.75].map((q) => quantile(xs, q).toFixed(2)).join(' / ');
    console.log(`[timing ${driver}] password/request ms, q1 / median / q3 over ${PAIRS}: known ${figures(k)}; unknown ${figures(u)}`);
    // Overlapping distributions: each median lies within the other's spread, widened generously
    // (a loaded machine stretches single requests, not one side of an interleaved sequence).
    const [medK, medU] = [quantile(k, 0.5), quantile(u, 0.5)];
    const slack = Math.max(5, 0.5 * Math.max(medK, medU));
    expect(Math.abs(medK - medU)).toBeLessThanOrEqual(slack);
    expect(quantile(k, 0.25)).toBeLessThanOrEqual(quantile(u, 0.75) + slack);
    expect(quantile(u, 0.25)).toBeLessThanOrEqual(quantile(k, 0.75) + slack);
  });
});
