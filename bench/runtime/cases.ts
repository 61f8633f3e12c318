// The requests `npm run bench:runtime` times (main.ts), on the service and on the baseline
// (baseline-server.ts) alike; test/runtime/bench-baseline.test.ts checks that both answer each with
// the same bytes. The end users' requests are spread over all the seeded users.
import { NARROW_FIELDS } from './baseline.ts';
import type { PlannedRequest } from '../support/measure.ts';
import type { EndUser } from '../support/setup.ts';

export interface CaseInputs {
  /** The service's `/apps/{id}/api/v{version}` path. */
  apiPath: string;
  adminHeaders: Record<string, string>;
  /** The baseline's administrator token. */
  adminToken: string;
  users: EndUser[];
}

export interface Case {
  letter: string;
  name: string;
  /** Target: the median ratio of requests/s at least this. */
  target: number;
  platform: PlannedRequest[];
  baseline: PlannedRequest[];
}

export function cases(bench: CaseInputs): Case[] {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const list = '/toDos?limit=20';
  const prefix = bench.apiPath;
  // One read of each user in turn (their first to-do, then their second, …): consecutive requests are of different users.
  const spread: Array<{ id: string; token: string }> = [];
  for (let k = 0; k < 10; k++) for (const u of bench.users) if (k < u.todoIds.length) spread.push({ id: u.todoIds[k], token: u.token });
  return [
    {
      letter: 'a',
      name: '(a) end user lists 20 of their to-dos, user embedded, under the rule',
      target: 0.9,
      platform: bench.users.map((u) => ({ path: `${prefix}${list}`, headers: bearer(u.token) })),
      baseline: bench.users.map((u) => ({ path: list, headers: bearer(u.token) })),
    },
    {
      letter: 'b',
      name: '(b) administrator lists 20 of all to-dos with the exact total',
      target: 2,
      platform: [{ path: `${prefix}${list}`, headers: bench.adminHeaders }],
      baseline: [{ path: list, headers: bearer(bench.adminToken) }],
    },
    {
      letter: 'c',
      name: '(c) end user reads one of their to-dos by id',
      target: 0.8,
      platform: spread.map((r) => ({ path: `${prefix}/toDos/${r.id}`, headers: bearer(r.token) })),
      baseline: spread.map((r) => ({ path: `/toDos/${r.id}`, headers: bearer(r.token) })),
    },
    {
      letter: 'e',
      name: `(e) end user lists 20 of their to-dos narrowed by fields=${NARROW_FIELDS}`,
      target: 0.8,
      platform: bench.users.map((u) => ({ path: `${prefix}${list}&fields=${NARROW_FIELDS}`, headers: bearer(u.token) })),
      baseline: bench.users.map((u) => ({ path: `${list}&fields=${NARROW_FIELDS}`, headers: bearer(u.token) })),
    },
  ];
}
