// http.request against a local server on 127.0.0.1, which this file allows through the allow-list
// (loopback is refused by default, as the last tests show).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowListFromEnv, isRefusedAddress, MAX_RESPONSE_BYTES } from '../../src/runtime/actions/index.ts';
import { action, harness, run } from './support.ts';

let server: Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/json') {
        res.setHeader('content-type', 'application/json; charset=utf-8');
        const got = Buffer.concat(chunks).toString() || null;
        res.end(JSON.stringify({ method: req.method, host: req.headers.host, got, auth: req.headers.authorization ?? null }));
      } else if (url.pathname === '/text') {
        res.setHeader('content-type', 'text/plain');
        res.end('plain words');
      } else if (url.pathname === '/big') {
        res.setHeader('content-type', 'text/plain');
        res.end(Buffer.alloc(MAX_RESPONSE_BYTES + 10, 'a'));
      } else if (url.pathname === '/stream') {
        // Chunked, no content-length: the cap must count bytes as they come.
        res.setHeader('content-type', 'text/plain');
        const chunk = Buffer.alloc(64 * 1024, 'b');
        let sent = 0;
        const push = () => {
          if (res.destroyed || sent > 2 * MAX_RESPONSE_BYTES) return res.end();
          sent += chunk.length;
          res.write(chunk, () => setImmediate(push));
        };
        push();
      } else if (url.pathname === '/slow') {
        setTimeout(() => res.end('late'), 2000);
      } else if (url.pathname === '/redirect') {
        res.statusCode = 302;
        res.setHeader('location', url.searchParams.get('to') ?? '/json');
        res.end();
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const allowLocal = { httpAllow: ['127.0.0.1'] };

function call(params: Record<string, unknown>) {
  return action([{ actionEffectId: 'call', effect: 'http.request', params: { method: 'GET', ...params } }], {
    bindReturnValue: 'results.call',
  });
}

describe('http.request', () => {
  it('GETs JSON and parses it by content type', async () => {
    const record = await run(call({ url: `${base}/json` }), harness(), {}, allowLocal);
    expect(record.status).toBe('succeeded');
    expect(record.result).toMatchObject({ status: 200, body: { method: 'GET', host: base.slice(7), got: null } });
    expect(record.result).toHaveProperty(['headers', 'content-type'], 'application/json; charset=utf-8');
  });

  it('sends a bound JSON body and headers, and keeps text responses as text', async () => {
    const act = action(
      [
        {
          actionEffectId: 'call',
          effect: 'http.request',
          params: { method: 'POST', url: `${base}/json` },
          bindParams: { body: "{'name': state.name}", headers: "{'authorization': 'Bearer ' + secrets.TOKEN}" },
          next: 'text',
        },
        { actionEffectId: 'text', effect: 'http.request', params: { method: 'GET', url: `${base}/text` } },
      ],
      { bindReturnValue: "[results.call.body, results.text.body]" },
    );
    const record = await run(act, harness(), { initialState: { name: 'Ann' }, secrets: { TOKEN: 's3cret' } }, allowLocal);
    expect(record.result).toEqual([{ method: 'POST', host: base.slice(7), got: '{"name":"Ann"}', auth: 'Bearer s3cret' }, 'plain words']);
  });

  it('gives other statuses as output (branch on results.x.status)', async () => {
    const record = await run(call({ url: `${base}/nothing` }), harness(), {}, allowLocal);
    expect(record.result).toMatchObject({ status: 404, body: null });
  });

  it('caps the response at 1 MiB', async () => {
    const record = await run(call({ url: `${base}/big` }), harness(), {}, allowLocal);
    expect(record.error).toMatchObject({ code: 'http_response_too_large', status: 502, effectId: 'call' });
  });

  it('caps a streamed response without content-length too', async () => {
    const record = await run(call({ url: `${base}/stream` }), harness(), {}, allowLocal);
    expect(record.error).toMatchObject({ code: 'http_response_too_large' });
  });

  it('times out after timeoutMs', async () => {
    const record = await run(call({ url: `${base}/slow`, timeoutMs: 100 }), harness(), {}, allowLocal);
    expect(record.error).toMatchObject({ code: 'http_timeout', status: 504 });
  });

  it('follows redirects, checking every hop: no redirect to a refused address', async () => {
    const ok = await run(call({ url: `${base}/redirect?to=/json` }), harness(), {}, allowLocal);
    expect(ok.result).toMatchObject({ status: 200, body: { method: 'GET' } });
    const to = encodeURIComponent('http://169.254.169.254/latest/meta-data/');
    const refused = await run(call({ url: `${base}/redirect?to=${to}` }), harness(), {}, allowLocal);
    expect(refused.error).toMatchObject({ code: 'http_address_refused' });
    expect(refused.error?.message).toContain('169.254.169.254');
  });

  it('refuses 127.0.0.1 by default, before connecting', async () => {
    const before = hits;
    const record = await run(call({ url: `${base}/json` }), harness());
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({ code: 'http_address_refused', status: 502, effectId: 'call' });
    expect(hits).toBe(before);
  });

  it('refuses the cloud metadata address 169.254.169.254', async () => {
    const record = await run(call({ url: 'http://169.254.169.254/latest/meta-data/' }), harness());
    expect(record.error).toMatchObject({ code: 'http_address_refused' });
  });

  it('refuses a hostname that resolves to loopback (localhost)', async () => {
    const port = new URL(base).port;
    const record = await run(call({ url: `http://localhost:${port}/json` }), harness());
    expect(record.error).toMatchObject({ code: 'http_address_refused' });
    expect(record.error?.message).toMatch(/localhost refused: it resolves to (127\.0\.0\.1|::1)/);
  });

  it('refuses non-http URLs', async () => {
    const record = await run(call({ url: 'file:///etc/passwd' }), harness());
    expect(record.error).toMatchObject({ code: 'http_invalid_url', status: 400 });
  });

  it('classifies addresses, including IPv6 forms that embed a private IPv4', () => {
    const v4 = (address: string) => isRefusedAddress({ address, family: 4 });
    const v6 = (address: string) => isRefusedAddress({ address, family: 6 });
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1']) expect(v4(a)).toBe(true);
    for (const a of ['::', '::1', 'fe80::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::10.0.0.1', '2002:7f00:1::']) {
      expect(v6(a)).toBe(true);
    }
    expect(v4('93.184.216.34')).toBe(false);
    expect(v6('2606:4700:4700::1111')).toBe(false);
    expect(v6('::ffff:8.8.8.8')).toBe(false);
  });

  it('reads the allow-list from APPBUILDER_HTTP_ALLOW', () => {
    expect(allowListFromEnv({ APPBUILDER_HTTP_ALLOW: 'internal.example, 10.0.0.0/8 ,127.0.0.1' })).toEqual([
      'internal.example',
      '10.0.0.0/8',
      '127.0.0.1',
    ]);
    expect(allowListFromEnv({})).toEqual([]);
  });
});

describe('http.request input', () => {
  it('refuses a header value Node cannot send, as a 400', async () => {
    const act = call({ url: `${base}/json`, headers: { 'x-bad': 'line\nbreak' } });
    const record = await run(act, harness(), {}, allowLocal);
    expect(record.error).toMatchObject({ code: 'http_invalid_request', status: 400 });
  });
});
