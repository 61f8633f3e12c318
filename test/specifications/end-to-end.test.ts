// Issue 14, end to end on both databases: the Pagila PostgreSQL schema (a real sample database)
// uploaded, a specification generated, applied to a new application, published, and records
// created and read through the generated API, across a foreign key and the film_actor join
// table (a many-to-many between Film and Actor).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { publish } from '../support/publish.ts';
import { ServedApi, type Page, type Rec } from '../runtime/served-app.ts';
import type { Field, Model } from '../../src/definition/schema.ts';
import { specificationFrom, type SpecificationReply } from './support.ts';

/** A value of a primitive type for a required field the test does not set itself. */
function sampleValue(field: Field): unknown {
  if (field.enum?.length) return field.enum[0];
  switch (field.to) {
    case 'p_NUMBER':
      return 1;
    case 'p_BOOLEAN':
      return true;
    case 'p_DATE':
      return '2024-05-01';
    case 'p_DATE_TIME':
      return '2024-05-01T10:00:00.000Z';
    case 'p_TIME':
      return '10:00:00';
    default:
      return 'sample';
  }
}

/** `values` plus a sample for every other required primitive field without a default. */
function recordOf(model: Model, values: Record<string, unknown>): Record<string, unknown> {
  const out = { ...values };
  for (const field of model.fields) {
    if (field.name in out || field.min < 1 || field.defaultValue !== undefined || field.to.startsWith('urn:svc:model:')) continue;
    out[field.name] = field.max === 1 ? sampleValue(field) : [sampleValue(field)];
  }
  return out;
}

describe.each(await availableDrivers())('from a PostgreSQL schema to a served application (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let spec: SpecificationReply;
  let app: AppReply;
  let api: ServedApi;
  const model = (name: string): Model => {
    const found = app.scode.models.find((m) => m.name === name);
    if (!found) throw new Error(`no model ${name}`);
    return found;
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Rental shop');
  }, 120_000);
  afterAll(() => t?.close());

  it('generates a specification from the uploaded schema', async () => {
    spec = await specificationFrom(tenant.api, tenant.projectId, ['sql/pagila-schema.sql']);
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    const names = (spec.content as { models: Array<{ name: string }> }).models.map((m) => m.name);
    // Pagila's tables (singular, PascalCase); its join tables are not models.
    expect(names).toEqual(expect.arrayContaining(['Actor', 'Film', 'Language', 'Category', 'Customer', 'Rental', 'Payment', 'Inventory', 'Store', 'Staff', 'Address', 'City', 'Country']));
    expect(names).not.toContain('FilmActor');
    expect(names).not.toContain('FilmCategory');
  }, 120_000);

  it('applies it to a new application and publishes it', async () => {
    const created = await tenant.api.post<AppReply>(`/v1/projects/${tenant.projectId}/specifications/${spec.id}/apply`, { name: 'Rentals' });
    expect(created.status, created.text).toBe(201);
    app = await publish(tenant, created.body.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const film = model('Film');
    const actors = film.fields.find((f) => f.name === 'actors')!;
    expect(actors).toMatchObject({ to: model('Actor').id, max: null });
    expect(model('Actor').fields.find((f) => f.name === 'films')).toMatchObject({ to: film.id, max: null });
    expect(film.fields.find((f) => f.name === 'language')).toMatchObject({ to: model('Language').id, max: 1 });
  }, 180_000);

  it('creates and reads records through the generated API, across a foreign key and the many-to-many', async () => {
    const language = await api.post('/languages', recordOf(model('Language'), { name: 'English' }), 'admin');
    expect(language.status, JSON.stringify(language.body)).toBe(201);
    const penelope = await api.post('/actors', recordOf(model('Actor'), { firstName: 'PENELOPE', lastName: 'GUINESS' }), 'admin');
    const nick = await api.post('/actors', recordOf(model('Actor'), { firstName: 'NICK', lastName: 'WAHLBERG' }), 'admin');
    expect(penelope.status, JSON.stringify(penelope.body)).toBe(201);
    expect(nick.status).toBe(201);
    const film = await api.post(
      '/films',
      recordOf(model('Film'), { title: 'ACADEMY DINOSAUR', language: language.body.id, actors: [penelope.body.id, nick.body.id] }),
      'admin',
    );
    expect(film.status, JSON.stringify(film.body)).toBe(201);

    // The film names its language and both actors (expanded one level).
    const read = await api.get<Rec & { language: Rec | string; actors: Array<Rec | string> }>(`/films/${film.body.id}`, 'admin');
    expect(read.status).toBe(200);
    expect(read.body.title).toBe('ACADEMY DINOSAUR');
    const idOf = (value: Rec | string) => (typeof value === 'string' ? value : value.id);
    expect(idOf(read.body.language)).toBe(language.body.id);
    expect(read.body.actors.map(idOf).sort()).toEqual([penelope.body.id, nick.body.id].sort());
    // The other side of the many-to-many: the actor lists the film.
    const actor = await api.get<Rec & { films: Array<Rec | string> }>(`/actors/${nick.body.id}`, 'admin');
    expect(actor.body.films.map(idOf)).toEqual([film.body.id]);
    // The paged sub-collection of the relationship.
    const cast = await api.get<Page>(`/films/${film.body.id}/actors?sort=firstName`, 'admin');
    expect(cast.status).toBe(200);
    expect(cast.body.total).toBe(2);
    expect(cast.body.items.map((a) => a.firstName)).toEqual(['NICK', 'PENELOPE']);
    // A second film with one of them: each actor's set follows.
    const second = await api.post('/films', recordOf(model('Film'), { title: 'ACE GOLDFINGER', language: language.body.id, actors: [penelope.body.id] }), 'admin');
    expect(second.status).toBe(201);
    const penelopeFilms = await api.get<Page>(`/actors/${penelope.body.id}/films?sort=title`, 'admin');
    expect(penelopeFilms.body.items.map((f) => f.title)).toEqual(['ACADEMY DINOSAUR', 'ACE GOLDFINGER']);
    const list = await api.get<Page>('/films?sort=title', 'admin');
    expect(list.body.total).toBe(2);
  }, 120_000);
});
