// The SDK's types come from the routes with no manual step: `npm run build` (run by `prepare` on
// npm install / npm ci) writes what the running service's document says, and a schema added to
// a route shows up in the generated types.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { OpenAPI3 } from 'openapi-typescript';
import { buildServer } from '../../src/api/server.ts';
import { Uuid } from '../../src/api/schemas.ts';
import { documentOf, sdkTypes } from '../../src/sdk/generate.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { bin, ROOT, run } from './support.ts';

const WORK = join(ROOT, 'test-artifacts', 'sdk-generation');

// One build for the file: what `npm run build` writes (its first step, build:sdk; the second
// compiles dist/ and is not this test's), into a file of the test's own.
let built: Promise<string> | undefined;
function buildOnce(): Promise<string> {
  built ??= (async () => {
    await mkdir(WORK, { recursive: true });
    const out = join(WORK, 'built.ts');
    await run('npm', ['run', 'build:sdk', '--', '--out', out], { cwd: ROOT });
    return readFile(out, 'utf8');
  })();
  return built;
}

/** A route group a later change might add: a new schema with its own name. */
const probeRoutes = async (root: FastifyInstance) => {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const ProbeWidget = Type.Object({ id: Uuid, colour: Type.String(), sizes: Type.Array(Type.Integer()) }, { $id: 'ProbeWidget' });
  app.get(
    '/v1/probe-widgets/:widgetId',
    { schema: { operationId: 'getProbeWidget', tags: ['probe'], params: Type.Object({ widgetId: Uuid }), response: { 200: ProbeWidget } } },
    async (request) => ({ id: request.params.widgetId, colour: 'red', sizes: [1] }),
  );
};

describe.each(await availableDrivers())('SDK type generation (%s)', (driver) => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    await mkdir(WORK, { recursive: true });
  });
  afterAll(async () => {
    await t?.close();
    await rm(join(WORK, driver), { recursive: true, force: true });
  });

  it('npm run build writes the types of the document the running service publishes', async () => {
    const live = (await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as OpenAPI3;
    const [fromBuild, fromLive] = await Promise.all([buildOnce(), sdkTypes(live)]);
    expect(fromBuild).toBe(fromLive);
    for (const name of ['Application', 'ApplicationDefinition', 'Model', 'Field', 'Project', 'Problem']) {
      expect(fromBuild).toContain(`export type ${name} = components['schemas']['${name}'];`);
    }
    // The build starts a service of its own: minutes on a busy machine.
  }, 300_000);

  it('a schema added to a route shows up in the generated types, usable by a program', async () => {
    let server: FastifyInstance | undefined;
    let withProbe: string;
    try {
      server = await buildServer({ services: t.platform.services, extraPlugins: [probeRoutes] });
      withProbe = await sdkTypes(await documentOf(server));
    } finally {
      await server?.close();
    }
    const without = await sdkTypes((await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as OpenAPI3);
    expect(without).not.toContain('ProbeWidget');
    expect(withProbe).toContain("export type ProbeWidget = components['schemas']['ProbeWidget'];");
    expect(withProbe).toContain('"/v1/probe-widgets/{widgetId}"');

    // The new type checks a program: right values pass, a wrong member type is refused.
    const dir = join(WORK, driver);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'management.ts'), withProbe);
    await writeFile(
      join(dir, 'program.ts'),
      [
        "import type { ProbeWidget, paths } from './management.ts';",
        "type Answer = paths['/v1/probe-widgets/{widgetId}']['get']['responses'][200]['content']['application/json'];",
        "export const widget: Answer = { id: 'x', colour: 'red', sizes: [1, 2] } satisfies ProbeWidget;",
        '// @ts-expect-error colour is a string',
        "export const wrong: ProbeWidget = { id: 'x', colour: 3, sizes: [] };",
        '',
      ].join('\n'),
    );
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../../tsconfig.json', include: ['program.ts'] }));
    await run(bin('tsc'), ['--noEmit', '-p', join(dir, 'tsconfig.json')], { cwd: ROOT });
  }, 120_000);
});
