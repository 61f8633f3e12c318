// SQL built for one caller and kept with their `auth` object. An end user's `auth` is one object
// for as long as their row is unchanged (end-user-cache.ts), so their requests share what was
// built for them: access conditions (data/rule-sql.ts), an action's view of a model
// (runs/record-view.ts). Only for what depends on the caller alone: the users of this cache check
// that no rule reads `now` or `env`. Entries go with the `auth` object (weak keys), and all of
// them at once past `maxCallers` callers: the end-user cache keeps up to 50,000 users, and what
// is built for one is some 7 KB, so weak keys alone would let this grow to hundreds of MB.
import type { CompiledModel } from './compiled-app.ts';

/** Keys for the callers without an `auth` object. */
export const ANONYMOUS_CALLER = {};
export const RULE_BYPASSING_CALLER = {};

/** Callers a cache keeps values for before it starts again (~35 MB of SQL at ~7 KB each). */
export const MAX_CALLERS = 5_000;

export class CallerCache<V> {
  #byCaller = new WeakMap<object, WeakMap<CompiledModel, Map<string, V>>>();
  #callers = 0;

  constructor(private readonly maxCallers = MAX_CALLERS) {}

  /** The value for (`caller`, `model`, `key`), built by `build` the first time. */
  get(caller: object, model: CompiledModel, key: string, build: () => V): V {
    let byModel = this.#byCaller.get(caller);
    if (!byModel) {
      // A generation rather than an LRU: no bookkeeping on the hit path, which every request takes.
      if (this.#callers >= this.maxCallers) {
        this.#byCaller = new WeakMap();
        this.#callers = 0;
      }
      this.#byCaller.set(caller, (byModel = new WeakMap()));
      this.#callers++;
    }
    let byKey = byModel.get(model);
    if (!byKey) byModel.set(model, (byKey = new Map()));
    let value = byKey.get(key);
    if (value === undefined) byKey.set(key, (value = build()));
    return value;
  }
}
