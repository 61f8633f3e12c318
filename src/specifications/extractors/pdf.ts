/**
 * PDF (DESIGN §13): the text of each page (unpdf, Mozilla's PDF.js built for servers: no
 * canvas, no native build), then the Markdown rules on it, page by page, with locators
 * `page 3`. A story table exported to PDF arrives as lines, one cell fragment each; its
 * rows are read from the header row's columns (stories.ts). A PDF without text (a scan)
 * gives a warning: there is no OCR here. A PDF of more pages than the limit is refused before
 * any page is read.
 */
import type { getDocumentProxy } from 'unpdf';
import { readMarkdown, warnIfEmpty } from './markdown.ts';
import { addStories, storiesInTable } from './stories.ts';
import type { StoryTable } from './stories.ts';
import { ExtractionError, emptyDraft } from './types.ts';
import { DOCUMENT_LIMITS, formatCount, pastLimit } from '../limits.ts';
import type { Extractor } from './types.ts';

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

/** Each page's text; a damaged page stream fails the whole read with the parser's reason. */
async function pageTexts(pdf: PdfDocument, name: string): Promise<string[]> {
  const { extractText } = await loadUnpdf();
  try {
    return (await extractText(pdf, { mergePages: false })).text;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ExtractionError(`the text of ${name} could not be read: ${message}`);
  }
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
    const text = await pageTexts(pdf, input.name);
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
