// The kind of an attachment comes from its content (DESIGN §13); the name and the declared type
// only break ties between text formats. Documents made here, small, for the edges; the real
// fixtures are detected over HTTP in api.test.ts.
import { describe, expect, it } from 'vitest';
import { detectKind, KIND_HEAD_BYTES } from '../../src/specifications/kind.ts';

const text = (s: string) => Buffer.from(s, 'utf8');

describe('attachment kind', () => {
  it.each([
    ['OpenAPI 3 in YAML under a neutral name', 'openapi: 3.0.3\ninfo: {title: T, version: "1"}\npaths: {}\n', 'spec.txt', 'openapi'],
    ['Swagger 2 in JSON with a number version', '{"swagger": 2.0, "info": {}, "paths": {}}', 'upload', 'openapi'],
    ['a JSON Schema without $schema, by its shape', '{"type": "object", "properties": {"name": {"type": "string"}}}', 'x', 'jsonschema'],
    ['a JSON Schema with $defs in YAML', '$defs:\n  Pet:\n    type: object\n', 'pet.yml', 'jsonschema'],
    ['a Figma file', '{"name": "File", "document": {"id": "0:0", "type": "DOCUMENT", "children": []}}', 'design.json', 'figma'],
    ['JSON that is none of those', '{"hello": "world"}', 'data.json', 'text'],
    ['SQL DDL in lower case after a comment', '-- schema\ncreate table if not exists pet (id serial primary key, name text not null);\n', 'schema', 'sql'],
    ['a PostgreSQL enum type alone', "CREATE TYPE mood AS ENUM ('sad', 'ok');\n", 'types', 'sql'],
    ['a data-only pg_dump (COPY … FROM stdin)', 'SET client_encoding = \'UTF8\';\n\nCOPY public.actor (actor_id, first_name) FROM stdin;\n1\tPENELOPE\n\\.\n', 'data', 'sql'],
    ['MySQL multi-row INSERTs only', "USE shop;\nINSERT INTO `pet` VALUES (1,'Rex'),\n(2,'Tom');\n", 'data', 'sql'],
    ['a SQL script by its name, its head only settings', 'SET NAMES utf8mb4;\nSET FOREIGN_KEY_CHECKS = 0;\n', 'dump.sql', 'sql'],
    ['a CSV with a Latin-1 byte', 'name,city\nJos\u00e9,M\u00e1laga\nAnn,Oslo\n', 'people', 'csv'],
    ['Markdown by its headings', '# Product\n\nSome words.\n\n## Users\n\n- As a reader, I want books.\n', 'prd', 'markdown'],
    ['Markdown by its name, without headings', 'Plain words, no heading.\n', 'notes.md', 'markdown'],
    ['a SQL statement inside a Markdown file stays Markdown', '# Schema\n\n```sql\nCREATE TABLE pet (id int);\n```\n', 'schema.md', 'markdown'],
    ['CSV with semicolons', 'name;price;in_stock\napple;1.5;true\npear;2;false\n', 'export', 'csv'],
    ['a quoted CSV field with a comma', 'name,note\n"Smith, Ann","says ""hi"""\nBob,ok\n', 'people', 'csv'],
    ['lines of text with uneven commas', 'Dear team, thanks.\nSee you tomorrow.\nBest, me, again\n', 'letter', 'text'],
    ['SVG (text, an image)', '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>', 'logo.svg', 'image'],
  ])('%s', async (label, content, name, kind) => {
    // the Latin-1 case is written byte for byte as Latin-1 (é is the single byte 0xE9), not UTF-8
    const bytes = label.includes('Latin-1') ? Buffer.from(content, 'latin1') : text(content);
    expect(await detectKind(bytes, name, 'application/octet-stream')).toBe(kind);
  });

  it('reads binary formats by their magic bytes', async () => {
    expect(await detectKind(text('%PDF-1.7\n%âãÏÓ\n1 0 obj\n'), 'doc', '')).toBe('pdf');
    const gif = Buffer.from('47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b', 'hex');
    expect(await detectKind(gif, 'x.csv', 'text/csv')).toBe('image');
    expect(await detectKind(Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x00, 0x10]), 'blob', '')).toBe('other');
    expect(await detectKind(new Uint8Array(0), 'empty.sql', '')).toBe('other');
  });
});

describe('attachment kind of large documents, from their head', () => {
  it('judges a large YAML document by the keys its lines start with, and a large JSON one by the members its head names', async () => {
    const paths = Array.from({ length: 60_000 }, (_, i) => `  /items/${i}:\n    get:\n      operationId: item${i}\n`).join('');
    const yaml = text(`openapi: "3.0.0"\ninfo:\n  title: Big\n  version: "1"\npaths:\n${paths}`);
    expect(yaml.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(await detectKind(yaml, 'big.yaml', '')).toBe('openapi');
    const json = text(JSON.stringify({ swagger: '2.0', info: {}, paths: Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`/items/${i}`, { get: {} }])) }));
    expect(await detectKind(json, 'big.json', '')).toBe('openapi');
    const schema = text(JSON.stringify({ $defs: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`T${i}`, { type: 'object' }])) }));
    expect(await detectKind(schema, 'defs.json', '')).toBe('jsonschema');
    // Only the head is read: what follows it never counts, and a head given with the whole size is judged alike.
    const head = yaml.subarray(0, KIND_HEAD_BYTES);
    expect(await detectKind(Buffer.concat([head, Buffer.alloc(1024 * 1024, 0)]), 'big.yaml', '')).toBe('openapi');
    expect(await detectKind(head, 'big.yaml', '', yaml.length)).toBe('openapi');
  });

  it('reads a head of blank lines, or of a YAML mapping too large to parse, in milliseconds', async () => {
    // Patterns with `^\s*` under the multiline flag backtracked across every line: 70 s for 64 KiB of line breaks.
    for (const [name, bytes] of [
      ['blank.txt', text('\r\n'.repeat(512 * 1024))],
      ['spaces.md', text(' \n'.repeat(512 * 1024))],
      ['keys.yaml', text(`openapi: 3.0.3\nx:\n${Array.from({ length: 70_000 }, (_, i) => `  k${i}: ${i}\n`).join('')}`)],
    ] as const) {
      const started = performance.now();
      await detectKind(bytes, name, '');
      expect(performance.now() - started, name).toBeLessThan(1000);
    }
  });
});
