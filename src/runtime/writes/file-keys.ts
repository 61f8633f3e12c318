// File fields on write (DESIGN §6, "Files"): a `p_FILE`, `p_IMAGE` or `p_VIDEO` value is an https
// URL or the key of a file uploaded to this application (`POST /files`). values.ts checks the
// form; here the keys are checked to exist, one statement per write, in its transaction.
import { unprocessable, type ProblemDetail } from '../../errors.ts';
import { APP_FILE_KEY, unknownAppFileKeys } from '../../files/app-files.ts';
import type { Executor } from '../../storage/db.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { isFileType } from '../data/file-urls.ts';

const isKey = (value: unknown): value is string => typeof value === 'string' && !value.startsWith('https://');

/**
 * The body with this version's file URLs (what a read answered: `{filesUrl}{key}`) turned back
 * into their keys, so a record read and sent back keeps its files.
 */
export function fileUrlsAsKeys(model: CompiledModel, body: unknown, filesUrl: string | undefined): unknown {
  if (!filesUrl || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const asKey = (value: unknown) => {
    if (typeof value !== 'string' || !value.startsWith(filesUrl)) return value;
    const key = value.slice(filesUrl.length);
    return APP_FILE_KEY.test(key) ? key : value;
  };
  let copy: Record<string, unknown> | null = null;
  for (const [name, value] of Object.entries(body)) {
    const field = model.fieldsByName.get(name);
    if (!field || !isFileType(field.to) || field.relation) continue;
    copy ??= { ...(body as Record<string, unknown>) };
    copy[name] = Array.isArray(value) ? value.map(asKey) : asKey(value);
  }
  return copy ?? body;
}

/** 422 naming each file field (and item) whose key names no file uploaded to this application. */
export async function checkFileKeys(executor: Executor, app: CompiledApp, model: CompiledModel, values: Map<CompiledField, unknown>): Promise<void> {
  const uses: Array<{ path: string; key: string }> = [];
  for (const [field, value] of values) {
    if (!isFileType(field.to) || field.relation) continue;
    if (Array.isArray(value)) value.forEach((item, index) => isKey(item) && uses.push({ path: `/${field.name}/${index}`, key: item }));
    else if (isKey(value)) uses.push({ path: `/${field.name}`, key: value });
  }
  if (uses.length === 0) return;
  const unknown = await unknownAppFileKeys(executor, app.applicationId, [...new Set(uses.map((u) => u.key))]);
  const errors: ProblemDetail[] = uses
    .filter((u) => unknown.has(u.key))
    .map((u) => ({ path: u.path, message: 'names no file uploaded to this application (upload it with POST /files and send the key it answers)' }));
  if (errors.length > 0) throw unprocessable(`The ${model.name} is not valid.`, errors);
}
