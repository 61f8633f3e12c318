// Data import end to end on both databases, on a real sample database shipped as a schema file and
// a data-only file (Pagila: pg_dump COPY blocks, partitions of payment, join tables, foreign keys
// whose rows come later in the file): upload → specification → apply with publish and import →
// the app holds every row of the document, and foreign keys name the right records; two keys to
// one table (film.language_id, film.original_language_id) each keep their own partner, paired by id.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { ServedApi, type Page, type Rec } from '../runtime/served-app.ts';
import { FIXTURES, specificationFrom } from '../specifications/support.ts';
import { applyWithData, type ImportReply } from './support.ts';

/** Rows per table as the document has them: lines between each `COPY t … FROM stdin;` and `\.`. */
function copyCounts(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  let table: string | null = null;
  for (const line of readFileSync(`${FIXTURES}/${file}`, 'utf8').split('\n')) {
    const copy = /^COPY public\.(\w+) /.exec(line);
    if (copy) table = copy[1]!.replace(/_p\d{4}_\d{2}$/, '');
    else if (line === '\\.') table = null;
    else if (table) counts.set(table, (counts.get(table) ?? 0) + 1);
  }
  return counts;
}

/** Rows per table as the script has them: the `(…)` tuples under each `INSERT INTO t (…) VALUES`. */
function insertCounts(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  let table: string | null = null;
  for (const line of readFileSync(`${FIXTURES}/${file}`, 'utf8').split('\n')) {
    const insert = /^INSERT INTO (\w+) /.exec(line);
    if (insert) table = insert[1]!;
    else if (table && /^\s+\(/.test(line)) counts.set(table, (counts.get(table) ?? 0) + 1);
    else table = null;
  }
  return counts;
}

describe.each(await availableDrivers())('importing Pagila (schema + data-only dump) and Chinook (one script) (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let report: ImportReply;
  let api: ServedApi;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Rental shop with data');
  }, 120_000);
  afterAll(() => t?.close());

  it('applies, publishes and imports in one call: every row of the document is in the app', async () => {
    const spec = await specificationFrom(tenant.api, tenant.projectId, ['sql/pagila-schema.sql', 'sql/pagila-data.sql']);
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    ({ app, report } = await applyWithData(tenant, spec.id, { name: 'Rentals' }));
    expect(report.status, JSON.stringify(report.errors.slice(0, 3))).toBe('succeeded');
    expect(report.errors).toEqual([]);
    api = new ServedApi(t, tenant, app.id, report.serverVersion!);
    const counts = copyCounts('sql/pagila-data.sql');
    const models: Record<string, string> = {
      actor: 'actors', country: 'countries', city: 'cities', address: 'addresses', category: 'categories', store: 'stores', customer: 'customers',
      language: 'languages', film: 'films', inventory: 'inventories', staff: 'staff', rental: 'rentals', payment: 'payments',
    };
    for (const [table, resource] of Object.entries(models)) {
      const listed = await api.get<Page>(`/${resource}?limit=0`, 'admin');
      expect(listed.status, `${resource}: ${JSON.stringify(listed.body)}`).toBe(200);
      expect(listed.body.total, table).toBe(counts.get(table));
      expect(report.models.find((m) => m.model.toLowerCase() === table)?.imported, table).toBe(counts.get(table));
    }
    // the two join tables became the many-to-manys
    const pairs = (label: RegExp) => report.models.find((m) => label.test(m.model))?.imported;
    expect(pairs(/^(Film\.actors|Actor\.films)$/)).toBe(counts.get('film_actor'));
    expect(pairs(/^(Film\.categories|Category\.films)$/)).toBe(counts.get('film_category'));
  }, 600_000);

  it('lands foreign keys on the records the document names', async () => {
    // film 1 ACADEMY DINOSAUR is in language 1, English
    const films = await api.get<Page>(`/films?filter=${encodeURIComponent('record.title == "ACADEMY DINOSAUR"')}`, 'admin');
    expect(films.body.items).toHaveLength(1);
    const film = films.body.items[0]!;
    const languageId = typeof film.language === 'string' ? film.language : (film.language as Rec).id;
    const language = await api.get<Rec>(`/languages/${languageId}`, 'admin');
    expect(String(language.body.name).trim()).toBe('English');
    expect(film.specialFeatures).toEqual(['Deleted Scenes', 'Behind the Scenes']);
    // city 1 "A Corua (La Corua)" is in country 87, Spain
    const cities = await api.get<Page>(`/cities?filter=${encodeURIComponent('record.city == "A Corua (La Corua)"')}`, 'admin');
    const city = cities.body.items[0]!;
    const country = await api.get<Rec>(`/countries/${typeof city.country === 'string' ? city.country : (city.country as Rec).id}`, 'admin');
    expect(country.body.country).toBe('Spain');
    // actor 1 PENELOPE GUINESS plays in film 1 (film_actor), and a payment of a partition lands on its customer
    const actors = await api.get<Page>(`/actors?filter=${encodeURIComponent('record.firstName == "PENELOPE" && record.lastName == "GUINESS"')}`, 'admin');
    const penelope = actors.body.items[0]!;
    const cast = await api.get<Page>(`/actors/${penelope.id}/films?limit=100`, 'admin');
    expect(cast.body.items.map((f) => f.title)).toContain('ACADEMY DINOSAUR');
    const mary = await api.get<Page>(`/customers?filter=${encodeURIComponent('record.email == "MARY.SMITH@sakilacustomer.org"')}`, 'admin');
    const payments = await api.get<Page>(`/customers/${mary.body.items[0]!.id}/payments?limit=0`, 'admin');
    const maryPayments = readFileSync(`${FIXTURES}/sql/pagila-data.sql`, 'utf8')
      .split('\n')
      .filter((line) => /^\d+\t1\t\d+\t\d+\t[\d.]+\t2022-/.test(line)).length;
    expect(payments.body.total).toBe(maryPayments);
  }, 120_000);

  it('pairs the two keys of film to language by id, each with its own partner, and the rows land on the right side', async () => {
    // film.language_id and film.original_language_id both reference language: two relationships, two partners.
    const models = app.scode.models;
    const field = (model: string, name: string) => models.find((m) => m.name === model)!.fields.find((f) => f.name === name)!;
    expect(field('Film', 'language').partner).toBe(field('Language', 'films').id);
    expect(field('Language', 'films').partner).toBe(field('Film', 'language').id);
    expect(field('Film', 'originalLanguage').partner).toBe(field('Language', 'filmsAsOriginalLanguage').id);
    expect(field('Language', 'filmsAsOriginalLanguage').partner).toBe(field('Film', 'originalLanguage').id);
    // The document: each film's language_id, and no original_language_id set.
    const films = new Map<string, number>();
    let inFilm = false;
    for (const line of readFileSync(`${FIXTURES}/sql/pagila-data.sql`, 'utf8').split('\n')) {
      if (line.startsWith('COPY public.film ')) inFilm = true;
      else if (line === '\\.') inFilm = false;
      else if (inFilm) {
        const [, , , , language, original] = line.split('\t');
        expect(original).toBe('\\N');
        films.set(language!, (films.get(language!) ?? 0) + 1);
      }
    }
    // language.name is CHAR(20): stored padded as the document has it
    const languages = (await api.get<Page>('/languages?limit=100', 'admin')).body.items;
    const english = languages.find((l) => String(l.name).trim() === 'English')!;
    const italian = languages.find((l) => String(l.name).trim() === 'Italian')!;
    const listed = async (language: Rec, member: string) => (await api.get<Page>(`/languages/${language.id}/${member}?limit=0`, 'admin')).body.total;
    expect(await listed(english, 'films')).toBe(films.get('1'));
    expect(await listed(italian, 'films')).toBe(films.get('2'));
    expect(await listed(english, 'filmsAsOriginalLanguage')).toBe(0);
    // ACADEMY DINOSAUR (English) given Italian as its original language: listed under Italian's other partner only.
    const film = (await api.get<Page>(`/films?filter=${encodeURIComponent('record.title == "ACADEMY DINOSAUR"')}`, 'admin')).body.items[0]!;
    const patched = await api.patch(`/films/${film.id}`, { originalLanguage: italian.id }, 'admin');
    expect(patched.status, JSON.stringify(patched.body).slice(0, 300)).toBe(200);
    const originals = await api.get<Page>(`/languages/${italian.id}/filmsAsOriginalLanguage`, 'admin');
    expect(originals.body.items.map((f) => f.title)).toEqual(['ACADEMY DINOSAUR']);
    expect(await listed(italian, 'films')).toBe(films.get('2'));
    expect(await listed(english, 'films')).toBe(films.get('1'));
    const read = await api.get<Rec>(`/languages/${italian.id}?fields=filmsAsOriginalLanguage`, 'admin');
    expect(read.body.filmsAsOriginalLanguage).toEqual([film.id]);
  }, 120_000);

  it('imports Chinook, whose one script holds the tables and their multi-row INSERTs', async () => {
    const music = await createTenant(t, 'Music store with data');
    const spec = await specificationFrom(music.api, music.projectId, ['sql/chinook-postgres.sql']);
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    const { app: musicApp, report } = await applyWithData(music, spec.id, { name: 'Music store' });
    expect(report.status, JSON.stringify(report.errors.slice(0, 3))).toBe('succeeded');
    expect(report.errors).toEqual([]);
    const store = new ServedApi(t, music, musicApp.id, report.serverVersion!);
    const counts = insertCounts('sql/chinook-postgres.sql');
    const byModel = new Map(report.models.map((m) => [m.model, m.imported]));
    const tables: Record<string, string> = {
      album: 'Album', artist: 'Artist', customer: 'Customer', employee: 'Employee', genre: 'Genre', invoice: 'Invoice',
      invoice_line: 'InvoiceLine', media_type: 'MediaType', playlist: 'Playlist', track: 'Track',
    };
    for (const [table, model] of Object.entries(tables)) expect(byModel.get(model), table).toBe(counts.get(table));
    expect(byModel.get('Playlist.tracks') ?? byModel.get('Track.playlists')).toBe(counts.get('playlist_track'));
    expect((await store.get<Page>('/tracks?limit=0', 'admin')).body.total).toBe(counts.get('track'));
    // track 1 is on album 1 "For Those About To Rock We Salute You" by artist 1 AC/DC
    const tracks = await store.get<Page>(`/tracks?filter=${encodeURIComponent('record.name == "For Those About To Rock (We Salute You)"')}`, 'admin');
    const track = tracks.body.items[0]!;
    const album = await store.get<Rec>(`/albums/${typeof track.album === 'string' ? track.album : (track.album as Rec).id}`, 'admin');
    expect(album.body.title).toBe('For Those About To Rock We Salute You');
    const artist = await store.get<Rec>(`/artists/${typeof album.body.artist === 'string' ? album.body.artist : (album.body.artist as Rec).id}`, 'admin');
    expect(artist.body.name).toBe('AC/DC');
    // employee 3 Jane Peacock reports to employee 2 Nancy Edwards (a self-reference, set in a second pass)
    const jane = (await store.get<Page>(`/employees?filter=${encodeURIComponent('record.firstName == "Jane"')}`, 'admin')).body.items[0]!;
    const boss = await store.get<Rec>(`/employees/${typeof jane.reportsTo === 'string' ? jane.reportsTo : (jane.reportsTo as Rec).id}`, 'admin');
    expect([boss.body.firstName, boss.body.lastName]).toEqual(['Nancy', 'Edwards']);
    expect(jane.birthDate).toBe('1973-08-29T00:00:00.000Z');

    // POST /{resource}/import takes relationships as record ids: a to-one pointer and a many-to-many's set
    const admin = { authorization: `Bearer ${music.api.token}`, 'x-svc-api-client': music.api.apiKey!, 'content-type': 'application/x-ndjson' };
    const playlists = [{ name: 'Rock classics', tracks: [track.id] }];
    const posted = await fetch(`${store.base}/playlists/import`, { method: 'POST', headers: admin, body: playlists.map((p) => JSON.stringify(p)).join('\n') });
    expect(posted.status, await posted.clone().text()).toBe(200);
    const mix = (await store.get<Page>(`/playlists?filter=${encodeURIComponent('record.name == "Rock classics"')}`, 'admin')).body.items[0]!;
    const mixTracks = await store.get<Page>(`/playlists/${mix.id}/tracks`, 'admin');
    expect(mixTracks.body.items.map((i) => i.name)).toEqual(['For Those About To Rock (We Salute You)']);
    const albums = await fetch(`${store.base}/albums/import`, { method: 'POST', headers: admin, body: JSON.stringify({ title: 'Live at Donington', artist: artist.body.id }) });
    expect(albums.status).toBe(200);
    const acdc = await store.get<Page>(`/artists/${artist.body.id}/albums?limit=100`, 'admin');
    expect(acdc.body.items.map((a) => a.title)).toContain('Live at Donington');
  }, 600_000);
});
