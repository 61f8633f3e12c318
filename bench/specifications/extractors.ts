// `npm run bench:extractors`: the document extractors this repository ships (CSV, Markdown, PDF,
// Figma) against a baseline doing the same parsing alone in the same run: csv-parse over the
// same bytes without our column inference; marked's lexer over the same Markdown without our rules;
// PDF.js text extraction without our rules; JSON.parse of the Figma file. The CSV case also
// takes a 25 MiB file (the attachment limit) and prints the process's peak RSS growth (the
// extractor streams rows instead of loading them) and how often a 20 ms timer fired meanwhile.
// Prints figures and ratios; asserts nothing.
//
// Environment: BENCH_ROUNDS (default 5), BENCH_CSV_MB (the large CSV, default 25).
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { extractText, getDocumentProxy } from 'unpdf';
import { extractCsv } from '../../src/specifications/extractors/csv.ts';
import { extractFigma } from '../../src/specifications/extractors/figma.ts';
import { Lexer } from 'marked';
import { extractMarkdown } from '../../src/specifications/extractors/markdown.ts';
import { extractPdf } from '../../src/specifications/extractors/pdf.ts';
import type { AttachmentKind, Extractor } from '../../src/specifications/extractors/types.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CSV_MB = Number(process.env.BENCH_CSV_MB ?? 25);

function fixture(path: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`../../test/fixtures/${path}`, import.meta.url)));
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

function middle(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Median milliseconds of ours and of the baseline, after one warm-up each, in alternating
 * rounds so that load from other processes falls on both alike.
 */
async function compare(ours: () => Promise<unknown>, baseline: () => Promise<unknown>, rounds = ROUNDS): Promise<[number, number]> {
  await ours();
  await baseline();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(await timed(ours));
    b.push(await timed(baseline));
  }
  return [middle(a), middle(b)];
}

async function csvParseOnly(bytes: Uint8Array): Promise<number> {
  let rows = 0;
  const parser = Readable.from([Buffer.from(bytes)]).pipe(parse({ bom: true, relax_column_count: true }));
  for await (const _row of parser) rows += 1;
  return rows;
}

async function pdfTextOnly(bytes: Uint8Array): Promise<number> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  const { text } = await extractText(pdf, { mergePages: false });
  await pdf.loadingTask.destroy();
  return text.length;
}

interface Case {
  label: string;
  kind: AttachmentKind;
  extract: Extractor;
  bytes: Uint8Array;
  baselineLabel: string;
  baseline: (bytes: Uint8Array) => Promise<unknown>;
}

function syntheticCsv(megabytes: number): Uint8Array {
  const rows = [
    '42,2024-01-31,yes,https://example.com/item/1,alpha,+1 415-555-0132,Smith',
    '7.5,2023-12-01,no,https://example.org/x,beta,(415) 555-0199,"Doe, Jane"',
    '-3,2022-06-30,yes,http://example.net,gamma,+44 20 7946 0958,O\'Brien',
  ];
  const block = rows.join('\n') + '\n';
  const count = Math.ceil((megabytes * 1024 * 1024) / block.length);
  return new TextEncoder().encode('n,day,ok,link,group,phone,name\n' + block.repeat(count));
}

async function main(): Promise<void> {
  const cases: Case[] = [
    { label: 'CSV congress-terms.csv (1.3 MB, 18,635 rows)', kind: 'csv', extract: extractCsv, bytes: fixture('csv/congress-terms.csv'), baselineLabel: 'csv-parse alone', baseline: csvParseOnly },
    { label: 'Markdown Simpler.Grants.gov deliverable (16 KB)', kind: 'markdown', extract: extractMarkdown, bytes: fixture('markdown/simpler-grants-get-opportunities.md'), baselineLabel: 'marked lexer alone', baseline: async (b) => Lexer.lex(new TextDecoder().decode(b), { gfm: true }) },
    { label: 'PDF NUS user stories (68 KB, 1 page)', kind: 'pdf', extract: extractPdf, bytes: fixture('pdf/nus-user-stories.pdf'), baselineLabel: 'PDF.js text alone', baseline: pdfTextOnly },
    { label: 'Figma Figmagic file (1.9 MB JSON)', kind: 'figma', extract: extractFigma, bytes: fixture('figma/figmagic-design-system-template.json'), baselineLabel: 'JSON.parse alone', baseline: async (b) => JSON.parse(new TextDecoder().decode(b)) },
  ];
  console.log(`extractors: median of ${ROUNDS} rounds alternating with the baseline in the same run\n`);
  for (const c of cases) {
    const input = { attachmentId: 'bench', name: c.label, kind: c.kind, bytes: c.bytes };
    const [ours, base] = await compare(() => c.extract(input), () => c.baseline(c.bytes));
    console.log(`${c.label}\n  extractor ${ours.toFixed(1)} ms · ${c.baselineLabel} ${base.toFixed(1)} ms · ratio ${(ours / base).toFixed(2)}`);
  }

  const big = syntheticCsv(CSV_MB);
  const input = { attachmentId: 'bench', name: 'big.csv', kind: 'csv' as const, bytes: big };
  // Warm-up and two alternating rounds against csv-parse alone.
  const [ours, base] = await compare(() => extractCsv(input), () => csvParseOnly(big), 2);
  // Then one more run of ours alone, its RSS sampled every 20 ms (the timer fires because
  // the extractor gives the event loop a turn between chunks).
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  let samples = 0;
  const sampler = setInterval(() => {
    samples += 1;
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  await extractCsv(input);
  clearInterval(sampler);
  const mib = (n: number) => (n / 1024 / 1024).toFixed(0);
  console.log(
    `CSV synthetic ${(big.length / 1024 / 1024).toFixed(1)} MiB (7 columns: number, date, boolean, link, enum, phone, text)\n` +
      `  extractor ${ours.toFixed(0)} ms (${(big.length / 1024 / 1024 / (ours / 1000)).toFixed(1)} MiB/s) · csv-parse alone ${base.toFixed(0)} ms · ratio ${(ours / base).toFixed(2)}\n` +
      `  RSS ${mib(rssBefore)} MiB before (file in memory), peak ${mib(peak)} MiB during one extraction (+${mib(peak - rssBefore)}; ${samples} samples, so the event loop kept turning)`,
  );
}

await main();
