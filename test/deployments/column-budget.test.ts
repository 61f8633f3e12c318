// PostgreSQL numbers every column a table has ever had against its 1600, removed fields' kept
// columns included. A version whose definition is within the limit but adds columns to a table
// that has used its numbers up is refused at publish (409 naming the model), nothing queued; one
// that still fits is deployed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { publishAndWait, tableColumns } from './support.ts';

const BROAD = 'urn:svc:model:broad';
const field = (i: number) => ({ id: `urn:svc:edge:broad-${i}`, name: `b${i}`, relationshipOwner: true, min: 0, max: 1, to: 'p_BOOLEAN', accessControl: { rules: [] } });

/** The to-do example plus Broad with the fields numbered `from` to `to` (exclusive). */
function withBroad(ranges: Array<[number, number]>) {
  const scode = todoScode() as unknown as { models: unknown[] };
  const fields = ranges.flatMap(([from, to]) => Array.from({ length: to - from }, (_, k) => field(from + k)));
  scode.models.push({ id: BROAD, name: 'Broad', accessControl: { rules: [] }, fields });
  return scode;
}

describe.each(await availableDrivers())('a table out of column numbers (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Columns');
    // 1400 fields: 1403 columns with id and the timestamps.
    app = await createTodoApp(tenant, withBroad([[0, 1400]]));
    await publishAndWait(tenant, app.id);
  }, 180_000);
  afterAll(() => t?.close());

  it('refuses at publish a version adding 300 columns to it (409 naming the model), and deploys one adding 150', async () => {
    // 400 of the fields kept, 300 new: 700 fields is a valid definition, but the removed ones keep their columns.
    const over = await tenant.api.put<AppReply>(`/v1/applications/${app.id}/scode`, withBroad([[0, 400], [2000, 2300]]));
    expect(over.status).toBe(200);
    const refused = await tenant.api.post<{ detail: string; errors: Array<{ path: string; message: string }> }>(`/v1/applications/${app.id}/publish`, { serverVersion: over.body.serverVersion });
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.errors).toEqual([{ path: '/models/2', message: expect.stringContaining('The table of Broad has used 1403') }]);
    expect(refused.body.errors[0].message).toContain('adds 300');
    expect((await tableColumns(t, app.id, BROAD)).size).toBe(1403);

    const within = await tenant.api.put<AppReply>(`/v1/applications/${app.id}/scode`, withBroad([[0, 400], [2000, 2150]]));
    expect(within.status).toBe(200);
    await publishAndWait(tenant, app.id, within.body.serverVersion);
    expect((await tableColumns(t, app.id, BROAD)).size).toBe(1553);
  });
});
