// `appbuilder explain` and `appbuilder access`: what a rule decided for a caller, and who may do
// what (the management API's explain and access matrix; docs/explain-and-advice.md).
import { readFileSync } from 'node:fs';
import { ok, type paths } from '../sdk/index.ts';
import { connect } from './credentials.ts';
import { findApplication } from './lookup.ts';
import { print, type JsonOption } from './output.ts';

type Explanation = paths['/v1/applications/{applicationId}/explain']['post']['responses'][200]['content']['application/json'];
type Matrix = paths['/v1/applications/{applicationId}/access']['get']['responses'][200]['content']['application/json'];
type Cell = Matrix['models'][number]['operations']['read']['anonymous'];
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

const METHODS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']);

function usage(detail: string): Error {
  return new Error(`${detail} Usage: appbuilder explain APP --as USER_ID|anonymous [--body JSON|@file] -- METHOD /path`);
}

/** The body: inline JSON, or `@file` read as JSON. */
function bodyOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  const source = text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text;
  try {
    return JSON.parse(source);
  } catch {
    throw usage(`--body is not JSON.`);
  }
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function explanationLines(method: string, path: string, as: string, e: Explanation): string[] {
  const lines = [`${method} ${path} as ${as}: ${e.status} ${e.decision}`, `  rows: ${e.rows.visible} visible, ${e.rows.hidden} hidden`];
  if (e.fieldsHidden.length > 0) lines.push(`  fields hidden: ${e.fieldsHidden.join(', ')}`);
  for (const check of e.checks) {
    const values = Object.entries(check.values).map(([name, value]) => `${name}=${shown(value)}`).join(', ');
    lines.push(`  ${check.model} ${check.operation} rule ${check.ruleIndex}: ${check.expression} → ${String(check.result)}${values ? ` (${values})` : ''}`);
  }
  if (e.checks.length === 0) lines.push('  no rule was consulted');
  return lines;
}

/** `appbuilder explain APP --as USER -- GET /toDos/ID`: the request run as that end user (or anonymous), rolled back. */
export async function explainCommand(ref: string, request: string[], options: JsonOption & { as?: string; body?: string; version?: string }): Promise<void> {
  if (!options.as) throw usage('--as is required.');
  const [rawMethod, path] = request;
  const method = (rawMethod ?? '').toUpperCase();
  if (!METHODS.has(method) || !path) throw usage('Give the method and the path after --.');
  const api = connect();
  const app = await findApplication(api, ref);
  const body = bodyOf(options.body);
  const as = options.as === 'anonymous' ? ('anonymous' as const) : { userId: options.as };
  const explanation = await ok(
    api.POST('/v1/applications/{applicationId}/explain', {
      params: { path: { applicationId: app.id } },
      body: { as, request: { method: method as Method, path, ...(body === undefined ? {} : { body }) }, ...(options.version ? { version: options.version } : {}) },
    }),
  );
  print(options, explanation, () => explanationLines(method, path, options.as!, explanation).join('\n'));
}

const cellText = (cell: Cell | undefined): string => (cell === undefined ? '-' : typeof cell === 'string' ? cell : `when ${cell.when}`);

/** `appbuilder access APP [--version V]`: the access matrix and the advice. */
export async function accessCommand(ref: string, options: JsonOption & { version?: string }): Promise<void> {
  const api = connect();
  const app = await findApplication(api, ref);
  const matrix = await ok(
    api.GET('/v1/applications/{applicationId}/access', { params: { path: { applicationId: app.id }, query: options.version ? { version: options.version } : {} } }),
  );
  print(options, matrix, () => {
    const lines = [`${app.name ?? app.scode.appId} v${matrix.serverVersion}`];
    for (const model of matrix.models) {
      lines.push(`${model.model}${model.ownerField ? ` (owner: ${model.ownerField})` : ''}`);
      for (const [operation, cells] of Object.entries(model.operations)) {
        const owner = cells.owner === undefined ? '' : `  owner: ${cellText(cells.owner)}`;
        lines.push(`  ${operation.padEnd(7)} anonymous: ${cellText(cells.anonymous)}  signedIn: ${cellText(cells.signedIn)}${owner}  admin: ${cellText(cells.admin)}`);
      }
    }
    lines.push(matrix.advice.length === 0 ? 'advice: none' : 'advice:');
    for (const advice of matrix.advice) lines.push(`  ${advice.code}${advice.model ? ` ${advice.model}` : ''}: ${advice.message}`);
    return lines.join('\n');
  });
}
