import { describe, expect, it } from 'vitest';
import { strFromU8, unzipSync } from 'fflate';
import { buildFrontendBundle, zipToBuffer } from '../../src/frontend/index.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { todoScode } from '../support/examples.ts';

const API = 'http://localhost:8080/apps/0190a1b2-0000-7000-8000-000000000001/api/v1.0.1';
const todo = (): AppDefinition => todoScode() as unknown as AppDefinition;

/** The JSON literal assigned to `SCHEMA` in schema.js. */
function schemaOf(files: { path: string; content: string }[]) {
  const text = files.find((f) => f.path === 'schema.js')!.content;
  return JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as {
    models: Array<{ resource: string; fields: Array<{ name: string; input: string; required: boolean; enum?: unknown[]; default?: unknown; ref?: string; many: boolean }> }>;
    navigation: Array<{ label: string; href: string }>;
    auth: { userResource: string; signupFields: string[] } | null;
  };
}

describe('frontend bundle', () => {
  const files = buildFrontendBundle({ definition: todo(), serverVersion: '1.0.1', apiBaseUrl: API });
  const file = (path: string) => files.find((f) => f.path === path)?.content ?? '';

  it('has the files of a static app', () => {
    const paths = files.map((f) => f.path);
    for (const path of ['index.html', 'app.js', 'styles.css', 'config.js', 'schema.js', 'README.md', 'lib/api.js', 'lib/fields.js', 'lib/list.js', 'lib/record.js', 'lib/auth.js']) {
      expect(paths).toContain(path);
    }
    for (const f of files) expect(f.content.length).toBeGreaterThan(0);
    // No framework, no CDN.
    for (const f of files) expect(f.content).not.toMatch(/https?:\/\/(cdn|unpkg|esm\.sh|cdnjs)/);
  });

  it('configures the API base URL in config.js, first thing', () => {
    expect(file('config.js').split('\n')[0]).toBe(`export const API_BASE_URL = ${JSON.stringify(API)};`);
    expect(file('lib/api.js')).toContain("import { API_BASE_URL } from '../config.js'");
    expect(files.filter((f) => f.content.includes(API)).map((f) => f.path).sort()).toEqual(['README.md', 'config.js']);
  });

  it('embeds a data-driven description of the models', () => {
    const schema = schemaOf(files);
    expect(schema.models.map((m) => m.resource)).toEqual(['toDos', 'users']);
    const toDo = schema.models[0];
    const field = (name: string) => toDo.fields.find((f) => f.name === name)!;
    expect(field('title')).toMatchObject({ input: 'text', required: true });
    expect(field('deadline')).toMatchObject({ input: 'datetime', required: false });
    expect(field('status')).toMatchObject({ input: 'enum', enum: ['open', 'done'], default: 'open' });
    expect(field('user')).toMatchObject({ input: 'relation', ref: 'users', many: false });
    expect(schema.models[1].fields.find((f) => f.name === 'todos')).toMatchObject({ input: 'relation', ref: 'toDos', many: true });
    expect(schema.auth).toEqual({ userResource: 'users', signupFields: ['name', 'email'], hasEmail: true });
    // The sitemap's pages as navigation (detail routes excluded), then the models no entry reaches.
    expect(schema.navigation).toEqual([
      { label: 'My to-dos', description: 'The open to-dos, nearest deadline first.', href: '#/toDos' },
      { label: 'Users', description: '', href: '#/users' },
    ]);
  });

  it('falls back to one navigation entry per model without a sitemap', () => {
    const definition = todo();
    definition.appDraft = null;
    const schema = schemaOf(buildFrontendBundle({ definition, serverVersion: '1.0.1', apiBaseUrl: API }));
    expect(schema.navigation.map((n) => n.href)).toEqual(['#/toDos', '#/users']);
  });

  it('has accessible markup: labels bound to inputs, a live region, a title', () => {
    const html = file('index.html');
    expect(html).toContain('<title>To-do</title>');
    expect(html).toMatch(/aria-live="polite"/);
    expect(html).toContain('<main id="main"');
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('name="viewport"');
    // Static inputs in the HTML have labels; generated ones are labelled by id in lib/.
    const ids = [...html.matchAll(/<(?:input|select|textarea)[^>]*\bid="([^"]+)"/g)].map((m) => m[1]);
    for (const id of ids) expect(html).toContain(`for="${id}"`);
    const fields = file('lib/fields.js');
    expect(fields).toContain("h('label', { for: inputId(field.name) }");
    expect(fields).toContain("'aria-describedby': errorId(field.name)");
    expect(fields).toContain("setAttribute('aria-invalid', 'true')");
    expect(file('lib/list.js')).toContain("h('label', { for: 'filter' }");
    expect(file('lib/auth.js')).toContain("h('label', { for: 'f-email' }");
    expect(file('styles.css')).toContain(':focus-visible');
    expect(file('styles.css')).toContain('@media');
  });

  it('escapes the application name in HTML', () => {
    const definition = todo();
    definition.appOverview = { ...definition.appOverview!, name: '<b>"Tasks" & co</b>' };
    const html = buildFrontendBundle({ definition, serverVersion: '1.0.1', apiBaseUrl: API }).find((f) => f.path === 'index.html')!.content;
    expect(html).toContain('<title>&lt;b&gt;&quot;Tasks&quot; &amp; co&lt;/b&gt;</title>');
  });

  it('zips to an archive that unzips with fflate to the same files, byte for byte and reproducibly', async () => {
    const zip = await zipToBuffer(files);
    const entries = unzipSync(new Uint8Array(zip));
    expect(Object.keys(entries).sort()).toEqual(files.map((f) => f.path).sort());
    for (const f of files) expect(strFromU8(entries[f.path])).toBe(f.content);
    expect((await zipToBuffer(files)).equals(zip)).toBe(true);
  });
});
