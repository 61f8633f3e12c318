// Exact list totals without recounting an unchanged table (issue 4 item 8, DESIGN §3: a
// `count(*)` over 100k rows costs ~11 ms, capping a recounting list at ~200 req/s).
//
// Each process keeps, per database handle, `count key → (data version, total)`, where the key is
// the count statement's text and parameters (table, residual rule, filter, bound values). The list
// statement reads the app's data version (../data-version.ts) in the same statement as the page, so
// in one snapshot: when it equals the cached version the cached total is returned by PostgreSQL
// itself (`case when … then $total else (select count(*) …) end`; the count subquery is an
// InitPlan, run only when the else branch needs it), otherwise it counts and the new pair is kept.
// Writes by any process or client change the version at commit, so totals stay exact. Reads in a
// transaction count; a statement that sees uncommitted writes of its own transaction anyway
// neither uses nor keeps a cached total.
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../storage/db.ts';
import { ident } from '../../storage/sql.ts';
import type { CompiledApp } from '../compiled-app.ts';
import { DATA_VERSION_TABLE } from '../data-version.ts';

/** Entries per database handle; the least recently used go first. */
const MAX_ENTRIES = 10_000;

interface CachedTotal {
  version: string;
  total: number;
}

/** What the list statement selects from `c` besides the page: `c.total`, `c.version`, `c.clean`. */
export interface CountedRow {
  total: number | string;
  version: string | null;
  clean: boolean;
}

class CountCache {
  private readonly totals = new Map<string, CachedTotal>();
  /** Apps whose schema has no data version table (published before it existed): they always count. */
  readonly unversioned = new WeakSet<CompiledApp>();

  get(key: string): CachedTotal | undefined {
    const entry = this.totals.get(key);
    if (entry) {
      this.totals.delete(key);
      this.totals.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedTotal): void {
    this.totals.delete(key);
    this.totals.set(key, entry);
    if (this.totals.size > MAX_ENTRIES) this.totals.delete(this.totals.keys().next().value!);
  }
}

const caches = new WeakMap<Executor, CountCache>();

function cacheOf(executor: Executor): CountCache {
  let cache = caches.get(executor);
  if (!cache) {
    cache = new CountCache();
    caches.set(executor, cache);
  }
  return cache;
}

export interface TotalSource {
  /** A FROM item `(…) c` giving `c.total`, `c.version`, `c.clean`. */
  from: RawBuilder<unknown>;
  /** Keeps the total the statement returned, when it may be reused. */
  remember(row: CountedRow): void;
  /**
   * Whether `error` says the app's schema has no data version table (published before it
   * existed); the app then always counts in this process, and the caller runs the statement again.
   */
  missing(error: unknown): boolean;
}

/** The total of `select count(*) from {table} t where {where}`, from the cache when the data has not changed. */
export function totalSource(executor: Executor, app: CompiledApp, table: RawBuilder<unknown>, where: RawBuilder<unknown>): TotalSource {
  const count = sql`select count(*) from ${table} t where ${where}`;
  // `offset 0` keeps `c` a subquery of its own: pulled up, `c.total` would be computed (and counted) once per use.
  const uncached = { from: sql`(select (${count}) as total, cast(null as text) as version, false as clean offset 0) c`, remember: () => {}, missing: () => false };
  // A transaction may see its own uncommitted writes: it counts.
  if (executor.isTransaction) return uncached;
  const cache = cacheOf(executor);
  if (cache.unversioned.has(app)) return uncached;
  const compiled = count.compile(executor);
  const key = `${compiled.sql}\u0000${JSON.stringify(compiled.parameters)}`;
  const cached = cache.get(key);
  const from = sql`(select v.version, v.clean,
      case when v.clean and v.version = cast(${cached?.version ?? null} as text) then cast(${cached?.total ?? null} as bigint) else (${count}) end as total
    from (select (select version::text from ${ident(app.schema, DATA_VERSION_TABLE)}) as version,
      pg_current_xact_id_if_assigned() is null as clean) v offset 0) c`;
  return {
    from,
    remember: (row) => {
      if (row.clean && row.version !== null) cache.set(key, { version: row.version, total: Number(row.total) });
    },
    missing: (error) => {
      const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
      if (code !== '42P01' || typeof message !== 'string' || !message.includes(DATA_VERSION_TABLE)) return false;
      cache.unversioned.add(app);
      return true;
    },
  };
}
