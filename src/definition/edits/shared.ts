/**
 * Copy-on-write helpers for the edits (issue 28): an edit copies the path to what it changes (the
 * definition object, one list, one model, one field) and shares everything else with its input,
 * which it never mutates. A one-field edit of a 1,000-model definition then copies one model and
 * the list of models, not the whole definition; what is shared stays the same object, so hashing
 * and comparing the result (versioning/) skip it.
 */

/** A copy of `list` with the element at `index` replaced. */
export function replaceAt<T>(list: readonly T[], index: number, item: T): T[] {
  const copy = [...list];
  copy[index] = item;
  return copy;
}

/** `list` with `change` applied to each element; the same list when no element changed. */
export function mapShared<T>(list: T[], change: (item: T) => T): T[] {
  let copy: T[] | undefined;
  list.forEach((item, i) => {
    const changed = change(item);
    if (changed === item) return;
    copy ??= [...list];
    copy[i] = changed;
  });
  return copy ?? list;
}
