// Computed fields whose expression does not translate to SQL: evaluated after the fetch with the
// expressions module, the record (relationships read as ids) as `record`. A field the caller may
// not see has no placeholder in the fetched JSON and is not computed. An evaluation error gives null.
import { evaluate } from '../../expressions/index.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { compiledComputed } from './expressions.ts';

type Json = Record<string, unknown>;

export function fillComputed(
  app: CompiledApp,
  model: CompiledModel,
  records: Json[],
  pending: Map<string, CompiledField[]>,
  known: { now: Date; env: Record<string, string> },
): void {
  for (const record of records) {
    fillOne(app, model, record, pending, known);
    for (const field of model.fields) {
      const target = field.relation ? app.modelsById.get(field.relation.targetModelId) : undefined;
      if (!target || !pending.has(target.id)) continue;
      const value = record[field.name];
      const related = Array.isArray(value) ? value : [value];
      for (const item of related) if (item && typeof item === 'object') fillOne(app, target, item as Json, pending, known);
    }
  }
}

function fillOne(app: CompiledApp, model: CompiledModel, record: Json, pending: Map<string, CompiledField[]>, known: { now: Date; env: Record<string, string> }): void {
  for (const field of pending.get(model.id) ?? []) {
    if (!Object.hasOwn(record, field.name)) continue;
    const compiled = compiledComputed(app, model, field);
    const result = compiled ? evaluate(compiled, { record, now: known.now, env: known.env }) : null;
    record[field.name] = result?.ok ? result.value : null;
  }
}

/** Drops the members answered only for a computation (`RecordJson.extras`), at the top level and one level down. */
export function dropMembers(app: CompiledApp, model: CompiledModel, records: Json[], extras: Map<string, Set<string>>): void {
  const drop = (of: CompiledModel, record: Json) => {
    for (const name of extras.get(of.id) ?? []) delete record[name];
  };
  for (const record of records) {
    for (const field of model.fields) {
      const target = field.relation ? app.modelsById.get(field.relation.targetModelId) : undefined;
      if (!target || !extras.has(target.id)) continue;
      const value = record[field.name];
      for (const item of Array.isArray(value) ? value : [value]) if (item && typeof item === 'object') drop(target, item as Json);
    }
    drop(model, record);
  }
}
