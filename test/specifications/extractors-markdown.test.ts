/**
 * The Markdown extractor on two real documents from Simpler.Grants.gov (HHS, public domain /
 * CC0; test/fixtures/README.md):
 * - the "GET Opportunities" deliverable specification: YAML front matter, an H1 title, and
 *   user stories written as a lead-in per persona ("As an **HHS staff member**, I want:")
 *   whose wants are a nested list ("…, so that …"): 4 personas, 11 stories, no page list and
 *   no table of fields;
 * - the "User API Keys Schema": one table (Column / Type / Constraints / Description) for
 *   `user_api_key`, with a UUID primary key, NOT NULL, NULLABLE, a foreign key written
 *   `FK → user.user_id`, `DEFAULT TRUE` and `DEFAULT NOW()`.
 * Every expectation below was read off the documents.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractMarkdown } from '../../src/specifications/extractors/markdown.ts';
import type { Draft, DraftModel } from '../../src/specifications/extractors/types.ts';

function read(file: string, name = file.split('/').pop() ?? file): Promise<Draft> {
  const bytes = new Uint8Array(readFileSync(new URL(`../fixtures/markdown/${file}`, import.meta.url)));
  return extractMarkdown({ attachmentId: 'att', name, kind: 'markdown', bytes });
}

function markdown(text: string): Promise<Draft> {
  return extractMarkdown({ attachmentId: 'att', name: 'doc.md', kind: 'markdown', bytes: new TextEncoder().encode(text) });
}

describe('Markdown extractor: Simpler.Grants.gov "GET Opportunities" deliverable', () => {
  const drafted = read('simpler-grants-get-opportunities.md');

  it('takes the H1 as the title, not the front matter\'s description', async () => {
    expect((await drafted).title).toBe('GET Opportunities');
  });

  it('finds the four personas of the "User stories" section, each where its lead-in names it', async () => {
    const draft = await drafted;
    expect(draft.personas.map((p) => [p.name, p.locator])).toEqual([
      ['HHS staff member', 'line 46'],
      ['consumer of the API', 'line 49'],
      ['project maintainer', 'line 54'],
      ['open source contributor', 'line 59'],
    ]);
  });

  it('turns each of the 11 nested wants into a requirement of its persona, with its "so that"', async () => {
    const draft = await drafted;
    expect(draft.requirements).toHaveLength(11);
    const byPersona = new Map<string, number>();
    for (const r of draft.requirements) byPersona.set(r.persona ?? '', (byPersona.get(r.persona ?? '') ?? 0) + 1);
    expect(Object.fromEntries(byPersona)).toEqual({
      'HHS staff member': 2,
      'consumer of the API': 4,
      'project maintainer': 4,
      'open source contributor': 1,
    });
    // Line 56: "  * to be alerted when the API is down, so that I can troubleshoot the issue …".
    const alerted = draft.requirements.find((r) => r.locator === 'line 56');
    expect(alerted?.persona).toBe('project maintainer');
    expect(alerted?.description).toBe(
      'As a project maintainer, I want to be alerted when the API is down, so that I can troubleshoot the issue with minimal downtime or interruption in service',
    );
    // Line 50: a want without "to" reads on from "I want" as written, inline code flattened.
    const docs = draft.requirements.find((r) => r.locator === 'line 50');
    expect(docs?.description).toMatch(/^As a consumer of the API, I want clear documentation and a user guide for the API, so that I don't have to rely on reading the source code/);
    expect(draft.requirements.find((r) => r.locator === 'line 48')?.description).toContain('legacy grants.gov and simpler.grants.gov, so that users');
  });

  it('reads the document 140 times over (2.3 MB), every copy counted, giving the event loop turns', async () => {
    const bytes = new Uint8Array(readFileSync(new URL('../fixtures/markdown/simpler-grants-get-opportunities.md', import.meta.url)));
    const copies = 140;
    const many = new Uint8Array(bytes.length * copies);
    for (let i = 0; i < copies; i++) many.set(bytes, i * bytes.length);
    // Lexed in parts cut at headings: a timer gets turns meanwhile, and nothing is lost at the cuts.
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    const draft = await extractMarkdown({ attachmentId: 'att', name: 'big.md', kind: 'markdown', bytes: many }).finally(() =>
      clearInterval(timer),
    );
    expect(ticks).toBeGreaterThan(0);
    expect(draft.requirements).toHaveLength(11 * copies);
    expect(draft.personas).toHaveLength(4);
    // The last copy starts after 139 copies of the file's lines; its first want is its line 47.
    const lines = new TextDecoder().decode(bytes).split('\n').length - 1;
    expect(draft.requirements[11 * (copies - 1)].locator).toBe(`line ${(copies - 1) * lines + 47}`);
  }, 120_000);

  it('makes no pages and no models: the document lists no screens and has no table of fields', async () => {
    const draft = await drafted;
    expect(draft.pages).toEqual([]);
    expect(draft.models).toEqual([]);
    expect(draft.warnings).toEqual([]);
  });
});

describe('Markdown extractor: Simpler.Grants.gov user API keys schema', () => {
  const drafted = read('simpler-grants-api-keys-schema.md');
  const model = async (): Promise<DraftModel> => {
    const models = (await drafted).models;
    expect(models).toHaveLength(1);
    return models[0];
  };

  it('makes one model of the table, named by the H1 less "Schema" (the section heading is generic)', async () => {
    const draft = await drafted;
    expect(draft.title).toBe('User API Keys Schema');
    expect(draft.models.map((m) => [m.name, m.locator])).toEqual([['User API Keys', 'line 9']]);
  });

  it('reads types, NOT NULL, NULLABLE and the literal default; the api_key_id primary key is the record id', async () => {
    const fields = (await model()).fields;
    expect(fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ['key_name', 'p_TEXT', true],
      ['key_id', 'p_TEXT', true],
      ['user_id', { model: 'user' }, true],
      ['last_used', 'p_DATE_TIME', false],
      ['is_active', 'p_BOOLEAN', true],
      ['created_at', 'p_DATE_TIME', true],
      ['updated_at', 'p_DATE_TIME', true],
    ]);
    expect(fields.find((f) => f.name === 'is_active')?.defaultValue).toBe(true);
    expect(fields.find((f) => f.name === 'created_at')?.defaultValue).toBeUndefined();
  });

  it('turns "FK → user.user_id" into a relationship to the user table, one of it', async () => {
    const userId = (await model()).fields.find((f) => f.name === 'user_id');
    expect(userId).toMatchObject({ type: { model: 'user' }, many: false, locator: 'line 14' });
  });

  it('says what it left out: the primary key and the two NOW() defaults', async () => {
    const messages = (await drafted).warnings.map((w) => `${w.locator}: ${w.message}`);
    expect(messages).toHaveLength(3);
    expect(messages[0]).toMatch(/^line 11: "api_key_id" is the primary key/);
    expect(messages.filter((m) => m.includes('NOW()'))).toEqual([
      expect.stringMatching(/^line 17: .*created_at/),
      expect.stringMatching(/^line 18: .*updated_at/),
    ]);
  });
});

describe('Markdown extractor: other shapes', () => {
  it('reads a story table by its "As a / I want / So that" columns', async () => {
    const draft = await markdown(
      ['| As a | I want | So that |', '|---|---|---|', '| member | to renew a loan | I keep the book |', '| guest | to browse | |'].join('\n'),
    );
    expect(draft.requirements.map((r) => r.description)).toEqual([
      'As a member, I want to renew a loan, so that I keep the book',
      'As a guest, I want to browse',
    ]);
    expect(draft.personas.map((p) => p.name)).toEqual(['member', 'guest']);
  });

  it('takes sub-headings under a Pages heading as pages, and stops at the next section', async () => {
    const draft = await markdown('# App\n\n## Pages\n\n### Sign in\n\n### Cart\n\n## Data\n\n### Not a page\n');
    expect(draft.pages.map((p) => [p.title, p.locator])).toEqual([
      ['Sign in', 'line 5'],
      ['Cart', 'line 7'],
    ]);
  });

  it('names a table under a generic "Fields" heading after the entity heading above it', async () => {
    const draft = await markdown(
      ['# Shop', '', '## Book', '', '### Fields', '', '| Field | Type | Required |', '|---|---|---|', '| title | string | yes |', '| price | decimal | no |', ''].join('\n'),
    );
    expect(draft.models.map((m) => m.name)).toEqual(['Book']);
    expect(draft.models[0].fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ['title', 'p_TEXT', true],
      ['price', 'p_NUMBER', false],
    ]);
  });

  it('takes the items of a Screens list as pages: a bold or dashed title, then the description', async () => {
    const draft = await markdown(
      ['# App', '', '## Core Screens', '', '- **Dashboard:** overview of loans', '- Settings – account preferences', '', '## Data', '', '- not a page'].join('\n'),
    );
    expect(draft.pages).toEqual([
      { title: 'Dashboard', description: 'overview of loans', locator: 'line 5' },
      { title: 'Settings', description: 'account preferences', locator: 'line 6' },
    ]);
  });

  it('reads "Table: `name`" headings, CHECK values, quoted defaults and `references table(column)`', async () => {
    const draft = await markdown(
      [
        '## Table: `loans`',
        '',
        '| Column Name | Data Type | Constraints |',
        '|---|---|---|',
        '| id | SERIAL | PRIMARY KEY |',
        '| user_id | INTEGER | NOT NULL, REFERENCES public.users(id) |',
        "| status | TEXT | CHECK (status IN ('open', 'closed')) DEFAULT 'open' |",
        '',
      ].join('\n'),
    );
    expect(draft.models.map((m) => m.name)).toEqual(['loans']);
    expect(draft.models[0].fields).toEqual([
      { name: 'user_id', type: { model: 'users' }, many: false, required: true, locator: 'line 6' },
      { name: 'status', type: 'p_TEXT', many: false, required: false, enum: ['open', 'closed'], defaultValue: 'open', locator: 'line 7' },
    ]);
  });

  it('reads "As a X, I want to:" lead-ins over nested lists, and leaves other nested lists alone', async () => {
    const draft = await markdown(
      ['- As a **grantor**, I want to:', '  - publish a notice, so that applicants find it', '  - close it', '- Goals:', '  - to be fast, so that users stay'].join('\n'),
    );
    expect(draft.requirements.map((r) => [r.description, r.locator])).toEqual([
      ['As a grantor, I want to publish a notice, so that applicants find it', 'line 2'],
      ['As a grantor, I want to close it', 'line 3'],
    ]);
  });

  it('warns when a document has nothing it can use', async () => {
    const draft = await markdown('# Notes\n\nJust prose.\n');
    expect(draft.title).toBe('Notes');
    expect(draft.warnings).toHaveLength(1);
    expect(draft.warnings[0].message).toMatch(/no user stories/);
  });
});
