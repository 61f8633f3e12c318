/**
 * The API reference that every integration prompt carries: base URL, status,
 * authentication, resources, relationships, lists, triggers, errors, OpenAPI.
 */
import { describeDefaultExpression } from '../definition/default-value.ts';
import { exampleValue, isWritable, type ApiDescription, type ApiField, type ApiResource, type ApiTrigger } from './api-description.ts';

export interface PromptContext {
  api: ApiDescription;
  applicationId: string;
  serverVersion: string;
  published: boolean;
  /** `{app_url}`: `http://host/apps/{applicationId}`. */
  appUrl: string;
  openApiUrl: string;
  /** `{app_url}/api/v{serverVersion}`. */
  apiBase: string;
}

const code = (value: unknown): string => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
const json = (value: unknown): string => JSON.stringify(value, null, 2);
/** A value inside a single-quoted shell string. */
const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function statusSection(ctx: PromptContext): string {
  if (ctx.published) {
    return `**Status:** version \`${ctx.serverVersion}\` of this application is published and served at \`${ctx.apiBase}\`.`;
  }
  return [
    `> **Not served yet.** This describes the *saved definition* (serverVersion \`${ctx.serverVersion}\`), which is **not published**.`,
    `> The URLs below will answer \`404\` until version \`${ctx.serverVersion}\` is published; once it is, everything here applies unchanged.`,
  ].join('\n');
}

export function baseSection(ctx: PromptContext): string {
  return [
    '## Base URL and version',
    '',
    `- Base URL of the API: \`${ctx.apiBase}\``,
    `- The version is part of the path (\`/api/v${ctx.serverVersion}/\`); a newer version gets a new path, so keep the base URL in **one** configuration value.`,
    `- Application id: \`${ctx.applicationId}\``,
    `- OpenAPI document (machine-readable, authoritative for details): ${ctx.openApiUrl}`,
    '- Requests and responses are JSON (`Content-Type: application/json`); ids are UUID strings; date-times are ISO 8601 strings.',
  ].join('\n');
}

export function authSection(ctx: PromptContext): string {
  const { auth } = ctx.api;
  if (!auth) {
    return '## Authentication\n\nThis application has no user model, so there is no sign-up or login: every request is anonymous and the access rules below decide.';
  }
  const signup: Record<string, unknown> = {};
  for (const f of auth.signupFields) if (f.required || f.name === 'email') signup[f.name] = exampleValue(f);
  signup.password = 'correct horse battery staple';
  const login = { email: signup.email ?? 'ada@example.com', password: signup.password };
  const lines = [
    '## Authentication (end users)',
    '',
    `End users are records of the \`${auth.userModelName}\` model (resource \`${auth.userResource}\`). Sign up or log in to get a token, then send it on every request as \`Authorization: Bearer <token>\`. Without a token a request is anonymous, and the access rules decide (usually: denied).`,
    '',
    `- \`POST ${ctx.apiBase}/auth/signup\`: body = the ${auth.userModelName} fields (${auth.signupFields.map((f) => `\`${f.name}\`${f.required ? ' (required)' : ''}`).join(', ') || 'none'}) plus \`password\` (at least 8 characters). Answers \`201\` with \`{token, user}\`; \`409\` when the email is already registered.`,
    `- \`POST ${ctx.apiBase}/auth/login\`: body \`{email, password}\`. Answers \`200\` with \`{token, user}\`; \`401\` on a wrong email or password.`,
    `- \`GET ${ctx.apiBase}/auth/me\`: the signed-in user's record (\`401\` without a valid token).`,
    '- The token is a JWT signed by the application; when it expires or is rejected the API answers `401`: ask the user to log in again.',
    ...(auth.hasEmail ? [] : ['', `> Note: the \`${auth.userModelName}\` model has no text field \`email\`, so login is not available until one is added.`]),
    '',
    '```sh',
    `curl -s -X POST ${ctx.apiBase}/auth/signup \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -d ${shellQuote(JSON.stringify(signup))}`,
    '',
    `TOKEN=$(curl -s -X POST ${ctx.apiBase}/auth/login \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -d ${shellQuote(JSON.stringify(login))} | jq -r .token)`,
    '',
    `curl -s ${ctx.apiBase}/auth/me -H "Authorization: Bearer $TOKEN"`,
    '```',
  ];
  return lines.join('\n');
}

function fieldRow(field: ApiField): string {
  const type = field.relation
    ? `${field.many ? 'to-many' : 'to-one'} relationship to ${field.relation.modelName} (\`${field.relation.resource}\`)`
    : `${field.many ? 'array of ' : ''}${field.jsonType}`;
  const notes: string[] = [];
  if (field.enum) notes.push(`one of ${field.enum.map((v) => code(v)).join(', ')}`);
  if (field.hasDefault) notes.push(`default ${code(field.defaultValue)}`);
  if (field.defaultExpression !== undefined) notes.push(describeDefaultExpression(field.defaultExpression));
  if (field.computed !== undefined) notes.push(`computed (read-only): ${code(field.computed)}`);
  if (field.many && (field.min > 0 || field.max !== null)) notes.push(`${field.min}..${field.max ?? '∞'} values`);
  if (field.relation?.partner) notes.push(`partner field \`${field.relation.partner}\``);
  if (field.accessRules.length > 0) notes.push(`field access: ${field.accessRules.map(code).join('; ')}`);
  const required = field.computed !== undefined ? 'read-only' : field.required && field.defaultExpression === undefined ? 'yes' : 'no';
  return `| \`${field.name}\` | ${cell(type)} | ${required} | ${cell(notes.join('; ') || '-')} |`;
}

