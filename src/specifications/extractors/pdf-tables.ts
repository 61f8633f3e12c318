/**
 * Field tables in a PDF (DESIGN §13, issue 47): a reference manual lists each entity's fields in
 * a table ("Field | Required | Type | Description") under a section heading ("6.5
 * VISIT_OCCURRENCE"). A page's plain text runs the cells of a row together, so the table is read
 * from where PDF.js places each piece of text: a line whose cells name a field column and a type
 * column is a header, its cells' left edges the columns; a line with text in the first column
 * starts a row, a line without continues the cells of the row above (wrapped descriptions); any
 * other line ends the table. A header repeated at the top of the next page continues the table.
 * The section heading is the nearest numbered heading above it ("6.5 …", not "6.5.1
 * Conventions" under it). Rows become fields by the Markdown table rules (markdown-tables.ts).
 */
import { isEntityTable } from './markdown-tables.ts';
import type { EntityTable } from './markdown-tables.ts';

/** A piece of text where the page puts it: left edge `x`, baseline `y` (upwards), glyph height. */
export interface PlacedText {
  text: string;
  x: number;
  y: number;
  height: number;
}

interface Line {
  y: number;
  items: PlacedText[];
}

/** How far apart two pieces may sit and still share a line or a column, in PDF units (1/72 inch). */
const SAME_LINE = 2;
const SAME_COLUMN = 3;
const NUMBERED = /^\d+(?:\.\d+)*\.?$/;

/** The page's pieces of text as lines, top to bottom, each left to right. */
function linesOf(items: PlacedText[]): Line[] {
  const sorted = items.filter((i) => i.text.trim()).sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: Line[] = [];
  for (const item of sorted) {
    const last = lines[lines.length - 1];
    if (last && Math.abs(last.y - item.y) <= SAME_LINE) last.items.push(item);
    else lines.push({ y: item.y, items: [item] });
  }
  for (const line of lines) line.items.sort((a, b) => a.x - b.x);
  return lines;
}

const textOf = (items: PlacedText[]) => items.map((i) => i.text.trim()).join(' ').replace(/\s+/g, ' ').trim();

/** The column a piece of text falls in: the last whose left edge is at or before it. */
function columnOf(columns: number[], x: number): number {
  let found = 0;
  columns.forEach((start, i) => {
    if (x + SAME_COLUMN >= start) found = i;
  });
  return found;
}

const YES_NO = /^(?:yes|no)$/i;

/**
 * A row as its cells mean, where the document set them a column off: a type under "Required" and
 * "Yes"/"No" under "Type" (swapped back), "varchar(50) No" in one cell, or the field, its type and
 * its mark run together in the first cell ("discharge_to_source_value varchar(50) No").
 */
function straightened(header: string[], row: string[]): string[] {
  const required = header.findIndex((h) => /^required$/i.test(h));
  const type = header.findIndex((h) => /^(?:type|data\s*type)$/i.test(h));
  if (required < 0 || type < 0) return row;
  const out = [...row];
  const words = (out[0] ?? '').split(/\s+/);
  if (!out[type] && !out[required] && words.length >= 3 && YES_NO.test(words[words.length - 1]!)) {
    out[0] = words[0]!;
    out[type] = words.slice(1, -1).join(' ');
    out[required] = words[words.length - 1]!;
    return out;
  }
  const joined = /^(.*\S)\s+(yes|no)$/i.exec(out[required] ?? '');
  if (!out[type] && joined) {
    out[type] = joined[1]!;
    out[required] = joined[2]!;
  } else if (YES_NO.test(out[type] ?? '') && out[required] && !YES_NO.test(out[required]!)) {
    [out[type], out[required]] = [out[required]!, out[type]!];
  }
  return out;
}

interface OpenTable {
  table: EntityTable;
  columns: number[];
  cells: string[][];
}

/**
 * The field tables of a document's pages (each a list of placed texts), with `place(page, text)`
 * giving each table's and row's line number for the caller's locators.
 */
export function fieldTablesOf(pages: PlacedText[][], place: (page: number, what: string) => number): EntityTable[] {
  const tables: EntityTable[] = [];
  let headings: { depth: number; text: string }[] = [];
  let open: OpenTable | undefined;
  let headingSince = false;
  const close = () => {
    if (open && open.table.rows.length > 0) tables.push(open.table);
    open = undefined;
  };
  pages.forEach((items, index) => {
    const page = index + 1;
    for (const line of linesOf(items)) {
      const cells = line.items.map((i) => i.text.trim());
      // a page number alone on its line is the page's footer, never part of a table
      if (cells.length === 1 && /^\d+$/.test(cells[0]!)) continue;
      if (isEntityTable(cells)) {
        const same = open && !headingSince && open.table.header.join('\u0000') === cells.join('\u0000');
        // a header repeated on the next page continues the table, at that page's column edges
        if (same) open!.columns = line.items.map((i) => i.x);
        else {
          close();
          open = {
            table: { headings: headings.map((h) => h.text).reverse(), header: cells, rows: [], line: place(page, cells.join(' | ')) },
            columns: line.items.map((i) => i.x),
            cells: [],
          };
        }
        headingSince = false;
        continue;
      }
      if (open) {
        const first = line.items[0]!;
        const byColumn = open.columns.map(() => [] as PlacedText[]);
        for (const item of line.items) byColumn[columnOf(open.columns, item.x)]!.push(item);
        const inFirst = byColumn[0]!.length > 0;
        if (inFirst && Math.abs(first.x - open.columns[0]!) <= SAME_COLUMN && byColumn.filter((c) => c.length > 0).length >= 2) {
          const row = straightened(open.table.header, byColumn.map(textOf));
          open.table.rows.push({ cells: row, line: place(page, row[0]!) });
          continue;
        }
        if (!inFirst && open.table.rows.length > 0) {
          const row = open.table.rows[open.table.rows.length - 1]!;
          byColumn.forEach((column, i) => {
            if (column.length > 0) row.cells[i] = `${row.cells[i] ?? ''} ${textOf(column)}`.trim();
          });
          continue;
        }
        close();
      }
      // "6.5 VISIT_OCCURRENCE": a numbered heading; its depth from the number's parts
      if (cells.length >= 2 && NUMBERED.test(cells[0]!)) {
        const depth = cells[0]!.replace(/\.$/, '').split('.').length;
        headings = [...headings.filter((h) => h.depth < depth), { depth, text: textOf(line.items.slice(1)) }];
        headingSince = true;
      }
    }
  });
  close();
  return tables;
}
