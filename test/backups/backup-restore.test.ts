// Backups of one application (DESIGN §24) over real HTTP on both drivers and the filesystem
// storage driver: an app with rows, a file, an end user with a password and a TOTP factor, and a
// secret is backed up and verified by the restore drill; everything is then changed (rows
// deleted, the end user deleted, a field's type changed and published, the secret rotated) and a
// restore in place brings back the definition, versions, rows, the file and the sign-in exactly.
// A truncated or altered archive is refused with 422 naming the part, and nothing changes.
import { Secret, TOTP } from 'otpauth';
import { sql } from 'kysely';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type ProblemBody, type Rec } from '../runtime/served-app.ts';
import { tempStorage } from '../files/support.ts';

const PASSWORD = 'correct horse';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1c6d1e40000000049454e44ae426082', 'hex');
const TODO = 'urn:svc:model:todo';
const DESCRIPTION = 'urn:svc:edge:todo-description';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const codeOf = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + steps * 30_000 });

/** The to-do example with a photo (one image). */
function definition() {
  const scode = todoScodeWithoutEvents() as unknown as { appId: string; models: Array<{ id: string; fields: Array<Record<string, unknown>> }> };
  scode.models
    .find((m) => m.id === TODO)!
    .fields.push({ id: 'urn:svc:edge:todo-photo', name: 'photo', relationshipOwner: true, min: 0, max: 1, to: 'p_IMAGE', accessControl: { rules: [] } });
  return scode;
}

interface BackupBody {
  id: string;
  status: string;
  verified: boolean;
  bytes: number | null;
  sha256: string | null;
  models?: Record<string, { rows: number; checksum: string }>;
  errorMessage?: string;
}

