// The baseline of `npm run bench:storage`: the plainest Node upload/download handler there is,
// `pipeline(req, fs.createWriteStream)` in and `pipeline(fs.createReadStream, res)` out, with no
// auth, hashing, limits, fsync or database. Prints its port on stdout.
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.argv[2];
const server = createServer((req, res) => {
  const path = join(dir, 'plain.bin');
  const done = (error?: unknown) => {
    if (error) res.writeHead(500).end();
  };
  if (req.method === 'POST') {
    pipeline(req, createWriteStream(path))
      .then(() => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'))
      .catch(done);
  } else {
    res.writeHead(200, { 'content-length': statSync(path).size, 'content-type': 'application/octet-stream' });
    pipeline(createReadStream(path), res).catch(done);
  }
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
