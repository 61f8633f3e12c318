// A TCP port free on 127.0.0.1 now, for a child process (a service the test or bench starts) to
// listen on: the kernel picks it, the probe closes, the child takes it.
import { once } from 'node:events';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}
