// Real documents as customers have them, over HTTP on both databases: a schema with its
// data-only file beside it, a CSV that is not UTF-8, a table that cannot be read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { fixture, settledSpecification, specificationFrom, uploadAttachment } from './support.ts';

describe.each(await availableDrivers())('real documents over HTTP (%s)', (driver) => {
  let t: TestPlatform;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    a = await createTenant(t, 'Documents');
  }, 120_000);
  afterAll(() => t?.close());

  it('reads data-only SQL files and a Latin-1 CSV as what they are, whatever their names', async () => {
    const cases: Array<[string, string]> = [
      ['sql/pagila-data.sql', 'sql'],
      ['sql/sakila-mysql-data.sql', 'sql'],
      ['csv/avengers-latin1.csv', 'csv'],
      ['markdown/gtfs-reference.md', 'markdown'],
    ];
    for (const [file, kind] of cases) {
      const reply = await uploadAttachment(a.api, a.projectId, 'upload', fixture(file));
      expect(reply.status, file).toBe(201);
      expect(reply.body.kind, file).toBe(kind);
    }
  }, 60_000);

  it('builds a specification from a schema and its data-only file, the data named in a warning', async () => {
    const spec = await specificationFrom(a.api, a.projectId, ['sql/sakila-mysql-schema.sql', 'sql/sakila-mysql-data.sql']);
    expect(spec.status).toBe('succeeded');
    const models = ((spec.content?.models ?? []) as Array<{ name: string }>).map((m) => m.name);
    expect(models).toEqual(expect.arrayContaining(['Staff', 'Store', 'Payment', 'Film']));
    expect(spec.warnings.some((w) => /data only, no CREATE TABLE: 17 statements of rows for 15 tables/.test(w.message))).toBe(true);
    expect(spec.warnings.some((w) => /16 tables in the document: 14 models/.test(w.message))).toBe(true);
  }, 120_000);

  it('reads a CSV that is not UTF-8, naming the first such byte', async () => {
    const spec = await specificationFrom(a.api, a.projectId, ['csv/avengers-latin1.csv']);
    expect(spec.status).toBe('succeeded');
    expect(spec.warnings).toContainEqual(expect.objectContaining({ locator: 'line 31, column 300', message: expect.stringMatching(/not valid UTF-8 .*0xE6.*Windows-1252/) }));
  }, 120_000);

  it('fails a specification whose SQL table cannot be read, naming its line', async () => {
    const bad = await uploadAttachment(a.api, a.projectId, 'broken.sql', Buffer.from('CREATE TABLE `a` (`id` INT PRIMARY KEY);\nCREATE TABLE `b` (`x` INT WHATEVER STRANGE THING);\n'));
    const good = await uploadAttachment(a.api, a.projectId, 'penguins.csv', fixture('csv/penguins.csv'));
    const created = await a.api.post<{ id: string }>(`/v1/projects/${a.projectId}/specifications`, { attachmentIds: [good.body.id, bad.body.id] });
    expect(created.status).toBe(202);
    const spec = await settledSpecification(a.api, a.projectId, created.body.id);
    expect(spec.status).toBe('failed');
    expect(spec.errorMessage).toMatch(/broken\.sql \(sql\) could not be read: 1 CREATE TABLE statement could not be read as MySQL: line 2/);
  }, 120_000);
});
