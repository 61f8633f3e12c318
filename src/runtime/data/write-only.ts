// Write-only fields (a password, an API key a client sends): accepted on create and update,
// never read back by anyone, administrators included. The read path hides them as a field rule
// hides a field from its caller (record-json.ts), so a read, a list, an expansion, a realtime
// event and `fields=` (400 naming the field) all leave them out; event triggers get records
// without them (`withoutWriteOnly`).
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import type { FieldAccess } from './rule-sql.ts';

/** `visibility` with the model's write-only fields hidden (the same map, changed in place). */
export function hideWriteOnly(model: CompiledModel, visibility: Map<string, FieldAccess>): Map<string, FieldAccess> {
  for (const field of model.fields) if (field.writeOnly) visibility.set(field.name, { kind: 'hidden' });
  return visibility;
}

/** Whether the model has a write-only field named `name`. */
export function isWriteOnly(model: CompiledModel, name: string): boolean {
  return model.fieldsByName.get(name)?.writeOnly === true;
}

/**
 * A data-change event's record without the write-only fields of its model (`Model.created` →
 * Model); other events, and records of models without such fields, as they are.
 */
export function withoutWriteOnly<T extends Record<string, unknown> | undefined>(app: CompiledApp, eventName: string, record: T): T {
  if (!record) return record;
  const dot = eventName.lastIndexOf('.');
  const model = dot > 0 ? app.models.find((m) => m.name === eventName.slice(0, dot)) : undefined;
  const hidden = model?.fields.filter((f) => f.writeOnly && Object.hasOwn(record, f.name)) ?? [];
  if (hidden.length === 0) return record;
  const copy: Record<string, unknown> = { ...record };
  for (const field of hidden) delete copy[field.name];
  return copy as T;
}
