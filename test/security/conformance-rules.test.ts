// Rules the service enforces, stated by its OpenAPI documents as it enforces them: a signed URL's
// `expiresIn` is optional with its default (`{}` is accepted; the JSON body itself is required); an upload's body is
// documented (raw bytes, or a multipart form with a file part) and its `?path=` bounded and said to
// be required with a raw body; the end-user tokens of the session and mail routes are 1 to 200
// characters (code points, as `maxLength` counts), empty ones refused with 400 naming them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, type ProblemBody } from '../runtime/served-app.ts';
import { tempStorage, uploadRaw } from '../files/support.ts';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[] };
interface Operation {
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: Schema }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, unknown>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

describe.each(await availableDrivers())('documented rules hold as enforced (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let management: Document;
  let appDocument: Document;
  const temp = tempStorage();

  beforeAll(async () => {
    t = await startTestPlatform(driver, { storage: temp.storage });
    tenant = await createTenant(t, 'Rules');
    const app = await createTodoApp(tenant);
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    management = (await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as Document;
    appDocument = (await (await fetch(`${api.base}/openapi.json`)).json()) as Document;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    temp.cleanup();
  });

  it('signed URLs: expiresIn is optional with its default, and {} gets it; the body itself is required, as documented', async () => {
    const operation = management.paths['/v1/storage/files/{fileId}/signed-url'].post;
    expect(operation.requestBody!.required).toBe(true);
    const schema = operation.requestBody!.content!['application/json'].schema!;
    expect(schema.required ?? []).not.toContain('expiresIn');
    expect(schema.properties!.expiresIn).toMatchObject({ type: 'integer', minimum: 1, default: 900 });
    const file = await uploadRaw(tenant.api, 'path=rules/signed.bin', Buffer.from('signed'));
    expect(file.status).toBe(201);
    const url = `/v1/storage/files/${file.body.id}/signed-url`;
    const byDefault = Date.now() + 900_000;
    const reply = await tenant.api.post<{ expiresAt: string }>(url, {});
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(Math.abs(Date.parse(reply.body.expiresAt) - byDefault)).toBeLessThan(120_000);
    expect((await tenant.api.post(url, { expiresIn: 60 })).status).toBe(200);
    expect((await tenant.api.post(url, { expiresIn: 0 })).status).toBe(400);
    const none = await tenant.api.post<{ errors: Array<{ path: string }> }>(url);
    expect(none.status).toBe(400);
    expect(Object.keys(operation.responses)).toContain('400');
  });

  it('uploads: the body is documented, and ?path= is bounded and required with a raw body as the document says', async () => {
    const operation = management.paths['/v1/storage/files'].post;
    const content = operation.requestBody?.content ?? {};
    expect(Object.keys(content).sort()).toEqual(['*/*', 'multipart/form-data']);
    expect(content['multipart/form-data'].schema).toMatchObject({ required: ['file'], properties: { path: { type: 'string', minLength: 1, maxLength: 1024 } } });
    const path = operation.parameters!.find((p) => p.in === 'query' && p.name === 'path')!;
    expect(path.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 1024 });
    expect(path.description).toContain('Required with a raw body');
    expect(Object.keys(operation.responses)).toContain('400');

    // Raw: without ?path=, or with an empty one, 400 naming /path; with one, stored.
    for (const query of ['', 'path=']) {
      const refused = await uploadRaw(tenant.api, query, Buffer.from('x'));
      expect(refused.status, query).toBe(400);
      expect(refused.body.errors?.[0]?.path, query).toBe('/path');
    }
    expect((await uploadRaw(tenant.api, 'path=rules/raw.txt', Buffer.from('raw'), { 'content-type': 'text/plain' })).status).toBe(201);
    // Multipart: the path as a field, or refused naming /path without one.
    const named = new FormData();
    named.append('path', 'rules/form.txt');
    named.append('file', new Blob(['form'], { type: 'text/plain' }), 'form.txt');
    expect((await uploadRaw(tenant.api, '', named, {})).status).toBe(201);
    const unnamed = new FormData();
    unnamed.append('file', new Blob(['form'], { type: 'text/plain' }), 'form.txt');
    const refused = await uploadRaw(tenant.api, '', unnamed, {});
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.path).toBe('/path');
  });

  it('end-user tokens: 1 to 200 characters in the document, an empty one refused with 400 naming it', async () => {
    const bodyOf = (path: string) => appDocument.paths[path].post.requestBody!.content!['application/json'].schema!;
    const bounded = { type: 'string', minLength: 1, maxLength: 200 };
    expect(bodyOf('/auth/refresh').properties!.refreshToken).toMatchObject(bounded);
    for (const path of ['/auth/verify/confirm', '/auth/password/confirm', '/auth/email/confirm']) expect(bodyOf(path).properties!.token, path).toMatchObject(bounded);

    const empty = await api.post<ProblemBody>('/auth/refresh', { refreshToken: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].path).toBe('/refreshToken');
    for (const path of ['/auth/verify/confirm', '/auth/email/confirm']) {
      const reply = await api.post<ProblemBody>(path, { token: '' });
      expect(reply.status, path).toBe(400);
      expect(reply.body.errors[0].path, path).toBe('/token');
    }
    const reset = await api.post<ProblemBody>('/auth/password/confirm', { token: '', password: 'correct horse' });
    expect(reset.status).toBe(400);
    expect(reset.body.errors[0].path).toBe('/token');
    // 200 characters of two UTF-16 units each: within maxLength, so read as a token (unknown: 401), not refused as missing.
    const long = await api.post<ProblemBody>('/auth/refresh', { refreshToken: '😀'.repeat(200) });
    expect(long.status).toBe(401);
    const past = await api.post<ProblemBody>('/auth/refresh', { refreshToken: 'x'.repeat(201) });
    expect(past.status).toBe(400);
    expect(past.body.errors[0].path).toBe('/refreshToken');
  });
});
