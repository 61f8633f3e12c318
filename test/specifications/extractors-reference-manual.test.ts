/**
 * A data standard written as a Markdown reference manual: the General Transit Feed
 * Specification reference (test/fixtures/README.md). Under "Field Definitions" each file has a
 * section (`### stops.txt`) with one field table (Field Name / Type / Presence / Description);
 * types read `Unique ID`, `Foreign ID referencing \`stops.stop_id\``, `Enum` (values listed in
 * the description as "`0` - …"), presence `Required` / `Optional` / `Conditionally Required`.
 * Expectations come from reading the document.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractMarkdown } from '../../src/specifications/extractors/markdown.ts';
import { entityName } from '../../src/specifications/extractors/markdown-tables.ts';
import { buildSpecification } from '../../src/specifications/build.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { findPartner } from '../../src/definition/relationships.ts';
import type { AppDefinition, Field, Model } from '../../src/definition/schema.ts';
import type { Draft, DraftField, DraftModel } from '../../src/specifications/extractors/types.ts';

const bytes = new Uint8Array(readFileSync(new URL('../fixtures/markdown/gtfs-reference.md', import.meta.url)));

function model(draft: Draft, name: string): DraftModel {
  const found = draft.models.find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name} among ${draft.models.map((m) => m.name).join(', ')}`);
  return found;
}
function field(draft: Draft, modelName: string, name: string): DraftField {
  const found = model(draft, modelName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${modelName}.${name}`);
  return found;
}
function defModel(def: AppDefinition, name: string): Model {
  const found = def.models.find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name} among ${def.models.map((m) => m.name).join(', ')}`);
  return found;
}
function defField(def: AppDefinition, modelName: string, name: string): Field {
  const found = defModel(def, modelName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${modelName}.${name} among ${defModel(def, modelName).fields.map((f) => f.name).join(', ')}`);
  return found;
}

describe('reference manual: GTFS reference.md', () => {
  let draft: Draft;
  beforeAll(async () => {
    draft = await extractMarkdown({ attachmentId: 'att', name: 'reference.md', kind: 'markdown', bytes });
  });

  it('gives one model per file section, named from its heading without the file extension', () => {
    const names = draft.models.map((m) => m.name);
    expect(names.length).toBeGreaterThanOrEqual(30);
    for (const name of ['agency', 'stops', 'routes', 'trips', 'stop_times', 'calendar', 'calendar_dates', 'shapes', 'transfers', 'feed_info', 'locations']) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain('txt');
    expect(['stops.txt', '`stops.txt`', 'Table: `users.csv`', 'File: trips.txt', 'locations.geojson'].map(entityName)).toEqual(['stops', 'stops', 'users', 'trips', 'locations']);
    // a dotted name that is no file stays whole
    expect(entityName('public.users')).toBe('public.users');
    expect(model(draft, 'stops').locator).toBe('line 209');
    // every table is a model or reported as left out, with its line
    const report = draft.warnings.find((w) => /field tables read as models/.test(w.message))!.message;
    expect(report).toMatch(/^32 field tables read as models \(agency, line 191, stops, line 209, /);
    expect(report).toMatch(/2 other tables left out, without field and type columns \(line 116: File Name \| Presence \| Description, line 285: route_id/);
  });

  it('reads Unique ID as a required unique key, and Presence as required or optional', () => {
    expect(field(draft, 'stops', 'stop_id')).toMatchObject({ type: 'p_TEXT', unique: true, required: true });
    expect(field(draft, 'stops', 'stop_code')).toMatchObject({ type: 'p_TEXT', required: false });
    // Conditionally Required is not always required: optional, said in one warning
    expect(field(draft, 'stops', 'stop_name')).toMatchObject({ type: 'p_TEXT', required: false });
    expect(draft.warnings.map((w) => w.message)).toContainEqual(expect.stringMatching(/^31 conditionally required fields are optional \(.*\): agency\.agency_id, stops\.stop_name, stops\.stop_lat/));
    expect(field(draft, 'stops', 'stop_lat')).toMatchObject({ type: 'p_NUMBER' });
    expect(field(draft, 'agency', 'agency_url')).toMatchObject({ type: 'p_LINK', required: true });
    expect(field(draft, 'agency', 'agency_phone').type).toBe('p_PHONE_NUMBER');
  });

  it('turns "Foreign ID referencing `table.field`" into relationships, a self reference included', () => {
    expect(field(draft, 'stops', 'parent_station').type).toEqual({ model: 'stops' });
    expect(field(draft, 'stops', 'level_id').type).toEqual({ model: 'levels' });
    expect(field(draft, 'trips', 'route_id')).toMatchObject({ type: { model: 'routes' }, required: true });
    expect(field(draft, 'stop_times', 'trip_id')).toMatchObject({ type: { model: 'trips' }, required: true });
    expect(field(draft, 'stop_times', 'stop_id').type).toEqual({ model: 'stops' });
    // "Foreign ID referencing `id` from `locations.geojson`": the file names the table
    expect(field(draft, 'stop_times', 'location_id').type).toEqual({ model: 'locations' });
  });

  it('reads Enum values from the description', () => {
    expect(field(draft, 'routes', 'route_type')).toMatchObject({ type: 'p_NUMBER', required: true, enum: [0, 1, 2, 3, 4, 5, 6, 7, 11, 12] });
    expect(field(draft, 'stops', 'location_type')).toMatchObject({ type: 'p_NUMBER', required: false, enum: [0, 1, 2, 3, 4] });
    expect(field(draft, 'calendar_dates', 'exception_type').enum).toEqual([1, 2]);
  });

  it('builds content that validates, with the relationships and their partners', async () => {
    const built = await buildSpecification('GTFS', [{ id: 'gtfs', name: 'reference.md', kind: 'markdown', bytes }]);
    const def = built.content;
    expect(() => validateDefinition(structuredClone(def))).not.toThrow();
    expect(defField(def, 'Stop', 'stopId')).toMatchObject({ to: 'p_TEXT', min: 1 });
    const trip = defField(def, 'StopTime', 'trip');
    expect(trip.to).toBe(defModel(def, 'Trip').id);
    expect(findPartner(def, defModel(def, 'StopTime'), trip)?.name).toBe('stopTimes');
    expect(defField(def, 'Route', 'agency').to).toBe(defModel(def, 'Agency').id);
    expect(built.warnings.some((w) => /Stop\.stopId is a key of the document: a unique index/.test(w.message))).toBe(true);
    expect(defModel(def, 'Stop').indexes).toEqual([{ fields: [defField(def, 'Stop', 'stopId').id], unique: true }]);
  }, 30_000);
});
