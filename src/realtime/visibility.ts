// Batched visibility (DESIGN §17): for one change, ONE statement decides which subscribers may read
// the record and builds each one's copy, shaped by field rules exactly as `GET /{resource}/{id}`
// would answer them (runtime/data/record-json.ts, the read path's own JSON).
//
// How the rule meets many subscribers at once: the read path turns a rule into SQL with the
// caller's `auth` values as bound parameters, each `cast($n as type)`, and the statement text
// depends only on the rule's shape. Subscribers ("audiences": one per distinct `auth`) whose
// fragments have the same text differ only in parameter values; those values that differ become
// columns of an `unnest` of arrays (one array parameter per column, one row per audience), joined
// against the changed row. So the statement's text and parameter count depend on the number of
// distinct rule shapes, not on the number of subscribers. The changed row is the outbox's copy
// (`jsonb_populate_record`), so a deleted record, and the record as it was (`p`), can be judged too.
import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import { RecordJson, type RecordJsonOptions } from '../runtime/data/record-json.ts';
import type { Condition } from '../runtime/data/rule-sql.ts';
import { readsAuthAndOperationOnly } from '../runtime/data/rule-sql.ts';
import { tableOf } from '../runtime/data/columns.ts';
import { dropMembers, fillComputed } from '../runtime/data/computed-js.ts';

/** Subscribers who read alike: the same `auth` (or an administrator) and the same files URL. */
export interface Audience {
  key: string;
  auth: Record<string, unknown> | null;
  bypassRules: boolean;
  filesUrl?: string;
}

export type RealtimeAction = 'create' | 'update' | 'delete';

export interface Verdict {
  action: RealtimeAction;
  record: Record<string, unknown>;
}

/** One audience's part of the statement: `ok, was, body` over the rows `t` (now) and `p` (before). */
interface Fragment {
  text: string;
  params: unknown[];
  json: RecordJson;
}

const conditionSql = (condition: Condition): RawBuilder<unknown> =>
  condition.kind === 'all' ? sql`true` : condition.kind === 'none' ? sql`false` : sql`(${condition.sql})`;

/** Statement texts are shared between audiences (10,000 subscribers keep one copy of each shape). */
const texts = new Map<string, string>();
const intern = (text: string): string => {
  let kept = texts.get(text);
  if (kept === undefined) {
    if (texts.size > 10_000) texts.clear();
    texts.set(text, (kept = text));
  }
  return kept;
};

/** Whether no rule of the model or its fields reads `now` or `env` (then a fragment can be kept). */
function keepable(app: CompiledApp, model: CompiledModel): boolean {
  return readsAuthAndOperationOnly(app, model, model.accessControl) && model.fields.every((f) => readsAuthAndOperationOnly(app, model, f.accessControl));
}

const isScalar = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** The outbox's plain record as the table's columns, for `jsonb_populate_record`. */
function columnsOf(model: CompiledModel, record: Record<string, unknown> | null): string | null {
  if (!record) return null;
  const row: Record<string, unknown> = { id: record.id };
  for (const field of model.fields) if (field.column && field.name in record) row[field.column] = record[field.name];
  return JSON.stringify(row);
}

export interface VisibilityOptions extends RecordJsonOptions {
  /** Counts each statement run (the bench reports statements per change). */
  onStatement?: () => void;
}

/** Decides, for one change, who of `audiences` gets what; one statement for all of them. */
export class Visibility {
  private readonly fragments = new WeakMap<CompiledApp, Map<string, Fragment>>();

  constructor(
    private readonly db: Db,
    private readonly options: VisibilityOptions = {},
  ) {}

  /** Forgets an audience's fragments (its last subscriber left). */
  forget(app: CompiledApp, key: string): void {
    const kept = this.fragments.get(app);
    if (!kept) return;
    for (const name of kept.keys()) if (name.startsWith(`${key}\u0000`)) kept.delete(name);
  }

  private fragment(app: CompiledApp, model: CompiledModel, audience: Audience, now: Date, keep: boolean): Fragment {
    let kept = this.fragments.get(app);
    if (!kept) this.fragments.set(app, (kept = new Map()));
    const name = `${audience.key}\u0000${model.id}`;
    const known = keep ? kept.get(name) : undefined;
    if (known) return known;
    const ctx = { auth: audience.auth, operation: 'read' as const, now, env: {} };
    const json = new RecordJson(app, ctx, audience.bypassRules, {
      ...(this.options.relationLimit !== undefined ? { relationLimit: this.options.relationLimit } : {}),
      ...(this.options.embeddedIdLimit !== undefined ? { embeddedIdLimit: this.options.embeddedIdLimit } : {}),
      ...(audience.filesUrl !== undefined ? { filesUrl: audience.filesUrl } : {}),
    });
    const ok = conditionSql(json.readCondition(model, 't'));
    const was = conditionSql(json.readCondition(model, 'p'));
    const compiled = sql`${ok} as ok, ${was} as was, case when ${ok} then (${json.record(model, 't', true)})::text end as body`.compile(this.db.kysely);
    const fragment = { text: intern(compiled.sql), params: [...compiled.parameters], json };
    if (keep) kept.set(name, fragment);
    return fragment;
  }

