/**
 * `defaultValue` expressions (DESIGN §4): evaluated when a record is created, with `auth` (the
 * calling end user's record, or null), `now` and `env` bound. A default that yields null or cannot be
 * evaluated (`auth.id` for an anonymous caller) is no default: a required field then answers the
 * usual "is required". The value is validated afterwards like any value sent.
 */
import { evaluate, type CompiledExpression } from '../../expressions/index.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { compileFor } from '../data/expressions.ts';
import type { PlainRecord } from './plain-record.ts';
import { currentEnv } from '../../secrets/current-env.ts';

const compiledDefaults = new WeakMap<CompiledField, CompiledExpression | null>();

function compiledDefault(app: CompiledApp, model: CompiledModel, field: CompiledField): CompiledExpression | null {
  let compiled = compiledDefaults.get(field);
  if (compiled === undefined) {
    const result = field.defaultExpression === undefined ? null : compileFor(app, model, 'default', field.defaultExpression);
    compiled = result?.ok ? result.compiled : null;
    compiledDefaults.set(field, compiled);
  }
  return compiled;
}

/** For validateWrite on create: each field's expression default for this caller, at one `now`. */
export function expressionDefaults(app: CompiledApp, model: CompiledModel, auth: PlainRecord | null): (field: CompiledField) => unknown {
  const now = new Date();
  const env = currentEnv();
  return (field) => {
    const compiled = compiledDefault(app, model, field);
    if (!compiled) return undefined;
    const result = evaluate(compiled, { auth, now, env });
    return result.ok && result.value !== null ? result.value : undefined;
  };
}