describe.each(await availableDrivers())('backups of one application on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let api: ServedApi;
  let totpSecret: string;
  let annId: string;
  const temp = tempStorage();
  const base = () => `/v1/applications/${app.id}`;

  async function waitBackup(id: string): Promise<BackupBody> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const reply = await tenant.api.get<BackupBody>(`${base()}/backups/${id}`);
      expect(reply.status).toBe(200);
      if (reply.body.status === 'succeeded' || reply.body.status === 'failed') return reply.body;
      if (Date.now() > deadline) throw new Error(`backup still ${reply.body.status}`);
      await sleep(100);
    }
  }

  async function waitJob(jobId: string): Promise<{ status: string; errorMessage?: string; metadata?: Record<string, unknown> }> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const status = await tenant.api.get<{ jobs: Array<{ id: string; status: string; errorMessage?: string }> }>(`${base()}/status`);
      const job = status.body.jobs.find((j) => j.id === jobId);
      if (job && ['succeeded', 'failed', 'cancelled'].includes(job.status)) return job;
      if (Date.now() > deadline) throw new Error(`job still ${job?.status}`);
      await sleep(100);
    }
  }

  async function backupNow(): Promise<BackupBody> {
    const queued = await tenant.api.post<{ id: string; status: string; jobId: string }>(`${base()}/backups`);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ status: 'queued', jobId: expect.any(String) });
    return waitBackup(queued.body.id);
  }

  /** Everything a restore must bring back, read through the API (and the sealed secret from the store). */
  async function state() {
    const application = (await tenant.api.get<AppReply & { status: { deployments: Array<{ serverVersion: string; state: string }> } }>(base())).body;
    const versions = (await tenant.api.get<{ items: Array<{ serverVersion: string }> }>(`${base()}/versions?limit=100`)).body;
    const served = new ServedApi(t, tenant, app.id, app.serverVersion);
    const todos = (await served.get<{ items: Rec[] }>('/toDos?limit=100&sort=title', 'admin')).body.items;
    const users = (await served.get<{ items: Rec[] }>('/users?limit=100', 'admin')).body.items;
    const secret = await sql<{ sealed_value: string; version: number }>`select sealed_value, version from appbuilder.config_values
      where application_id = ${app.id} and name = 'PAYMENT_KEY'`.execute(t.database.db.kysely);
    return {
      scode: application.scode,
      serverVersion: application.serverVersion,
      deployments: application.status.deployments.map((d) => `${d.serverVersion}:${d.state}`),
      versions: versions.items.map((v) => v.serverVersion).sort(),
      todos,
      users,
      secret: secret.rows[0],
    };
  }

  beforeAll(async () => {
    t = await startTestPlatform(driver, { storage: temp.storage });
    tenant = await createTenant(t, 'Backups');
    app = await createTodoApp(tenant, definition());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const ann = await api.signup('Ann', 'ann@example.test', PASSWORD);
    annId = ann.user.id;
    const enrolled = await api.post<{ secret: string }>('/auth/mfa/totp/enroll', {}, ann.token);
    expect(enrolled.status).toBe(200);
    totpSecret = enrolled.body.secret;
    expect((await api.post('/auth/mfa/totp/verify', { code: codeOf(totpSecret) }, ann.token)).status).toBe(200);
    const upload = await fetch(`${api.base}/files`, { method: 'POST', headers: { authorization: `Bearer ${ann.token}`, 'content-type': 'image/png' }, body: PNG });
    expect(upload.status).toBe(201);
    const { key } = (await upload.json()) as { key: string };
    expect((await api.post('/toDos', { title: 'A with photo', status: 'open', user: annId, photo: key }, 'admin')).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await api.post('/toDos', { title: `B${i}`, description: String(i * 10), status: 'open', user: annId }, 'admin')).status).toBe(201);
    expect((await tenant.api.put(`${base()}/secrets/PAYMENT_KEY`, { value: 'sk_live_first' })).status).toBe(201);
  }, 240_000);

  afterAll(async () => {
    await t?.close();
    temp.cleanup();
  });

  it('backs up and verifies; a change of everything is undone by a restore in place, sign-in with TOTP included', async () => {
    const before = await state();
    expect(before.todos).toHaveLength(6);
    const backup = await backupNow();
    expect(backup).toMatchObject({ status: 'succeeded', verified: true });
    expect(backup.bytes).toBeGreaterThan(0);
    expect(backup.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.values(backup.models!).some((m) => m.rows === 6)).toBe(true);
    const listed = await tenant.api.get<{ items: BackupBody[]; metadata: { total: number } }>(`${base()}/backups`);
    expect(listed.body.metadata.total).toBe(1);
    expect(listed.body.items[0]).toMatchObject({ id: backup.id, verified: true, sha256: backup.sha256 });
    const content = await fetch(`${t.baseUrl}${base()}/backups/${backup.id}/content`, { headers: { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! } });
    expect(content.headers.get('content-type')).toBe('application/zip');
    const zip = unzipSync(new Uint8Array(await content.arrayBuffer()));
    expect(Object.keys(zip)).toEqual(expect.arrayContaining(['manifest.json', 'application.json', 'schema.json', 'files.ndjson', 'control/config_values.ndjson', 'control/end_user_totp.ndjson']));
    const photo = before.todos.find((todo) => todo.title === 'A with photo')!;
    const photoUrl = String(photo.photo);
    const photoBytes = async () => {
      const response = await fetch(photoUrl, { headers: { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! } });
      return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
    };
    expect(await photoBytes()).toEqual({ status: 200, bytes: PNG });

    // Change everything: rows, the end user, a field's type (published), the secret, the file's record.
    for (const todo of before.todos.slice(1, 4)) expect((await api.delete(`/toDos/${todo.id}`, 'admin')).status).toBe(204);
    expect((await api.delete(`/toDos/${photo.id}`, 'admin')).status).toBe(204);
    const scode = definition();
    scode.models.find((m) => m.id === TODO)!.fields.find((f) => f.id === DESCRIPTION)!.to = 'p_NUMBER';
    const replaced = await tenant.api.put<AppReply>(`${base()}/scode`, scode);
    expect(replaced.status).toBe(200);
    await publish(tenant, app.id, replaced.body.serverVersion);
    expect((await tenant.api.put(`${base()}/secrets/PAYMENT_KEY`, { value: 'sk_live_rotated' })).status).toBe(200);
    expect((await api.delete(`/users/${annId}`, 'admin')).status).toBe(204);
    expect((await api.post('/auth/login', { email: 'ann@example.test', password: PASSWORD })).status).toBe(401);
    const changed = await state();
    expect(changed.serverVersion).not.toBe(before.serverVersion);
    expect(changed.secret!.version).toBe(2);
    expect(changed.todos.length).toBeLessThan(before.todos.length);

    const restore = await tenant.api.post<{ jobId: string }>(`${base()}/restore`, { backupId: backup.id });
    expect(restore.status).toBe(202);
    const job = await waitJob(restore.body.jobId);
    expect(job).toMatchObject({ status: 'succeeded' });

    const after = await state();
    expect(after).toEqual(before);
    expect(await photoBytes()).toEqual({ status: 200, bytes: PNG });
    // Ann signs in with her password and her factor (a code of a step after the one spent at enrolment).
    const login = await api.post<{ mfaRequired: boolean; mfaToken: string }>('/auth/login', { email: 'ann@example.test', password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body.mfaRequired).toBe(true);
    const done = await api.post<{ token: string }>('/auth/mfa', { mfaToken: login.body.mfaToken, code: codeOf(totpSecret, 1) });
    expect(done.status).toBe(200);
    const mine = await api.get<{ items: Rec[] }>('/toDos?limit=100', done.body.token);
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((todo) => todo.id).sort()).toEqual(before.todos.map((todo) => todo.id).sort());
    // The restore is in the audit log.
    const audit = await tenant.api.get<{ items: Array<{ operationId: string; status: number }> }>(`/v1/audit-events?operationId=restoreApplication`);
    expect(audit.body.items).toEqual([expect.objectContaining({ operationId: 'restoreApplication', status: 202 })]);
  }, 240_000);

  it('refuses a truncated archive and one with an altered part with 422 naming the part; nothing changes', async () => {
    const backup = await backupNow();
    expect(backup.verified).toBe(true);
    const row = await sql<{ blob_key: string }>`select blob_key from appbuilder.backups where id = ${backup.id}`.execute(t.database.db.kysely);
    const blobKey = row.rows[0]!.blob_key;
    const storage = t.platform.services.files.driver;
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.get(blobKey)) chunks.push(Buffer.from(chunk as Uint8Array));
    const original = Buffer.concat(chunks);
    const before = await state();
    // Something changes after the backup, so a restore that went ahead would show.
    expect((await api.delete(`/toDos/${before.todos[0]!.id}`, 'admin')).status).toBe(204);
    const current = await state();

    await storage.put(blobKey, Readable.from([original.subarray(0, Math.floor(original.length / 2))]));
    const truncated = await tenant.api.post<ProblemBody>(`${base()}/restore`, { backupId: backup.id });
    expect(truncated.status).toBe(422);
    expect(truncated.body.errors[0]!.path).toBe('/archive');

    const parts = unzipSync(new Uint8Array(original));
    const dataPart = Object.keys(parts).find((name) => name.startsWith('data/') && new TextDecoder().decode(parts[name]).includes('"B1"'))!;
    parts[dataPart] = strToU8(new TextDecoder().decode(parts[dataPart]).replace('"B1"', '"B9"'));
    await storage.put(blobKey, Readable.from([Buffer.from(zipSync(parts))]));
    const altered = await tenant.api.post<ProblemBody>(`${base()}/restore`, { backupId: backup.id });
    expect(altered.status).toBe(422);
    expect(altered.body.errors[0]!.path).toBe(`/archive/${dataPart}`);
    expect(altered.body.detail).toContain('altered');

    expect(await state()).toEqual(current);
  }, 240_000);

  it("answers 404 for another customer's backup and 403 to a viewer creating one", async () => {
    const backups = (await tenant.api.get<{ items: BackupBody[] }>(`${base()}/backups`)).body.items;
    const other = await createTenant(t, 'Other');
    const theirs = await createTodoApp(other, definition());
    expect((await other.api.get(`/v1/applications/${theirs.id}/backups/${backups[0]!.id}`)).status).toBe(404);
    expect((await other.api.post(`/v1/applications/${theirs.id}/restore`, { backupId: backups[0]!.id })).status).toBe(404);
    expect((await other.api.get(`${base()}/backups`)).status).toBe(404);
    const viewer = await tenant.api.post<{ id: string }>('/v1/builders', { name: 'Vic', email: 'vic@example.test', role: 'viewer', projectIds: null });
    expect(viewer.status).toBe(201);
    const token = await tenant.api.post<{ token: string }>(`/v1/builders/${viewer.body.id}/tokens`, { name: 'test' });
    const asViewer = (method: string, path: string) =>
      fetch(`${t.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token.body.token}`, 'x-svc-api-client': tenant.api.apiKey! } });
    expect((await asViewer('GET', `${base()}/backups`)).status).toBe(200);
    expect((await asViewer('POST', `${base()}/backups`)).status).toBe(403);
    expect((await asViewer('GET', `${base()}/backups/${backups[0]!.id}/content`)).status).toBe(403);
  }, 120_000);
});
