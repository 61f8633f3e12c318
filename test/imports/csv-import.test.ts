// Data import of a real public CSV with missing values (palmerpenguins, `NA` cells) on both
// databases: apply with publish and import holds every row; `abort` with one bad row leaves
// nothing; `skip` imports the rest and reports the row; `POST /{resource}/import` takes NDJSON and
// CSV from the app's administrator only, with the same semantics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { ServedApi, type Page } from '../runtime/served-app.ts';
import { fixture, specificationFrom, uploadAttachment } from '../specifications/support.ts';
import { applyWithData, settledImport, type ImportReply } from './support.ts';

const PENGUINS = fixture('csv/penguins.csv').toString('utf8');
const ROWS = PENGUINS.trim().split('\n').length - 1;

describe.each(await availableDrivers())('importing penguins.csv (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let api: ServedApi;
  const total = async () => (await api.get<Page>('/penguins?limit=0', 'admin')).body.total;
  /** A value of the model's type for a measure: text or number, as the specification typed it. */
  const measure = (name: string, value: number) => (app.scode.models.find((m) => m.name === 'Penguin')!.fields.find((f) => f.name === name)!.to === 'p_NUMBER' ? value : String(value));
  const row = (year: unknown) => ({
    species: 'Gentoo', island: 'Biscoe', billLengthMm: measure('billLengthMm', 47.5), billDepthMm: measure('billDepthMm', 15),
    flipperLengthMm: measure('flipperLengthMm', 218), bodyMassG: measure('bodyMassG', 4950), sex: 'female', year,
  });

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Penguins');
  }, 120_000);
  afterAll(() => t?.close());

  it('imports every row of the CSV with apply, publish and import', async () => {
    const spec = await specificationFrom(tenant.api, tenant.projectId, ['csv/penguins.csv']);
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    let report: ImportReply;
    ({ app, report } = await applyWithData(tenant, spec.id, { name: 'Penguins' }));
    expect(report.status, JSON.stringify(report.errors.slice(0, 3))).toBe('succeeded');
    expect(report.models).toEqual([{ model: 'Penguin', rows: ROWS, imported: ROWS, rejected: 0 }]);
    api = new ServedApi(t, tenant, app.id, report.serverVersion!);
    expect(await total()).toBe(ROWS);
    // the import is a job of the application's status, its progress in the metadata
    const status = await tenant.api.get<{ status: { jobs: Array<{ jobType: string; status: string; metadata: Record<string, unknown> }> } }>(`/v1/applications/${app.id}`);
    const job = status.body.status.jobs.find((j) => j.jobType === 'data_import')!;
    expect(job.status).toBe('succeeded');
    expect(job.metadata).toMatchObject({ dataImportId: report.id, progress: { rowsRead: ROWS, imported: ROWS } });
    // another customer sees no such import
    const other = await createTenant(t, 'Someone else');
    expect((await other.api.get(`/v1/applications/${app.id}/data-imports/${report.id}`)).status).toBe(404);
    // a row of NA measures keeps its species and year
    const torgersen = await api.get<Page>(`/penguins?filter=${encodeURIComponent('record.island == "Torgersen" && record.year == 2007')}&limit=100`, 'admin');
    expect(torgersen.body.items.length).toBe(PENGUINS.split('\n').filter((l) => l.startsWith('Adelie,Torgersen,') && l.endsWith(',2007')).length);
  }, 300_000);

  it('data-imports: abort with one bad row leaves nothing; skip imports the rest and reports the row', async () => {
    const lines = PENGUINS.trim().split('\n');
    lines[5] = lines[5]!.replace(/,2007$/, ',two thousand seven');
    const bad = await uploadAttachment(tenant.api, tenant.projectId, 'penguins.csv', Buffer.from(lines.join('\n')), 'text/csv');
    expect(bad.status).toBe(201);
    const before = await total();
    const aborted = await tenant.api.post<{ id: string; status: string; jobId: string }>(`/v1/applications/${app.id}/data-imports`, { attachmentIds: [bad.body.id] });
    expect(aborted.status, aborted.text).toBe(202);
    expect(aborted.body.status).toBe('queued');
    const abortReport = await settledImport(tenant, app.id, aborted.body.id);
    expect(abortReport.status).toBe('failed');
    expect(abortReport.errors).toEqual([expect.objectContaining({ model: 'Penguin', row: 5, line: 6, path: '/year' })]);
    expect(await total()).toBe(before);

    const skipped = await tenant.api.post<{ id: string }>(`/v1/applications/${app.id}/data-imports`, { attachmentIds: [bad.body.id], onError: 'skip' });
    const skipReport = await settledImport(tenant, app.id, skipped.body.id);
    expect(skipReport.status).toBe('succeeded');
    expect(skipReport.models).toEqual([{ model: 'Penguin', rows: ROWS, imported: ROWS - 1, rejected: 1 }]);
    expect(skipReport.errors).toEqual([expect.objectContaining({ row: 5, path: '/year', message: 'must be a number' })]);
    expect(await total()).toBe(before + ROWS - 1);
  }, 300_000);

  it('POST /{resource}/import takes NDJSON and CSV from administrators, all or nothing unless onError=skip', async () => {
    const before = await total();
    const ndjson = [row(2009), row(2008)].map((r) => JSON.stringify(r)).join('\n');
    const post = (body: string, type: string, query = '', auth = true) =>
      fetch(`${api.base}/penguins/import${query}`, {
        method: 'POST',
        headers: { 'content-type': type, ...(auth ? { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! } : {}) },
        body,
      });
    // other routes still take JSON alone
    const create = await fetch(`${api.base}/penguins`, { method: 'POST', headers: { 'content-type': 'text/csv', authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! }, body: 'a,b' });
    expect(create.status).toBe(415);
    const anonymous = await post(ndjson, 'application/x-ndjson', '', false);
    expect(anonymous.status).toBe(403);
    const imported = await post(ndjson, 'application/x-ndjson');
    expect(imported.status).toBe(200);
    expect(await imported.json()).toMatchObject({ status: 'succeeded', models: [{ model: 'Penguin', rows: 2, imported: 2, rejected: 0 }], errors: [] });
    expect(await total()).toBe(before + 2);

    const header = 'species,island,bill_length_mm,bill_depth_mm,flipper_length_mm,body_mass_g,sex,year';
    const csv = [header, 'Gentoo,Biscoe,46.1,13.2,211,4500,female,2010', 'Gentoo,Biscoe,50,16.3,230,5700,male,not a year', 'Adelie,Dream,NA,NA,NA,NA,NA,2010'].join('\n');
    const refused = await post(csv, 'text/csv');
    expect(refused.status).toBe(422);
    const problem = (await refused.json()) as { errors: Array<{ path: string }> };
    expect(problem.errors[0]!.path).toBe('/2/year');
    expect(await total()).toBe(before + 2);
    const kept = await post(csv, 'text/csv', '?onError=skip');
    expect(kept.status).toBe(200);
    const report = (await kept.json()) as ImportReply;
    expect(report.models).toEqual([{ model: 'Penguin', rows: 3, imported: 2, rejected: 1 }]);
    expect(report.errors).toEqual([expect.objectContaining({ row: 2, path: '/year' })]);
    expect(await total()).toBe(before + 4);

    // a row the database refuses (an id already taken) is left out alone: its batch is retried row by row
    const id = '0190a000-0000-7000-8000-0000000000aa';
    const twice = [{ ...row(2011), id }, row(2012), { ...row(2013), id }].map((r) => JSON.stringify(r)).join('\n');
    const retried = await post(twice, 'application/x-ndjson', '?onError=skip');
    expect(retried.status).toBe(200);
    const retriedReport = (await retried.json()) as ImportReply;
    expect(retriedReport.models).toEqual([{ model: 'Penguin', rows: 3, imported: 2, rejected: 1 }]);
    expect(retriedReport.errors).toEqual([expect.objectContaining({ row: 3, message: expect.stringContaining('refused by the database') })]);
    expect((await api.get(`/penguins/${id}`, 'admin')).body).toMatchObject({ id, year: 2011 });
    expect(await total()).toBe(before + 6);
  }, 120_000);
});
