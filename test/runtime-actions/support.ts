// Test support for the workflow engine. The DataPort here is an in-memory fake on purpose: the
// real data layer (tables, rules, one transaction per action) is another module with its own
// tests, and the runtime integrator wires the two together later. The fake records every write,
// so tests can show what a caller would have to roll back.
import { randomUUID } from 'node:crypto';
import type { Action, ActionEffect } from '../../src/definition/schema.ts';
import type { ExpressionDefinition } from '../../src/expressions/index.ts';
import { runAction } from '../../src/runtime/actions/index.ts';
import type { ActionPorts, DataPort, DataRecord, FindOptions, RunInput, RunLimits, RunRecord } from '../../src/runtime/actions/index.ts';
import { todoScode } from '../support/examples.ts';

export type Write = { op: 'create' | 'update' | 'delete'; model: string; id: string; values?: Record<string, unknown> };

export class FakeData implements DataPort {
  readonly tables = new Map<string, Map<string, DataRecord>>();
  readonly writes: Write[] = [];
  readonly finds: Array<{ model: string; options: FindOptions }> = [];

  constructor(seed: Record<string, DataRecord[]> = {}) {
    for (const [model, rows] of Object.entries(seed)) for (const row of rows) this.#table(model).set(String(row.id), { ...row });
  }

  #table(model: string): Map<string, DataRecord> {
    let table = this.tables.get(model);
    if (!table) this.tables.set(model, (table = new Map()));
    return table;
  }

  async get(model: string, id: string) {
    const row = this.#table(model).get(id);
    return row ? { ...row } : null;
  }

  async find(model: string, options: FindOptions) {
    this.finds.push({ model, options });
    const rows = [...this.#table(model).values()];
    return rows.slice(options.offset ?? 0, (options.offset ?? 0) + (options.limit ?? rows.length));
  }

  async count(model: string) {
    return this.#table(model).size;
  }

  async create(model: string, values: Record<string, unknown>) {
    const row = { ...values, id: randomUUID() };
    this.#table(model).set(row.id, row);
    this.writes.push({ op: 'create', model, id: row.id, values });
    return { ...row };
  }

  async update(model: string, id: string, values: Record<string, unknown>) {
    const row = this.#table(model).get(id);
    if (!row) return null;
    Object.assign(row, values);
    this.writes.push({ op: 'update', model, id, values });
    return { ...row };
  }

  async delete(model: string, id: string) {
    const row = this.#table(model).get(id);
    if (!row) return null;
    this.#table(model).delete(id);
    this.writes.push({ op: 'delete', model, id });
    return row;
  }
}

export interface Harness {
  data: FakeData;
  events: Array<{ name: string; payload: Record<string, unknown> }>;
  ports: ActionPorts;
}

export function harness(seed: Record<string, DataRecord[]> = {}): Harness {
  const data = new FakeData(seed);
  const events: Harness['events'] = [];
  return { data, events, ports: { data, emit: (name, payload) => void events.push({ name, payload }) } };
}

/** The to-do example's definition (models, userModelId, actions). */
export const todo = todoScode() as unknown as ExpressionDefinition & { actions: Action[] };

let counter = 0;
/** An action from its effects; the first effect starts it unless said otherwise. */
export function action(effects: ActionEffect[], extra: Partial<Action> = {}): Action {
  return { id: `urn:svc:action:test-${++counter}`, effects, startEffectId: effects[0].actionEffectId, ...extra };
}

export function run(
  act: Action,
  h: Harness,
  input: Partial<Omit<RunInput, 'action'>> = {},
  limits: RunLimits = {},
): Promise<RunRecord> {
  return runAction(
    { definition: todo, action: act, initialState: {}, auth: null, env: {}, caller: { kind: 'system' }, ...input },
    h.ports,
    { httpAllow: [], ...limits },
  );
}
