import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { EXAMPLES_DIR } from '../support/examples.ts';
import { createManagementClient, ok, ProblemError } from '../../src/sdk/index.ts';
import { bin, customerCredentials, ROOT, run } from './support.ts';

const PROGRAM = join(ROOT, 'test', 'sdk', 'fixtures', 'todo-program.ts');

// The program is type-checked once: its types do not depend on the database.
it('a program written against the SDK type-checks with tsc --noEmit', async () => {
  await run(bin('tsc'), ['--noEmit', '-p', join(ROOT, 'test', 'sdk', 'fixtures', 'tsconfig.json')], { cwd: ROOT });
}, 120_000);

describe.each(await availableDrivers())('the SDK against the service on %s', (driver) => {
  let t: TestPlatform;
  let credentials: { apiKey: string; secret: string };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    credentials = await customerCredentials(t, 'SDK user');
  });
  afterAll(() => t?.close());

  it('runs the program: creates a project and an application, publishes, reads the status', async () => {
    const { stdout } = await run(bin('tsx'), [PROGRAM, t.baseUrl, credentials.apiKey, credentials.secret, join(EXAMPLES_DIR, 'todo.app.json')], {
      cwd: ROOT,
    });
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(result.deploymentJob).toBe('succeeded');
    expect(result.served).toEqual([result.serverVersion]);
    expect(result.problem).toEqual({ status: 404, title: expect.any(String) });
    expect(result.tokensIssued).toBe(1);
    // What the program made is there, under this customer.
    const api = createManagementClient({ baseUrl: t.baseUrl, clientId: credentials.apiKey, clientSecret: credentials.secret });
    const application = await ok(api.GET('/v1/applications/{applicationId}', { params: { path: { applicationId: result.applicationId } } }));
    expect(application.projectId).toBe(result.projectId);
    expect(application.isActive).toBe(true);
  }, 120_000);

  it('refreshes the token before it expires, and a renewed token is accepted', async () => {
    let clock = Date.now();
    const api = createManagementClient({
      baseUrl: t.baseUrl,
      clientId: credentials.apiKey,
      clientSecret: credentials.secret,
      refreshMarginSeconds: 60,
      now: () => clock,
    });
    await ok(api.GET('/v1/projects'));
    await ok(api.GET('/v1/projects'));
    expect(api.tokens.issued).toBe(1);
    // The service's tokens live an hour (APPBUILDER_TOKEN_TTL): 59 minutes later one is due for renewal.
    clock += (t.config.tokenTtlSeconds - 59) * 1000;
    const [first, second] = await Promise.all([ok(api.GET('/v1/projects')), ok(api.GET('/v1/projects'))]);
    expect(api.tokens.issued).toBe(2);
    expect(first.metadata.total).toBe(second.metadata.total);
  });

  it('gives problem answers as ProblemError with the offending paths', async () => {
    const api = createManagementClient({ baseUrl: t.baseUrl, clientId: credentials.apiKey, clientSecret: credentials.secret });
    const refused = await ok(api.POST('/v1/projects', { body: { name: '' } })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProblemError);
    const problem = refused as ProblemError;
    expect(problem.status).toBe(400);
    expect(problem.errors.map((e) => e.path)).toContain('/name');

    const wrong = createManagementClient({ baseUrl: t.baseUrl, clientId: credentials.apiKey, clientSecret: 'not the secret' });
    const unauthorized = await ok(wrong.GET('/v1/projects')).catch((error: unknown) => error);
    expect(unauthorized).toBeInstanceOf(ProblemError);
    expect((unauthorized as ProblemError).status).toBe(401);
  });
});
