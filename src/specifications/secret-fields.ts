/**
 * Secret-like properties never become plain fields. The user model's password is the account
 * password (user-model.ts leaves it out); elsewhere a property named like a secret (`password`,
 * `secret`, `token`, `apiKey`, `accessKey`, `clientSecret`…) or one the document marks as only
 * sent in requests becomes a write-only field: accepted on create and update, never read back
 * by anyone (administrators included), listed, expanded, sent in an event or documented in a
 * response schema.
 */
import type { AppDefinition } from '../definition/schema.ts';
import { isRelationship } from '../definition/relationships.ts';
import type { SpecWarning } from './merge.ts';
import type { SourceOf } from './settle.ts';

/** A camelCase field name that names a secret: the whole name or its last words. */
const SECRET_NAME = /^(password|passwd|passwordHash|secret|token|apiKey|accessKey|secretKey|privateKey|apiSecret|clientSecret)$|(Password|Passwd|PasswordHash|Secret|Token|ApiKey|AccessKey|SecretKey|PrivateKey)$/;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Marks secret-like fields write-only, in place; one warning per write-only field (those the
 * document already marked as sent only in requests too), with its source.
 */
export function markWriteOnly(def: AppDefinition, sourceOf: SourceOf): SpecWarning[] {
  const warnings: SpecWarning[] = [];
  for (const model of def.models) {
    for (const field of model.fields) {
      if (isRelationship(field) || field.computed !== undefined) {
        delete field.writeOnly;
        continue;
      }
      const secret = isSecretName(field.name);
      if (!secret && !field.writeOnly) continue;
      field.writeOnly = true;
      const why = secret ? 'its name says it holds a secret' : 'the document sends it only in requests';
      warnings.push({
        ...sourceOf.get(field),
        message: `${model.name}.${field.name} is a write-only field (${why}): it is accepted on create and update, and never returned by a read, a list, an export or a realtime event, to anyone, administrators included.`,
      });
    }
  }
  return warnings;
}
