/**
 * PDF (DESIGN §13): the text of each page (unpdf, Mozilla's PDF.js built for servers: no
 * canvas, no native build), then the Markdown rules on it, page by page, with locators
 * `page 3`. A story table exported to PDF arrives as lines, one cell fragment each; its
 * rows are read from the header row's columns (stories.ts); a field table ("Field | Type |
 * Description") from where its cells sit on the page (pdf-tables.ts). With `force` a page that
 * cannot be read is left out with a warning instead of failing the document. A PDF without text (a scan)
 * gives a warning: there is no OCR here. A PDF of more pages than the limit is refused before
 * any page is read.
 */
import type { getDocumentProxy } from 'unpdf';
import { readMarkdown, warnIfEmpty } from './markdown.ts';
import { addStories, storiesInTable } from './stories.ts';
import { fieldTablesOf, type PlacedText } from './pdf-tables.ts';
import { tablesToModels } from './markdown-tables.ts';
import type { StoryTable } from './stories.ts';
import { ExtractionError, emptyDraft } from './types.ts';
import { DOCUMENT_LIMITS, formatCount, pastLimit } from '../limits.ts';
import type { Draft, DraftWarning, Extractor } from './types.ts';

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

// Imported on first use: PDF.js is needed only while a PDF attachment is read (issue 28).
type Unpdf = typeof import('unpdf');
let unpdf: Promise<Unpdf> | undefined;
function loadUnpdf(): Promise<Unpdf> {
  unpdf ??= import('unpdf');
  return unpdf;
}

async function open(bytes: Uint8Array, name: string): Promise<PdfDocument> {
  const { getDocumentProxy } = await loadUnpdf();
  try {
    // PDF.js may detach the buffer it is given: hand it a copy, never the attachment itself.
    // Verbosity 0: its warnings about damaged files go to our message, not to stderr.
    return await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ExtractionError(`${name} is not a readable PDF: ${message}`);
  }
}

/**
 * Each page's text (as unpdf's extractText joins it) and its pieces of text with their places, in
 * one pass. A damaged page stream fails the whole read with the parser's reason, or, with `force`,
 * leaves that page out with a warning naming it.
 */
async function readPages(pdf: PdfDocument, name: string, force: boolean, warnings: DraftWarning[]): Promise<{ texts: string[]; placed: PlacedText[][] }> {
  const texts: string[] = [];
  const placed: PlacedText[][] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    try {
      const content = await (await pdf.getPage(n)).getTextContent();
      const items: PlacedText[] = [];
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
        items.push({ text: item.str, x: item.transform[4] as number, y: item.transform[5] as number, height: item.height });
      }
      texts.push(text);
      placed.push(items);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!force) throw new ExtractionError(`the text of ${name} could not be read: ${message}`);
      warnings.push({ locator: `page ${n}`, message: `the text of page ${n} could not be read (${message}): left out, as asked (force)` });
      texts.push('');
      placed.push([]);
    }
  }
  return { texts, placed };
}

/** Field tables read from the pages' text positions (pdf-tables.ts) become models, said in one warning. */
function addFieldTables(placed: PlacedText[][], draft: Draft): void {
  const places: string[] = [];
  const tables = fieldTablesOf(placed, (page, what) => places.push(what.includes(' | ') ? `page ${page}` : `page ${page}, ${what}`) - 1);
  if (tables.length === 0) return;
  const locate = (line: number) => places[line] ?? 'document';
  const models = tablesToModels(tables, draft.warnings, locate);
  // One entity over several tables (a section's table continued after a page of prose): one model.
  for (const model of models) {
    const same = draft.models.find((m) => m.name === model.name);
    if (same) same.fields.push(...model.fields.filter((f) => !same.fields.some((g) => g.name === f.name)));
    else draft.models.push(model);
  }
  const shown = draft.models.slice(0, 12).map((m) => `${m.name}, ${m.locator}`).join('; ');
  draft.warnings.push({
    locator: 'document',
    message: `${tables.length} field ${tables.length === 1 ? 'table' : 'tables'} read from the pages' layout as ${draft.models.length} ${draft.models.length === 1 ? 'model' : 'models'} (${shown}${draft.models.length > 12 ? ` and ${draft.models.length - 12} more` : ''})`,
  });
}

async function documentTitle(pdf: PdfDocument): Promise<string | undefined> {
  const { getMeta } = await loadUnpdf();
  const meta = await getMeta(pdf).catch(() => undefined);
  const title = (meta?.info as { Title?: unknown } | undefined)?.Title;
  return typeof title === 'string' && title.trim() ? title.trim() : undefined;
}

export const extractPdf: Extractor = async (input) => {
  const pdf = await open(input.bytes, input.name);
  const draft = emptyDraft();
  try {
    // The page count is the document's own (its page tree), known before any page is read.
    if (pdf.numPages > DOCUMENT_LIMITS.pdfPages) throw pastLimit(`the PDF has ${formatCount(pdf.numPages)} pages`, DOCUMENT_LIMITS.pdfPages, 'pages');
    const { texts: text, placed } = await readPages(pdf, input.name, input.force === true, draft.warnings);
    const totalPages = text.length;
    draft.title = await documentTitle(pdf);
    let withText = 0;
    let table: StoryTable | undefined;
    for (const [index, pageText] of text.entries()) {
      const locator = `page ${index + 1}`;
      const lines = pageText.split(/\r?\n/);
      if (pageText.trim()) withText += 1;
      if (draft.title === undefined) {
        const first = lines.find((line) => line.trim());
        if (first && first.trim().length <= 120) draft.title = first.trim();
      }
      const before = draft.requirements.length;
      await readMarkdown(pageText, draft, () => locator);
      if (draft.requirements.length === before) {
        const read = storiesInTable(lines, table);
        addStories(read.stories, locator, draft.personas, draft.requirements);
        // The table goes on over the next page only while its rows do.
        table = read.stories.length > 0 ? read.table : undefined;
      } else {
        table = undefined;
      }
    }
    if (draft.models.length === 0) addFieldTables(placed, draft);
    draft.description = totalPages === 1 ? '1 page' : `${totalPages} pages`;
    if (withText === 0) {
      draft.warnings.push({ locator: 'page 1', message: 'the PDF has no text layer (a scan?): nothing to read without OCR' });
    } else {
      warnIfEmpty(draft, 'document');
    }
    return draft;
  } finally {
    // Ends the document's worker side (fake worker here) so nothing of it outlives the job.
    await pdf.loadingTask.destroy();
  }
};