function resourceSection(ctx: PromptContext, r: ApiResource): string {
  const base = `${ctx.apiBase}/${r.resource}`;
  const body: Record<string, unknown> = {};
  for (const f of r.fields) if (isWritable(f) && ((f.required && f.defaultExpression === undefined) || f.enum)) body[f.name] = exampleValue(f);
  const rules = r.accessRules.length > 0 ? r.accessRules.map((rule) => `\`${rule}\``).join(', ') : 'none';
  return [
    `### ${r.name}: \`/${r.resource}\`${r.isUserModel ? ' (the user model)' : ''}`,
    '',
    `Endpoints: \`GET ${base}\` (list), \`GET ${base}/{id}\`, \`POST ${base}\`, \`PATCH ${base}/{id}\` (partial update), \`DELETE ${base}/{id}\` (answers \`204\`).`,
    `Access rules (CEL, first match decides, otherwise ${r.defaultAccess}): ${rules}.`,
    '',
    '| Field | Type | Required | Notes |',
    '|---|---|---|---|',
    '| `id` | string (uuid), assigned by the server | read-only | - |',
    ...r.fields.map(fieldRow),
    '',
    `"Required" means \`min\` ≥ 1: the field must be sent on create (unless it has a default) and cannot be cleared with \`null\`.`,
    '',
    'Create example:',
    '',
    '```sh',
    `curl -s -X POST ${base} -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
    '```',
  ].join('\n');
}

export function resourcesSection(ctx: PromptContext): string {
  return ['## Resources', '', ...ctx.api.resources.map((r) => resourceSection(ctx, r) + '\n')].join('\n');
}

export function relationshipsSection(ctx: PromptContext): string {
  const lines = ['## Relationships: reading and writing', ''];
  const rels = ctx.api.resources.flatMap((r) => r.fields.filter((f) => f.relation).map((f) => ({ r, f })));
  if (rels.length === 0) return [...lines, 'This application has no relationships.'].join('\n');
  lines.push(
    '- **Reads expand one level.** A to-one relationship comes back as the related record (an object); a to-many one as an array of related records. Inside an embedded record, *its* relationships are **not** expanded: a to-one is the related id (a string) and a to-many is an array of ids. An embedded record the caller may not read stays a plain id.',
    '- **Writes use ids.** Send the related id for a to-one field, an array of ids for a to-many field (it *replaces* the whole set), and `null` to clear an optional to-one field. Never send embedded objects.',
    '',
  );
  for (const { r, f } of rels) {
    const target = f.relation!;
    lines.push(
      `- \`${r.name}.${f.name}\` → ${target.modelName}${f.many ? ' (to-many)' : ' (to-one)'}: read as ${f.many ? `an array of ${target.modelName} objects` : `a ${target.modelName} object`}; write as ${f.many ? `an array of \`${target.resource}\` ids, e.g. \`{"${f.name}": ["<id>", "<id>"]}\`` : `a \`${target.resource}\` id, e.g. \`{"${f.name}": "<id>"}\``}.`,
    );
  }
  const sample = rels.find(({ f }) => !f.many) ?? rels[0];
  const nested = ctx.api.resources.find((x) => x.modelId === sample.f.relation!.modelId);
  const inner: Record<string, unknown> = { id: '7d1c…' };
  for (const f of nested?.fields ?? []) inner[f.name] = f.relation ? (f.many ? ['<id>', '<id>'] : '<id>') : exampleValue(f);
  lines.push('', `Example: one item of \`GET /${sample.r.resource}\` embeds \`${sample.f.name}\` like this (its own relationships are ids):`, '', '```json', json({ [sample.f.name]: sample.f.many ? [inner] : inner }), '```');
  return lines.join('\n');
}

