// `npm run soak -- --minutes N` (or `--seconds N`; `--interval S` for the line's period, default
// 60 s with --minutes and 10 s with --seconds; `--concurrency C`, default 8; `--publish-every S`,
// default 60): the soak of
// run.ts against the service on PostgreSQL (DATABASE_URL or 127.0.0.1:5432; a fresh database,
// dropped afterwards). Prints a line per interval and, at the end, the first full and the last
// interval side by side (RSS and pool connections), for the soak's closing note.
import { parseArgs } from 'node:util';
import { postgresAvailable } from '../../test/support/databases.ts';
import { runSoak } from './run.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    seconds: { type: 'string' },
    interval: { type: 'string' },
    concurrency: { type: 'string' },
    'publish-every': { type: 'string' },
  },
});
const seconds = values.seconds !== undefined ? Number(values.seconds) : Number(values.minutes ?? 10) * 60;
const intervalSeconds = values.interval !== undefined ? Number(values.interval) : values.seconds !== undefined ? 10 : 60;
if (!(seconds > 0) || !(intervalSeconds > 0)) {
  console.error('usage: npm run soak -- --minutes N | --seconds N [--interval S] [--concurrency C] [--publish-every S]');
  process.exit(2);
}
if (!(await postgresAvailable())) {
  console.error('soak: PostgreSQL does not answer (DATABASE_URL or 127.0.0.1:5432); nothing to do.');
  process.exit(1);
}
const figures = await runSoak({
  seconds,
  intervalSeconds,
  ...(values.concurrency ? { concurrency: Number(values.concurrency) } : {}),
  ...(values['publish-every'] ? { publishEveryMs: Number(values['publish-every']) * 1000 } : {}),
});
const fiveHundreds = figures.reduce((n, f) => n + Object.entries(f.errors).filter(([status]) => /^5\d\d$/.test(status) && status !== '503').reduce((m, [, c]) => m + c, 0), 0);
if (figures.length >= 2) {
  const second = figures[1];
  const last = figures[figures.length - 1];
  const change = (a: number, b: number) => (a === 0 ? 'n/a' : `${(((b - a) / a) * 100).toFixed(1)} %`);
  console.log(
    `soak: interval 2 → ${figures.length}: RSS ${second.rssMb.toFixed(0)} → ${last.rssMb.toFixed(0)} MB (${change(second.rssMb, last.rssMb)}), ` +
      `pool open ${second.poolOpen} → ${last.poolOpen}, in use at most ${second.poolInUseMax} → ${last.poolInUseMax}`,
  );
}
console.log(`soak: ${figures.reduce((n, f) => n + f.requests, 0)} requests, ${fiveHundreds} × 5xx other than 503`);
process.exit(fiveHundreds === 0 ? 0 : 1);