  /**
   * What each audience receives for `action` on `record` (with `previous` for an update): a create
   * or update when they may read the record now; a delete when they may not but could before (or,
   * for a delete, could read what was deleted). Audiences that get nothing are left out.
   */
  async decide(
    app: CompiledApp,
    model: CompiledModel,
    action: RealtimeAction,
    record: Record<string, unknown> & { id: string },
    previous: Record<string, unknown> | null,
    audiences: Audience[],
  ): Promise<Map<string, Verdict>> {
    const out = new Map<string, Verdict>();
    if (audiences.length === 0) return out;
    const now = new Date();
    const keep = keepable(app, model);
    const byText = new Map<string, Array<{ audience: Audience; fragment: Fragment }>>();
    for (const audience of audiences) {
      const fragment = this.fragment(app, model, audience, now, keep);
      const group = byText.get(fragment.text);
      if (group) group.push({ audience, fragment });
      else byText.set(fragment.text, [{ audience, fragment }]);
    }
    const params: unknown[] = [];
    const bind = (value: unknown) => `$${params.push(value)}`;
    const table = sql`${tableOf(app, model)}`.compile(this.db.kysely).sql;
    // A delete is judged on the record as it was; an update also on the one before.
    const before = action === 'delete' ? record : previous;
    const head = `with t0 as (select * from jsonb_populate_record(null::${table}, cast(${bind(columnsOf(model, record))} as jsonb))),
      p0 as (select * from jsonb_populate_record(null::${table}, cast(${bind(columnsOf(model, before))} as jsonb)))`;
    const selects: string[] = [];
    const fragments = new Map<string, Fragment>();
    for (const [text, members] of byText) {
      for (const group of splitByShape(members)) {
        for (const { audience, fragment } of group) fragments.set(audience.key, fragment);
        selects.push(groupSelect(text, group, bind));
      }
    }
    const statement = `${head} ${selects.join(' union all ')}`;
    this.options.onStatement?.();
    const result = await this.db.kysely.executeQuery<{ k: string; ok: boolean | null; was: boolean | null; body: string | null }>(CompiledQuery.raw(statement, params));
    for (const row of result.rows) {
      if (action !== 'delete' && row.ok && row.body !== null) {
        const json = fragments.get(row.k)!.json;
        const shaped = JSON.parse(row.body) as Record<string, unknown> & { id: string };
        if (json.jsComputed.size > 0) {
          fillComputed(app, model, [shaped], json.jsComputed, { now, env: {} });
          if (json.extras.size > 0) dropMembers(app, model, [shaped], json.extras);
        }
        out.set(row.k, { action, record: shaped });
      } else if (action === 'delete' ? row.ok || row.was : action === 'update' && row.was) {
        out.set(row.k, { action: 'delete', record: { id: record.id } });
      }
    }
    return out;
  }
}

type Member = { audience: Audience; fragment: Fragment };

/**
 * Audiences of one text whose differing values are all scalars share a select; a differing array
 * or object (an `in` list of `auth` values, say) cannot be a text column: such audiences get a select each.
 */
function splitByShape(members: Member[]): Member[][] {
  const first = members[0].fragment.params;
  for (let i = 0; i < first.length; i++) {
    const differs = members.some((m) => m.fragment.params[i] !== first[i]);
    if (differs && members.some((m) => !isScalar(m.fragment.params[i]))) return members.map((m) => [m]);
  }
  return [members];
}

/** `select k, ok, was, body` for one group: shared values bound once, differing ones as `unnest` columns. */
function groupSelect(text: string, group: Member[], bind: (value: unknown) => string): string {
  const first = group[0].fragment.params;
  const columns: string[] = [];
  const arrays: string[] = [`cast(${bind(group.map((m) => m.audience.key))} as text[])`];
  const placeholders = first.map((value, i) => {
    if (!group.some((m) => m.fragment.params[i] !== value)) return bind(value);
    const column = `c${columns.length}`;
    columns.push(column);
    arrays.push(`cast(${bind(group.map((m) => (m.fragment.params[i] === null ? null : String(m.fragment.params[i]))))} as text[])`);
    return `v.${column}`;
  });
  const body = text.replace(/\$(\d+)/g, (_, n: string) => placeholders[Number(n) - 1]);
  return `select q.k, q.ok, q.was, q.body from (select v.k, ${body} from t0 t, p0 p, unnest(${arrays.join(', ')}) as v(${['k', ...columns].join(', ')})) q where q.ok or q.was`;
}
