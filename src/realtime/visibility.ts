// Batched visibility (DESIGN §17): for one change, ONE statement decides which subscribers may read
// the record and builds each one's copy, shaped by field rules exactly as `GET /{resource}/{id}`
// would answer them (runtime/data/record-json.ts, the read path's own JSON).
//
// How the rule meets many subscribers at once: the read path turns a rule into SQL with the
// caller's `auth` values as bound parameters, each `cast($n as type)`, and the statement text
// depends only on the rule's shape. Subscribers ("audiences": one per distinct `auth`) whose
// fragments have the same text differ only in parameter values; those values that differ become
// columns of an `unnest` of arrays (one array parameter per distinct column, one row per audience,
// numbered `with ordinality`), joined against the changed row. So the statement's text and
// parameter count depend on the number of distinct rule shapes, not on the number of subscribers.
// The changed row is the outbox's copy (`jsonb_populate_record`, `$1` now and `$2` before), so a
// deleted record, and the record as it was (`p`), can be judged too. The rest of the statement is
// built once per array of audiences (the hub keeps one per topic while nobody joins or leaves) and
// model, unless a rule reads `now` or `env`.
import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import { RecordJson, type RecordJsonOptions } from '../runtime/data/record-json.ts';
import type { Condition } from '../runtime/data/rule-sql.ts';
import { readsAuthAndOperationOnly } from '../runtime/data/rule-sql.ts';
import { tableOf } from '../runtime/data/columns.ts';
import { dropMembers, fillComputed } from '../runtime/data/computed-js.ts';
import { PREPARED } from '../storage/prepared.ts';
import { buildSelects, type Fragment, type Member, type Selects } from './statement.ts';

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

/**
 * The statement for one topic's audiences, kept from change to change: a base (their differing
 * values as literals of a named prepared statement's text, parsed once per connection) and the
 * audiences who joined since (as parameters). Departed audiences stay in the base, answering for
 * nobody, until it is built again: when those who joined or left are more than a share of it.
 */
interface Plan {
  base: Selects;
  baseKeys: Set<string>;
  extra: Selects;
  /** Audiences of the base no longer listening. */
  departed: number;
  /** The statement's text, built once: a base's can be large, and a named statement is found by its text. */
  text?: string;
}

/** Audiences below which a statement is not worth naming (its arrays are small). */
const INLINE_MIN = 32;
/** A plan is built again once its base is small enough to name but they are not, or those who joined or left are many. */
const stale = (plan: Plan, audiences: number) =>
  (plan.baseKeys.size < INLINE_MIN && audiences >= INLINE_MIN) || plan.extra.groups.flat().length > 16 + plan.baseKeys.size / 10 || plan.departed > plan.baseKeys.size / 4;

/** Decides, for one change, who of `audiences` gets what; one statement for all of them. */
export class Visibility {
  /** Per served version: model id → audience key → fragment (one map per model: an entry per subscriber, no map each). */
  private readonly fragments = new WeakMap<CompiledApp, Map<string, Map<string, Fragment>>>();
  /** Per topic (the hub's `scope`) and model: the plan last built. */
  private readonly plans = new WeakMap<object, Map<string, Plan>>();
  /** Per array of audiences (the hub keeps one per topic while nobody joins or leaves) and model: its plan. */
  private readonly byArray = new WeakMap<readonly Audience[], Map<string, Plan>>();

  constructor(
    private readonly db: Db,
    private readonly options: VisibilityOptions = {},
  ) {}

  /** Forgets an audience's fragments (its last subscriber left). */
  forget(app: CompiledApp, key: string): void {
    for (const byAudience of this.fragments.get(app)?.values() ?? []) byAudience.delete(key);
  }

  private fragment(app: CompiledApp, model: CompiledModel, audience: Audience, now: Date, keep: boolean): Fragment {
    let byModel = this.fragments.get(app);
    if (!byModel) this.fragments.set(app, (byModel = new Map()));
    let byAudience = byModel.get(model.id);
    if (!byAudience) byModel.set(model.id, (byAudience = new Map()));
    const known = keep ? byAudience.get(audience.key) : undefined;
    if (known) return known;
    // A copy of `auth`: the read path keeps the SQL it builds for a caller with their `auth` object
    // (runtime/caller-cache.ts, ~7 KB an end user); the fragment keeps its text and values, so that
    // would be held twice for every subscriber.
    const ctx = { auth: audience.auth && { ...audience.auth }, operation: 'read' as const, now, env: {} };
    const json = new RecordJson(app, ctx, audience.bypassRules, {
      ...(this.options.relationLimit !== undefined ? { relationLimit: this.options.relationLimit } : {}),
      ...(this.options.embeddedIdLimit !== undefined ? { embeddedIdLimit: this.options.embeddedIdLimit } : {}),
      ...(audience.filesUrl !== undefined ? { filesUrl: audience.filesUrl } : {}),
    });
    const ok = conditionSql(json.readCondition(model, 't'));
    const was = conditionSql(json.readCondition(model, 'p'));
    const compiled = sql`${ok} as ok, ${was} as was, case when ${ok} then (${json.record(model, 't', true)})::text end as body`.compile(this.db.kysely);
    const post = json.jsComputed.size > 0 ? { jsComputed: json.jsComputed, extras: json.extras } : null;
    const fragment = { text: intern(compiled.sql), params: [...compiled.parameters], post };
    if (keep) byAudience.set(audience.key, fragment);
    return fragment;
  }

