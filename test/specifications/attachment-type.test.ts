// `curl --data-binary @schema.sql "…/attachments?name=schema.sql"` sends the file as
// `application/x-www-form-urlencoded` (curl's default): that is never a document's type, so the
// attachment takes the type its name says; a real type sent is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

describe.each(await availableDrivers())('the type of a raw upload (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Upload types');
  }, 300_000);
  afterAll(() => t?.close());

  const upload = (name: string, contentType: string) =>
    tenant.api.request<{ contentType: string; kind: string }>('POST', `/v1/projects/${tenant.projectId}/attachments?name=${name}`, {
      rawBody: 'CREATE TABLE artist (artist_id integer PRIMARY KEY, name text);\n',
      headers: { 'content-type': contentType },
    });

  it("takes the name's type for curl's form type, and keeps a type that says something", async () => {
    const curl = await upload('schema.sql', 'application/x-www-form-urlencoded');
    expect(curl.status, curl.text).toBe(201);
    expect(curl.body).toMatchObject({ contentType: 'application/sql', kind: 'sql' });
    const declared = await upload('schema.sql', 'text/plain');
    expect(declared.body.contentType).toBe('text/plain');
    const unknown = await upload('schema.dump', 'application/x-www-form-urlencoded');
    expect(unknown.body.contentType).not.toMatch(/form-urlencoded/);
  });
});
