/**
 * The Markdown extractor on two real documents (test/fixtures/README.md):
 * - EzLib's library-management PRD: an H1 title, 30 stories written "As a **persona**,
 *   I want **…**, so that **…**." over three lines, and a "Core Screens and Views" list of
 *   eight screens ("**Main Dashboard:** Operational overview …");
 * - LibraMVP's data model: three entity tables (users, books, loans) with Column Name,
 *   Data Type and Constraints columns.
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

describe('Markdown extractor: EzLib library management PRD', () => {
  const drafted = read('ezlib-library-management-prd.md');

  it('takes the H1 as the title', async () => {
    expect((await drafted).title).toBe('EzLib Library Management System Product Requirements Document (PRD)');
  });

  it('finds the nine personas the stories speak as, each once, where it first appears', async () => {
    const draft = await drafted;
    expect(draft.personas.map((p) => p.name)).toEqual([
      'developer',
      'library administrator',
      'library staff member',
      'library staff member with appropriate permissions',
      'library administrator in a diverse community',
      'new library staff member',
      'library system administrator',
      'library director',
      'library owner',
    ]);
    // Story 1.1 opens at line 338 ("As a **developer**,").
    expect(draft.personas[0].locator).toBe('line 338');
  });

  it('turns each of the 30 stories into a requirement of its persona', async () => {
    const draft = await drafted;
    expect(draft.requirements).toHaveLength(30);
    const byPersona = new Map<string, number>();
    for (const r of draft.requirements) byPersona.set(r.persona ?? '', (byPersona.get(r.persona ?? '') ?? 0) + 1);
    expect(byPersona.get('library staff member')).toBe(15);
    expect(byPersona.get('library administrator')).toBe(7);
    expect(byPersona.get('developer')).toBe(2);
    // Story 2.5, lines 504-506, read as one sentence without the bold markers.
    const checkout = draft.requirements.find((r) => r.locator === 'line 504');
    expect(checkout?.description).toMatch(/^As a library staff member, I want to .*check.*, so that .+/i);
    expect(checkout?.description).not.toContain('**');
  });

  it('lists the eight core screens as pages with their descriptions', async () => {
    const draft = await drafted;
    expect(draft.pages.map((p) => p.title)).toEqual([
      'Main Dashboard',
      'Book Management',
      'Member Directory',
      'Circulation Desk',
      'Reports Center',
      'Overdue Management',
      'System Settings',
      'Audit Log',
    ]);
    expect(draft.pages[0].description).toBe('Operational overview with quick stats, recent activity, and shortcuts to common tasks');
    expect(draft.pages[0].locator).toBe('line 158');
    expect(draft.pages[7].locator).toBe('line 165');
  });

  it('reads the PRD forty times over (2.2 MB), every copy counted, giving the event loop turns', async () => {
    const bytes = new Uint8Array(readFileSync(new URL('../fixtures/markdown/ezlib-library-management-prd.md', import.meta.url)));
    const many = new Uint8Array(bytes.length * 40);
    for (let i = 0; i < 40; i++) many.set(bytes, i * bytes.length);
    // Lexed in parts cut at headings: a timer gets turns meanwhile, and nothing is lost at the cuts.
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    const draft = await extractMarkdown({ attachmentId: 'att', name: 'big.md', kind: 'markdown', bytes: many }).finally(() =>
      clearInterval(timer),
    );
    expect(ticks).toBeGreaterThan(0);
    expect(draft.requirements).toHaveLength(30 * 40);
    expect(draft.personas).toHaveLength(9);
    expect(draft.pages).toHaveLength(8 * 40);
    // The 40th copy starts after 39 copies of the file's lines.
    const lines = new TextDecoder().decode(bytes).split('\n').length - 1;
    expect(draft.requirements[30 * 39].locator).toBe(`line ${39 * lines + 338}`);
  }, 120_000);

  it('makes no models: the PRD has no table of fields', async () => {
    const draft = await drafted;
    expect(draft.models).toEqual([]);
    expect(draft.warnings).toEqual([]);
  });
});

describe('Markdown extractor: LibraMVP data model tables', () => {
  const drafted = read('libramvp-datamodel.md');
  const model = async (name: string): Promise<DraftModel> => {
    const found = (await drafted).models.find((m) => m.name === name);
    if (!found) throw new Error(`no model ${name}`);
    return found;
  };

  it('makes one model per "Table: `name`" heading with a field table', async () => {
    const draft = await drafted;
    expect(draft.title).toBe('Data Model – LibraMVP');
    expect(draft.models.map((m) => m.name)).toEqual(['users', 'books', 'loans']);
    expect((await model('users')).locator).toBe('line 9');
  });

  it('reads types, NOT NULL, CHECK values and literal defaults; the id primary key is the record id', async () => {
    const users = await model('users');
    expect(users.fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ['name', 'p_TEXT', true],
      ['email', 'p_TEXT', true],
      ['role', 'p_TEXT', false],
      ['status', 'p_TEXT', false],
      ['created_at', 'p_DATE_TIME', false],
    ]);
    expect(users.fields.find((f) => f.name === 'role')?.enum).toEqual(['admin', 'user']);
    expect(users.fields.find((f) => f.name === 'status')?.defaultValue).toBe('active');
    const books = await model('books');
    expect(books.fields.find((f) => f.name === 'copies_total')).toMatchObject({ type: 'p_NUMBER', required: true, defaultValue: 1 });
    expect(books.fields.find((f) => f.name === 'isbn')?.required).toBe(false);
  });

  it('turns foreign keys into relationships to the referenced tables', async () => {
    const loans = await model('loans');
    expect(loans.fields.map((f) => f.name)).toEqual(['user_id', 'book_id', 'borrow_date', 'due_date', 'return_date']);
    expect(loans.fields[0]).toMatchObject({ type: { model: 'users' }, many: false, locator: 'line 40' });
    expect(loans.fields[1].type).toEqual({ model: 'books' });
    expect(loans.fields.find((f) => f.name === 'due_date')).toMatchObject({ type: 'p_DATE_TIME', required: true });
    expect(loans.fields.find((f) => f.name === 'return_date')?.required).toBe(false);
  });

  it('says what it left out: three id columns and three now() defaults', async () => {
    const messages = (await drafted).warnings.map((w) => `${w.locator}: ${w.message}`);
    expect(messages.filter((m) => m.includes('primary key'))).toHaveLength(3);
    expect(messages.filter((m) => m.includes('now()'))).toHaveLength(3);
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

  it('warns when a document has nothing it can use', async () => {
    const draft = await markdown('# Notes\n\nJust prose.\n');
    expect(draft.title).toBe('Notes');
    expect(draft.warnings).toHaveLength(1);
    expect(draft.warnings[0].message).toMatch(/no user stories/);
  });
});
