// The header policy of generated apps' answers (src/runtime/http/answer-headers.ts) for the forms
// a builder may write that the end-to-end tests do not: any letter case, `proxy-*`, content types
// with parameters, cookies for a parent domain. The requests themselves are in
// shared-origin-headers.test.ts and app-origin.test.ts.
import { describe, expect, it } from 'vitest';
import { answerHeaders } from '../../src/runtime/http/answer-headers.ts';

describe('answer headers', () => {
  it('applies the shared origin policy whatever the letter case', () => {
    const headers = answerHeaders(
      { 'Content-Type': 'image/svg+xml', 'Set-Cookie': 'a=1; Path=/', 'Service-Worker-Allowed': '/', 'Access-Control-Allow-Origin': '*', 'Proxy-Authenticate': 'Basic', 'Strict-Transport-Security': 'max-age=1', 'NEL': '{}', 'X-Trace': '1' },
      false,
    );
    expect(headers).toEqual({ 'content-type': 'text/plain; charset=utf-8', 'x-trace': '1', 'x-content-type-options': 'nosniff', 'content-security-policy': "sandbox; default-src 'none'" });
  });

  it('keeps JSON, problem JSON, text and CSV types on the shared origin, and forces HTML and scripts to text', () => {
    const type = (value: string) => answerHeaders({ 'content-type': value }, false)['content-type'];
    expect(type('application/json; charset=utf-8')).toBe('application/json; charset=utf-8');
    expect(type('application/problem+json')).toBe('application/problem+json');
    expect(type('text/plain')).toBe('text/plain');
    expect(type('text/csv; charset=utf-8')).toBe('text/csv; charset=utf-8');
    for (const active of ['text/html', 'TEXT/HTML; charset=utf-8', 'text/javascript', 'application/xhtml+xml', 'text/xml', 'application/jsonp', 'text/plainx', 'multipart/x-mixed-replace; boundary=x']) {
      expect(type(active), active).toBe('text/plain; charset=utf-8');
    }
  });

  it('lets the own origin keep its headers but hop-by-hop ones, and its cookies on its host', () => {
    const headers = answerHeaders({ 'content-type': 'text/html', 'Connection': 'close', 'Transfer-Encoding': 'chunked', 'Content-Length': '1', 'Set-Cookie': 'a=1; Domain=localhost; Path=/; HttpOnly', 'service-worker-allowed': '/' }, true);
    expect(headers).toEqual({ 'content-type': 'text/html', 'set-cookie': 'a=1; Path=/; HttpOnly', 'service-worker-allowed': '/', 'x-content-type-options': 'nosniff' });
  });
});
