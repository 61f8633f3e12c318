import type { IncomingHttpHeaders } from 'node:http';

/** The serverVersion named by `If-Match: "1.2.3"` (quotes and W/ optional), if any. */
export function ifMatchOf(request: { headers: IncomingHttpHeaders }): string | undefined {
  const header = request.headers['if-match'];
  if (typeof header !== 'string' || header.trim() === '' || header.trim() === '*') return undefined;
  return header.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
}
