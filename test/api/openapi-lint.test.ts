// The lint gate (issue 27): both OpenAPI documents, fetched from a running service with the to-do
// app published, pass tools nobody here wrote: @apidevtools/swagger-parser and `redocly lint`
// (recommended rules), with the named components a user imports and within the size budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { publish } from '../support/publish.ts';
import { bin, run } from '../sdk/support.ts';

const NAMED = [
  'Application', 'ApplicationDefinition', 'Model', 'Field', 'AccessControl', 'Action', 'Effect', 'Trigger', 'Requirement',
  'ApplicationStatus', 'Job', 'VersionRecord', 'Project', 'ProjectListItem', 'IntegrationPrompts', 'Problem',
];
// 150 KiB grew by the figma-integration group and the caller route (GET /builders/me), then by the
// refusals every operation can give (401, 413, 415) and the no-NUL pattern of free strings; then by
// the explain, access-matrix and data-imports groups and the access summary of specifications.
const MAX_MANAGEMENT_BYTES = 200 * 1024;

type Doc = { components?: { schemas?: Record<string, unknown> }; tags?: { name: string; description?: string }[]; info: { license?: { name: string } } } & Record<string, unknown>;

/** `redocly lint` (recommended rules) on `document`: its totals and its errors. */
async function redoclyLint(dir: string, name: string, document: unknown) {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(document));
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  // Exit code 1 when there are errors: the report on stdout says which.
  const { stdout } = await run(bin('redocly'), ['lint', file, '--format=json'], { env }).catch((error: { stdout: string }) => error);
  const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { severity: string; ruleId: string; message: string }[] };
  return { totals: report.totals, errors: report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`) };
}

/** Every schema keyword used anywhere (property names excluded). */
function keywordsOf(node: unknown, into = new Set<string>(), underProperties = false): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => keywordsOf(item, into));
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (!underProperties) into.add(key);
      keywordsOf(value, into, !underProperties && (key === 'properties' || key === 'schemas' || key === 'paths' || key === 'responses' || key === 'content'));
    }
  }
  return into;
}

describe.each(await availableDrivers())('OpenAPI documents lint clean (%s)', (driver) => {
  let t: TestPlatform;
  let dir: string;
  let management: Doc;
  let managementBytes: number;
  let appDocument: Doc;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
    const tenant = await createTenant(t, 'Lint');
    const app = await createTodoApp(tenant);
    const published = (await publish(tenant, app.id)) as unknown as { status: { deployments: { state: string; openapiUrl?: string }[] } };
    const served = published.status.deployments.find((d) => d.state === 'active' && d.openapiUrl);
    if (!served?.openapiUrl) throw new Error('the published version names no openapiUrl');
    const text = await (await fetch(`${t.baseUrl}/v1/openapi.json`)).text();
    managementBytes = Buffer.byteLength(text);
    management = JSON.parse(text) as Doc;
    const appReply = await fetch(served.openapiUrl);
    expect(appReply.status).toBe(200);
    appDocument = (await appReply.json()) as Doc;
  });
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('swagger-parser validates both documents', async () => {
    // validate() dereferences in place: give it copies.
    await expect(SwaggerParser.validate(structuredClone(management) as never)).resolves.toBeTruthy();
    await expect(SwaggerParser.validate(structuredClone(appDocument) as never)).resolves.toBeTruthy();
  });

  it('redocly lint (recommended) finds no error in either document', async () => {
    const managementLint = await redoclyLint(dir, 'management', management);
    expect(managementLint.errors).toEqual([]);
    expect(managementLint.totals.errors).toBe(0);
    const appLint = await redoclyLint(dir, 'app', appDocument);
    expect(appLint.errors).toEqual([]);
    expect(appLint.totals.errors).toBe(0);
  }, 60_000);

  it('the management document has the named components, no def-N, no validator keyword, and stays small', () => {
    const schemas = management.components?.schemas ?? {};
    for (const name of NAMED) expect(Object.keys(schemas), name).toContain(name);
    expect(Object.keys(schemas).filter((name) => /^def-\d+$/.test(name))).toEqual([]);
    const keywords = keywordsOf(management);
    expect(keywords.has('errorMessage')).toBe(false);
    // …while a member of that name (a job's) is kept: only the keyword goes.
    expect((schemas.Job as { properties: Record<string, unknown> }).properties).toHaveProperty('errorMessage');
    expect(keywords.has('$id')).toBe(false);
    // The Application is written once and referenced: its schema appears in no operation.
    const operations = JSON.stringify(management.paths);
    expect(operations).toContain('"$ref":"#/components/schemas/Application"');
    expect(operations).not.toContain('"scode":{"type":"object"');
    expect(managementBytes).toBeLessThanOrEqual(MAX_MANAGEMENT_BYTES);
  });

  it('tags carry descriptions and info a license', () => {
    const used = new Set(Object.values(management.paths as Record<string, Record<string, { tags?: string[] }>>).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])));
    const declared = new Map((management.tags ?? []).map((tag) => [tag.name, tag.description]));
    for (const tag of ['projects', 'applications', 'data-models', 'actions-effects', 'triggers', 'deployments-assets']) {
      expect(used.has(tag), tag).toBe(true);
      expect(declared.get(tag), tag).toMatch(/\w+/);
    }
    for (const tag of used) expect(declared.has(tag), tag).toBe(true);
    expect(management.info.license?.name).toMatch(/\w/);
  });
});