  private members(app: CompiledApp, model: CompiledModel, audiences: readonly Audience[], now: Date, keep: boolean): Member[] {
    return audiences.map((audience) => ({ audience, fragment: this.fragment(app, model, audience, now, keep) }));
  }

  /** The plan for `audiences` of topic `scope`: the last one with the newcomers, or a new base. */
  private plan(app: CompiledApp, model: CompiledModel, audiences: readonly Audience[], scope: object, now: Date): Plan {
    const known = this.byArray.get(audiences)?.get(model.id);
    if (known) return known;
    let models = this.plans.get(scope);
    if (!models) this.plans.set(scope, (models = new Map()));
    const last = models.get(model.id);
    let plan: Plan | undefined;
    if (last) {
      const joined = audiences.filter((a) => !last.baseKeys.has(a.key));
      const extra = buildSelects(this.members(app, model, joined, now, true), { firstParam: 3 + last.base.params.length, firstGroup: last.base.groups.length, inline: false });
      plan = { base: last.base, baseKeys: last.baseKeys, extra, departed: last.baseKeys.size - (audiences.length - joined.length) };
      if (stale(plan, audiences.length)) plan = undefined;
    }
    if (!plan) {
      const inline = audiences.length >= INLINE_MIN;
      const base = buildSelects(this.members(app, model, audiences, now, true), { firstParam: 3, firstGroup: 0, inline });
      plan = { base, baseKeys: new Set(audiences.map((a) => a.key)), extra: { tail: '', params: [], groups: [] }, departed: 0 };
    }
    models.set(model.id, plan);
    let byModel = this.byArray.get(audiences);
    if (!byModel) this.byArray.set(audiences, (byModel = new Map()));
    byModel.set(model.id, plan);
    return plan;
  }

  private statementText(app: CompiledApp, model: CompiledModel, plan: Plan): string {
    const table = sql`${tableOf(app, model)}`.compile(this.db.kysely).sql;
    const tail = plan.extra.tail ? `${plan.base.tail} union all ${plan.extra.tail}` : plan.base.tail;
    return `${plan.baseKeys.size >= INLINE_MIN ? PREPARED : ''}with t0 as (select * from jsonb_populate_record(null::${table}, cast($1 as jsonb))),
      p0 as (select * from jsonb_populate_record(null::${table}, cast($2 as jsonb))) ${tail}`;
  }

  /**
   * What each audience receives for `action` on `record` (with `previous` for an update): a create
   * or update when they may read the record now; a delete when they may not but could before (or,
   * for a delete, could read what was deleted). Audiences that get nothing are left out (and the
   * answer may name audiences no longer listening). `scope`: the topic the audiences listen to,
   * whose statement is then kept from one change to the next (pass the same array while they are the same).
   */
  async decide(
    app: CompiledApp,
    model: CompiledModel,
    action: RealtimeAction,
    record: Record<string, unknown> & { id: string },
    previous: Record<string, unknown> | null,
    audiences: readonly Audience[],
    scope?: object,
  ): Promise<Map<string, Verdict>> {
    const out = new Map<string, Verdict>();
    if (audiences.length === 0) return out;
    const now = new Date();
    // Rules that read `now` or `env` are built again for each change.
    const plan: Plan =
      scope && keepable(app, model)
        ? this.plan(app, model, audiences, scope, now)
        : { base: buildSelects(this.members(app, model, audiences, now, false), { firstParam: 3, firstGroup: 0, inline: false }), baseKeys: new Set(), extra: { tail: '', params: [], groups: [] }, departed: 0 };
    const groups = [...plan.base.groups, ...plan.extra.groups];
    plan.text ??= this.statementText(app, model, plan);
    // A delete is judged on the record as it was; an update also on the one before.
    const before = action === 'delete' ? record : previous;
    this.options.onStatement?.();
    const result = await this.db.kysely.executeQuery<{ g: number; k: string | number; ok: boolean | null; was: boolean | null; body: string | null }>(
      CompiledQuery.raw(plan.text, [columnsOf(model, record), columnsOf(model, before), ...plan.base.params, ...plan.extra.params]),
    );
    for (const row of result.rows) {
      const group = groups[Number(row.g)];
      const k = Number(row.k);
      const members = k === 0 ? group : [group[k - 1]];
      let verdict: Verdict | null = null;
      if (action !== 'delete' && row.ok && row.body !== null) {
        const post = members[0].fragment.post;
        const shaped = JSON.parse(row.body) as Record<string, unknown> & { id: string };
        if (post) {
          fillComputed(app, model, [shaped], post.jsComputed, { now, env: {} });
          if (post.extras.size > 0) dropMembers(app, model, [shaped], post.extras);
        }
        verdict = { action, record: shaped };
      } else if (action === 'delete' ? row.ok || row.was : action === 'update' && row.was) {
        verdict = { action: 'delete', record: { id: record.id } };
      }
      if (verdict) for (const member of members) out.set(member.audience.key, verdict);
    }
    return out;
  }
}
