// The caps each extractor applies before and while parsing (src/specifications/limits.ts): a
// document past one is refused with a message naming the cap, quickly, instead of being read
// for minutes; documents under them read as before (the extractor tests).
import { describe, expect, it } from 'vitest';
import { extractorFor } from '../../src/specifications/extractors/index.ts';
import type { AttachmentKind } from '../../src/specifications/extractors/types.ts';
import { buildSpecification } from '../../src/specifications/build.ts';
import { manyKeysYaml, manyPagePdf, nestedYaml, wideSqlTable } from '../support/hostile-documents.ts';

async function read(kind: AttachmentKind, name: string, bytes: Buffer) {
  return extractorFor(kind)!({ attachmentId: 'a', name, kind, bytes });
}

describe('document caps', () => {
  it('refuses a PDF of more pages than the limit before reading any page', async () => {
    await expect(read('pdf', 'long.pdf', manyPagePdf(501))).rejects.toThrow('the PDF has 501 pages, more than the limit of 500 pages');
    expect((await read('pdf', 'short.pdf', manyPagePdf(3))).requirements).toHaveLength(3);
  });

  it('refuses YAML nested too deep, of too many values, or too long, before parsing it', async () => {
    await expect(read('openapi', 'nested.yaml', nestedYaml(2_000_000))).rejects.toThrow('the YAML document nests collections deeper than the limit of 128 levels');
    const blocks = Array.from({ length: 130 }, (_, i) => `${' '.repeat(i)}a:\n`).join('');
    await expect(read('openapi', 'blocks.yaml', Buffer.from(`openapi: 3.0.3\nx:\n${blocks.replace(/^/gm, '  ')}`))).rejects.toThrow('deeper than the limit of 128 levels');
    await expect(read('openapi', 'keys.yaml', manyKeysYaml(80_000))).rejects.toThrow('the YAML document holds more values than the limit of 150,000 (send it as JSON)');
    const long = Buffer.from(`openapi: 3.0.3\ndescription: "${'x'.repeat(4 * 1024 * 1024)}"\n`);
    await expect(read('openapi', 'long.yaml', long)).rejects.toThrow('characters long (send a longer one as JSON), more than the limit of 4,194,304 characters of YAML');
    // Aliases of aliases ("billion laughs"): the parser's own bound refuses them.
    const laughs = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]', ...['b', 'c', 'd', 'e'].map((n, i) => `${n}: &${n} [${Array(9).fill(`*${'abcd'[i]}`).join(', ')}]`)];
    const aliases = `openapi: 3.0.3\n${laughs.join('\n')}\n`;
    await expect(read('openapi', 'aliases.yaml', Buffer.from(aliases))).rejects.toThrow('more than the limit of 1,000 aliases');
    // JSON is parsed natively at any size, its nesting checked on the value.
    const deepJson = `{"openapi": "3.0.3", "x": ${'['.repeat(200)}${']'.repeat(200)}}`;
    await expect(read('openapi', 'deep.json', Buffer.from(deepJson))).rejects.toThrow('the document nests collections deeper than the limit of 128 levels');
  });

  it('refuses a SQL table of more columns than a model may have, a CREATE TABLE too long to parse, and too many tables', async () => {
    await expect(read('sql', 'wide.sql', wideSqlTable(50_000))).rejects.toThrow('the CREATE TABLE statement at line 1 is 788,908 characters long, more than the limit of 262,144 characters per statement');
    await expect(read('sql', 'wide.sql', wideSqlTable(1001))).rejects.toThrow('table wide has 1,001 columns, more than the limit of 1,000 columns per table');
    const tables = Array.from({ length: 1001 }, (_, i) => `CREATE TABLE t${i} (id int primary key);`).join('\n');
    await expect(read('sql', 'many.sql', Buffer.from(tables))).rejects.toThrow('the script defines more tables than the limit of 1,000 (at line 1001)');
    // A long statement describing no table (a bulk INSERT) is not parsed, only counted.
    const insert = `CREATE TABLE pet (id int primary key, name text);\nINSERT INTO pet VALUES ${Array.from({ length: 30_000 }, (_, i) => `(${i}, 'p${i}')`).join(', ')};\n`;
    const draft = await read('sql', 'data.sql', Buffer.from(insert));
    expect(draft.models.map((m) => m.name)).toEqual(['pet']);
    expect(draft.warnings.map((w) => w.message)).toContainEqual(expect.stringContaining('rows for 1 table (pet (1 statement))'));
  });

  it('refuses a CSV header of more columns than a model may have', async () => {
    const header = Array.from({ length: 50_000 }, (_, i) => `c${i}`).join(',');
    await expect(read('csv', 'wide.csv', Buffer.from(`${header}\n${header}\n`))).rejects.toThrow('the header has 50,000 columns, more than the limit of 1,000 columns');
  });

  it('fails a build whose documents describe more requirements than a definition holds, naming the limit', async () => {
    const stories = Array.from({ length: 1001 }, (_, i) => `- As a reader, I want book ${i}, so that I read ${i}.`).join('\n');
    const prd = { id: 'p', name: 'prd.md', kind: 'markdown' as const, bytes: Buffer.from(`# Library\n\n${stories}\n`) };
    await expect(buildSpecification('Library', [prd])).rejects.toThrow(
      'prd.md (markdown) could not be read: the document describes 1,001 requirements (user stories), more than the limit of 1,000 requirements (user stories)',
    );
  });
});
