import { request as httpRequest } from 'node:http';
import type { LookupFunction } from 'node:net';

/**
 * `fetch` for an application's own origin (`http://{id}.localhost:{port}/…`). Browsers resolve
 * `*.localhost` to the loopback address themselves; Node's resolver does not, and Node's `fetch`
 * drops a `Host` header. So this connects to 127.0.0.1 and sends the URL's host as `Host`, as a
 * browser would: the service sees exactly what a browser on that origin sends.
 */
export async function fetchAppOrigin(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Response> {
  const target = new URL(url);
  const loopback: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  };
  return new Promise<Response>((resolve, reject) => {
    const req = httpRequest(
      target,
      { method: init.method ?? 'GET', headers: { ...init.headers }, lookup: loopback },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
          }
          const status = res.statusCode ?? 0;
          const body = status === 204 || status === 304 || init.method === 'HEAD' ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, headers }));
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