export function listSection(ctx: PromptContext): string {
  const r = ctx.api.resources.find((x) => !x.isUserModel) ?? ctx.api.resources[0];
  if (!r) return '## Lists\n\nThere are no resources.';
  const enumField = r.fields.find((f) => f.enum && f.enum.length > 0 && !f.many);
  const textField = r.fields.find((f) => f.primitive === 'p_TEXT' && !f.many);
  const dateField = r.fields.find((f) => (f.primitive === 'p_DATE_TIME' || f.primitive === 'p_DATE') && !f.many);
  const sort = [dateField ? `-${dateField.name}` : null, textField?.name].filter(Boolean).join(',') || '-id';
  const filter = enumField
    ? `record.${enumField.name} == ${JSON.stringify(enumField.enum![0]).replace(/"/g, "'")}`
    : textField
      ? `record.${textField.name} == 'Example'`
      : 'true';
  return [
    '## Lists: paging, sorting, filtering',
    '',
    `\`GET /{resource}\` answers \`{"items": [...], "total": <number of matching records>, "offset": <offset used>}\`. Query parameters:`,
    '',
    '- `limit`: page size, default 20, at most 1000.',
    '- `offset`: records to skip, default 0. Next page: `offset + limit` while `offset + items.length < total`.',
    '- `sort`: comma-separated field names, `-` for descending, e.g. `' + sort + '`.',
    "- `filter`: a CEL expression over `record` (the record's fields by name; relationships as ids), e.g. `" + filter + "`. Combine with `&&`, `||`, `!`; compare with `==`, `!=`, `<`, `<=`, `>`, `>=`; string literals in single quotes. URL-encode it.",
    '- Only records the caller may read are listed and counted.',
    '',
    '```sh',
    `curl -s -G ${ctx.apiBase}/${r.resource} -H "Authorization: Bearer $TOKEN" \\`,
    `  --data-urlencode 'limit=20' --data-urlencode 'offset=0' --data-urlencode 'sort=${sort}' \\`,
    `  --data-urlencode ${shellQuote(`filter=${filter}`)}`,
    '```',
  ].join('\n');
}

function triggerBlock(ctx: PromptContext, t: ApiTrigger): string {
  const lines = [`### \`${t.method} ${t.path}\``, ''];
  lines.push(`- URL: \`${ctx.apiBase}${t.path}\``);
  lines.push(`- \`isPublic: ${t.isPublic}\`: ${t.isPublic ? 'callable without a token.' : 'requires a signed-in end user (`Authorization: Bearer <token>`), otherwise `401`.'}`);
  if (t.pathParams.length > 0) lines.push(`- Path parameters: ${t.pathParams.map((p) => `\`${p}\``).join(', ')}.`);
  const reads = [
    ...t.reads.body.map((n) => `body \`${n}\``),
    ...t.reads.params.map((n) => `path parameter \`${n}\``),
    ...t.reads.query.map((n) => `query \`${n}\``),
    ...t.reads.headers.map((n) => `header \`${n}\``),
  ];
  lines.push(`- Reads from the request: ${reads.length > 0 ? reads.join(', ') : 'nothing (no body needed)'}.`);
  const state = Object.entries(t.initialState);
  if (state.length > 0) lines.push(`- Initial state: ${state.map(([k, v]) => `\`${k}\` = \`${v}\``).join(', ')}.`);
  if (t.validation.length > 0) lines.push(`- Validation (each must be true, else \`422\` naming the expression): ${t.validation.map((v) => `\`${v}\``).join(', ')}.`);
  if (t.matchSelectors.length > 0) lines.push(`- Match selectors (the route applies only when true): ${t.matchSelectors.map((v) => `\`${v}\``).join(', ')}.`);
  lines.push(`- Runs action \`${t.actionId}\`; the response body is the action's return value (an action may answer other statuses, e.g. \`403\`).`);
  const path = t.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '<$1>');
  const body = Object.fromEntries(t.reads.body.map((n) => [n, '…']));
  const hasBody = t.reads.body.length > 0 && t.method !== 'GET';
  lines.push(
    '',
    '```sh',
    `curl -s -X ${t.method} ${ctx.apiBase}${path}${t.isPublic ? '' : ' -H "Authorization: Bearer $TOKEN"'}${hasBody ? ` \\\n  -H 'Content-Type: application/json' -d ${shellQuote(JSON.stringify(body))}` : ''}`,
    '```',
  );
  return lines.join('\n');
}

export function triggersSection(ctx: PromptContext): string {
  if (ctx.api.triggers.length === 0) return '## Custom endpoints (HTTP triggers)\n\nThis application defines no HTTP triggers.';
  return ['## Custom endpoints (HTTP triggers)', '', 'Besides the resources, these routes run the application\'s actions:', '', ...ctx.api.triggers.map((t) => triggerBlock(ctx, t) + '\n')].join('\n');
}

export function errorsSection(): string {
  return [
    '## Errors',
    '',
    'Errors are `application/problem+json` (RFC 9457):',
    '',
    '```json',
    json({ type: 'https://appbuilder.dev/problems/unprocessable-content', title: 'Unprocessable Content', status: 422, detail: 'The ToDo is not valid.', errors: [{ path: '/title', message: 'is required' }] }),
    '```',
    '',
    '- `400`: malformed request (bad query parameter, bad filter expression).',
    '- `401`: no token, or an invalid/expired one: send the user to log in.',
    '- `403`: signed in but not allowed by the access rules (or refused by an action).',
    '- `404`: no such record, route or version (also for records the caller may not see).',
    '- `409`: conflict, e.g. an email already registered.',
    '- `422`: invalid values; `errors[].path` is a JSON pointer to the field (`/title`, `/tags/0`): show each message next to its field.',
  ].join('\n');
}

/** Every reference section, in order. */
export function apiReference(ctx: PromptContext): string {
  return [baseSection(ctx), authSection(ctx), resourcesSection(ctx), relationshipsSection(ctx), listSection(ctx), triggersSection(ctx), errorsSection()].join('\n\n');
}
