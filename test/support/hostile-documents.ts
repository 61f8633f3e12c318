// Documents an attacker uploads to stall the service, made here (test inputs, not parsers): a
// PDF of many pages (a minimal valid PDF: one shared content stream, one small page object per
// page, a cross-reference table), a YAML OpenAPI document nested 400,000 levels deep, a YAML
// mapping of many keys, a SQL table of 50,000 columns, and a text of blank lines.

/** A valid PDF of `pages` pages, each showing the same user story (~150 bytes a page: 20,000 pages ≈ 3 MB). */
export function manyPagePdf(pages: number): Buffer {
  const text = 'As a reader, I want to borrow a book, so that I can read it at home.';
  const content = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects: string[] = [];
  const first = 5;
  const kids = Array.from({ length: pages }, (_, i) => `${first + i} 0 R`).join(' ');
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`);
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  for (let i = 0; i < pages; i++) {
    objects.push('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>');
  }
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/**
 * An OpenAPI document in YAML whose one schema is flow mappings nested `{a: {a: …}}` to fill
 * `chars` characters (2,000,000: 400,000 levels), under 2 MiB, so a parser that reads YAML of
 * that size whole takes it on.
 */
export function nestedYaml(chars: number): Buffer {
  const header = 'openapi: 3.0.3\ninfo:\n  title: Deep\n  version: "1"\npaths: {}\ncomponents:\n  schemas:\n    Deep: ';
  const levels = Math.floor((chars - header.length - 1) / 5);
  return Buffer.from(`${header}${'{a: '.repeat(levels)}1${'}'.repeat(levels)}\n`);
}

/**
 * An OpenAPI document in YAML with one block mapping of `keys` keys (70,000: ~830 KB): `yaml`'s
 * duplicate-key check compares each key with every other (8 minutes for 74,000), and even
 * without it each value costs it tens of microseconds.
 */
export function manyKeysYaml(keys: number): Buffer {
  const lines = Array.from({ length: keys }, (_, i) => `  key${i}: ${i}\n`).join('');
  return Buffer.from(`openapi: 3.0.3\ninfo:\n  title: Keys\n  version: "1"\npaths: {}\nx-keys:\n${lines}`);
}

/** One CREATE TABLE of `columns` integer columns (50,000: ~790 KB). */
export function wideSqlTable(columns: number): Buffer {
  return Buffer.from(`CREATE TABLE wide (${Array.from({ length: columns }, (_, i) => `c${i} integer`).join(', ')});\n`);
}

/** `bytes` of line breaks: a text whose every line is empty. */
export function blankLines(bytes: number): Buffer {
  return Buffer.from('\r\n'.repeat(Math.floor(bytes / 2)));
}
