// SQL built for one caller and kept with their `auth` object. An end user's `auth` is one object
// for as long as their row is unchanged (end-user-cache.ts), so their requests share what was
// built for them: access conditions (data/rule-sql.ts), an action's view of a model
// (runs/record-view.ts). Only for what depends on the caller alone: the users of this cache check
// that no rule reads `now` or `env`. Entries go with the `auth` object (weak keys).
import type { CompiledModel } from './compiled-app.ts';

/** Keys for the callers without an `auth` object. */
export const ANONYMOUS_CALLER = {};
export const RULE_BYPASSING_CALLER = {};

export class CallerCache<V> {
  readonly #byCaller = new WeakMap<object, WeakMap<CompiledModel, Map<string, V>>>();

  /** The value for (`caller`, `model`, `key`), built by `build` the first time. */
  get(caller: object, model: CompiledModel, key: string, build: () => V): V {
    let byModel = this.#byCaller.get(caller);
    if (!byModel) this.#byCaller.set(caller, (byModel = new WeakMap()));
    let byKey = byModel.get(model);
    if (!byKey) byModel.set(model, (byKey = new Map()));
    let value = byKey.get(key);
    if (value === undefined) byKey.set(key, (value = build()));
    return value;
  }
}
