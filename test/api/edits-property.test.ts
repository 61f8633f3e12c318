import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'kysely';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { Problem } from '../../src/errors.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { addAction, createField, createModel, updateField, updateModel } from '../../src/definition/edits/index.ts';
import type { DefinitionChange } from '../../src/services/applications/service.ts';

/** An edit chosen by fast-check; `pick` selects a model/field by index modulo the count. */
type EditSpec = { valid: boolean; label: string; make: (def: AppDefinition, n: number) => DefinitionChange };

const validEdits: fc.Arbitrary<EditSpec>[] = [
  fc.nat().map((pick) => ({
    valid: true,
    label: 'rename model',
    make: (def, n) => (d) => updateModel(d, def.models[pick % def.models.length].id, { name: `Model${n}` }),
  })),
  fc.nat().map((pick) => ({
    valid: true,
    label: 'add optional field',
    make: (def, n) => (d) => createField(d, def.models[pick % def.models.length].id, { name: `extra${n}`, to: 'p_NUMBER' }),
  })),
  fc.tuple(fc.nat(), fc.nat()).map(([m, f]) => ({
    valid: true,
    label: 'rename field',
    make: (def, n) => (d) => {
      // Only fields nothing refers to by name: renaming a referenced one is rightly a 409.
      const references = JSON.stringify([def.actions, def.triggers, def.models.map((x) => x.accessControl)]);
      const model = def.models[m % def.models.length];
      const free = model.fields.filter((x) => !references.includes(x.name) && x.name !== 'email');
      if (free.length === 0) return updateModel(d, model.id, { name: `Model${n}` });
      return updateField(d, model.id, free[f % free.length].id, { name: `field${n}` });
    },
  })),
  fc.constant({ valid: true, label: 'add model', make: (_def: AppDefinition, n: number) => (d: AppDefinition) => createModel(d, { name: `Thing${n}` }) }),
  fc.constant({
    valid: true,
    label: 'add action',
    make: (_def: AppDefinition, n: number) => (d: AppDefinition) =>
      addAction(d, { id: `urn:svc:action:a${n}`, startEffectId: 's', effects: [{ actionEffectId: 's', effect: 'flow.set', params: { name: 'x', value: '1' } }] }),
  }),
];

const invalidEdits: fc.Arbitrary<EditSpec>[] = [
  fc.constant({
    valid: false,
    label: 'duplicate model name',
    make: (def: AppDefinition) => (d: AppDefinition) => updateModel(d, def.models[0].id, { name: def.models[1].name }),
  }),
  fc.nat().map((pick) => ({
    valid: false,
    label: 'min above max',
    make: (def, _n) => (d) => {
      const withFields = def.models.filter((x) => x.fields.some((f) => f.max === 1));
      const model = withFields[pick % withFields.length];
      const field = model.fields.find((f) => f.max === 1)!;
      return updateField(d, model.id, field.id, { min: 2 });
    },
  })),
  fc.constant({
    valid: false,
    label: 'dangling next',
    make: (_def: AppDefinition, n: number) => (d: AppDefinition) =>
      addAction(d, { id: `urn:svc:action:bad${n}`, startEffectId: 's', effects: [{ actionEffectId: 's', effect: 'flow.set', params: { name: 'x', value: '1' }, next: 'nowhere' }] }),
  }),
  fc.constant({
    valid: false,
    label: 'unknown model',
    make: () => (d: AppDefinition) => updateModel(d, 'urn:svc:model:nobody', { name: 'X' }),
  }),
];

describe('random sequences of edits', () => {
  let t: TestPlatform;
  let customerId: string;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    tenant = await createTenant(t, 'Property');
    const row = await sql<{ customer_id: string }>`select customer_id from appbuilder.projects where id = ${tenant.projectId}`.execute(
      t.platform.db.kysely,
    );
    customerId = row.rows[0].customer_id;
  });
  afterAll(() => t?.close());

  const versionCount = async (appId: string) =>
    Number((await sql<{ n: number }>`select count(*)::int as n from appbuilder.application_versions where application_id = ${appId}`.execute(t.platform.db.kysely)).rows[0].n);

  it('keep the definition valid, one version per valid edit; invalid edits change nothing', async () => {
    const service = t.platform.services.applications;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(...validEdits, ...invalidEdits), { minLength: 1, maxLength: 6 }), async (edits) => {
        const app = await createTodoApp(tenant);
        let counter = 0;
        for (const spec of edits) {
          counter += 1;
          const before = await service.get(customerId, app.id);
          const versionsBefore = await versionCount(app.id);
          const edit = spec.make(before.scode, counter);
          if (spec.valid) {
            const after = await service.change(customerId, app.id, edit);
            expect(() => validateDefinition(after.scode), spec.label).not.toThrow();
            expect(await versionCount(app.id), spec.label).toBe(versionsBefore + 1);
            expect(after.serverVersion).not.toBe(before.serverVersion);
          } else {
            const error = await service.change(customerId, app.id, edit).catch((e: unknown) => e);
            expect(error, spec.label).toBeInstanceOf(Problem);
            expect([404, 409]).toContain((error as Problem).status);
            expect(await service.get(customerId, app.id), spec.label).toEqual(before);
            expect(await versionCount(app.id), spec.label).toBe(versionsBefore);
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
