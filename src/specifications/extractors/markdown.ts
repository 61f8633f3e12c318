/**
 * Markdown PRDs (DESIGN §13), read through marked's lexer (GFM tables included). marked
 * rather than micromark/mdast: on a 1 MB document it took 0.8 s where micromark took 27 s
 * on this machine. Both lex synchronously, so a long document is lexed in parts cut at
 * headings, with a turn of the event loop between them.
 * - the first H1 is the title;
 * - "As a …, I want …, so that …" anywhere (paragraphs, list items, headings, quotes, table
 *   rows) gives personas and requirements (stories.ts);
 * - under a heading about pages, screens, views or the sitemap, each list item and each
 *   sub-heading is a page ("**Dashboard:** overview …" → title and description);
 * - a table with field and type columns under an entity heading is a model
 *   (markdown-tables.ts).
 * Locators are source lines: `line 12`. The PDF extractor runs the same rules on page text.
 */
import type { Token, Tokens } from 'marked';
import { addStories, collapse, storiesInText, storyLeadIn, storyOfWant } from './stories.ts';
import type { Story } from './stories.ts';
import { isEntityTable, tablesToModels } from './markdown-tables.ts';
import type { EntityTable } from './markdown-tables.ts';
import { emptyDraft } from './types.ts';
import { decodeDocumentText } from '../text.ts';
import type { Draft, DraftPage, Extractor, Locator } from './types.ts';

// Imported on first use: only a Markdown or PDF attachment's extraction lexes Markdown (issue 28).
type Marked = typeof import('marked');
let marked: Promise<Marked> | undefined;
function loadMarked(): Promise<Marked> {
  marked ??= import('marked');
  return marked;
}

const PAGES_HEADING = /\b(?:pages?|screens?|views?|site\s*map|sitemap)\b/i;
const STORY_COLUMNS = { persona: /^as\s+an?\b/i, want: /^i\s+want\b/i, benefit: /^so\s+that\b/i };

/**
 * Inline tokens' text with formatting dropped and line breaks kept as spaces. `keepCode`
 * keeps backticks around inline code, where they mark values (`CHECK (\`a\` or \`b\`)`).
 */
function inlineText(tokens: Token[] | undefined, keepCode = false): string {
  if (!tokens) return '';
  return tokens
    .map((token): string => {
      if (token.type === 'codespan') return keepCode ? `\`${token.text}\`` : token.text;
      if (token.type === 'br') return ' ';
      if (token.type === 'html') return '';
      if ('tokens' in token && token.tokens) return inlineText(token.tokens, keepCode);
      return 'text' in token && typeof token.text === 'string' ? token.text : '';
    })
    .join('');
}

function newlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count += 1;
  return count;
}

/** "**Main Dashboard:** Operational overview …" → title and description. */
function pageFromItem(item: Tokens.ListItem, locator: Locator): DraftPage | undefined {
  const first = item.tokens.find((t) => t.type === 'text' || t.type === 'paragraph') as Tokens.Text | Tokens.Paragraph | undefined;
  if (!first) return undefined;
  const inline = first.tokens ?? [];
  const lead = inline[0];
  let title: string;
  let rest: string;
  if (lead && lead.type === 'strong') {
    title = inlineText([lead]);
    rest = inlineText(inline.slice(1));
  } else {
    const text = inline.length > 0 ? inlineText(inline) : first.text;
    const split = /^(.{1,80}?)(?::\s+|\s+[-–—]\s+)(.*)$/s.exec(text);
    title = split ? split[1] : text;
    rest = split ? split[2] : '';
  }
  title = collapse(title).replace(/[:\-–—\s]+$/, '');
  const description = collapse(rest).replace(/^[:\-–—\s]+/, '');
  if (!title || title.length > 80) return undefined;
  const page: DraftPage = { title, locator };
  if (description) page.description = description;
  return page;
}

/** A table whose header reads "As a … | I want … | So that …": one story per row. */
function storiesFromTable(table: Tokens.Table): Story[] | undefined {
  const header = table.header.map((cell) => collapse(inlineText(cell.tokens)));
  const col = (pattern: RegExp) => header.findIndex((h) => pattern.test(h));
  const [p, w, b] = [col(STORY_COLUMNS.persona), col(STORY_COLUMNS.want), col(STORY_COLUMNS.benefit)];
  if (p < 0 || w < 0) return undefined;
  const stories: Story[] = [];
  for (const row of table.rows) {
    const cell = (i: number) => (i >= 0 && row[i] ? collapse(inlineText(row[i].tokens)) : '');
    const persona = cell(p);
    const want = cell(w).replace(/^I\s+want\s+(?:to\s+)?/i, '');
    const benefit = cell(b).replace(/^so\s+that\s+/i, '');
    if (persona && want) stories.push(benefit ? { persona, want, benefit } : { persona, want });
  }
  return stories;
}

/** Characters lexed before the event loop gets a turn (the lexer itself is synchronous). */
const PART = 256 * 1024;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING_LINE = /^ {0,3}#{1,6}(?:\s|$)/;

/**
 * The document cut into parts of about PART characters, each starting at a heading line
 * outside fenced code, where no list, table or paragraph can run on from the part before;
 * with the line each part starts at.
 */
function parts(text: string): { text: string; line: number }[] {
  const lines = text.split('\n');
  const result: { text: string; line: number }[] = [];
  let start = 0;
  let size = 0;
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (open && (fence === undefined || open[1][0] === fence[0])) fence = fence === undefined ? open[1] : undefined;
    if (fence === undefined && size >= PART && HEADING_LINE.test(lines[i])) {
      result.push({ text: lines.slice(start, i).join('\n') + '\n', line: start + 1 });
      start = i;
      size = 0;
    }
    size += lines[i].length + 1;
  }
  result.push({ text: lines.slice(start).join('\n'), line: start + 1 });
  return result;
}

/**
 * The Markdown rules over one document, adding to `draft`. `locate` turns a source line
 * into a locator (`line 12` for Markdown, `page 3` for PDF text).
 */
export async function readMarkdown(text: string, draft: Draft, locate: (line: number) => Locator): Promise<void> {
  const { Lexer } = await loadMarked();
  const entityTables: EntityTable[] = [];
  /** Tables that are neither field tables nor story tables: reported, so none is dropped unsaid. */
  const otherTables: Array<{ line: number; header: string }> = [];
  /** The open headings, outermost first: a table's entity is named by the nearest that names one. */
  let headings: { depth: number; text: string }[] = [];
  let pagesDepth: number | undefined;
  const story = (inline: string, line: number) =>
    addStories(storiesInText(inline), locate(line), draft.personas, draft.requirements);

  /**
   * "As a **X**, I want:" followed by a nested list: each nested item is a story of X. Says
   * whether the item was read so.
   */
  const visitLeadIn = (item: Tokens.ListItem, line: number): boolean => {
    const [lead, ...rest] = item.tokens;
    const nested = rest.find((t): t is Tokens.List => t.type === 'list');
    const readable = lead && (lead.type === 'text' || lead.type === 'paragraph') && nested;
    const leadIn = readable ? storyLeadIn(inlineText((lead as Tokens.Text).tokens) || (lead as Tokens.Text).text) : undefined;
    if (!leadIn || !nested) return false;
    // The persona is where the lead-in names it, not at its first want.
    const persona = leadIn.persona;
    if (!draft.personas.some((p) => p.name.toLowerCase() === persona.toLowerCase())) draft.personas.push({ name: persona, locator: locate(line) });
    let wantLine = line;
    for (const t of item.tokens.slice(0, item.tokens.indexOf(nested))) wantLine += newlines(t.raw);
    for (const want of nested.items) {
      const first = want.tokens.find((t) => t.type === 'text' || t.type === 'paragraph') as Tokens.Text | undefined;
      const story = first ? storyOfWant(leadIn, inlineText(first.tokens) || first.text) : undefined;
      if (story) addStories([story], locate(wantLine), draft.personas, draft.requirements);
      wantLine += newlines(want.raw);
    }
    return true;
  };

  /** Stories in a block and the blocks inside it; `line` is where the block starts. */
  const visitStories = (token: Token, line: number): void => {
    if (token.type === 'paragraph' || token.type === 'heading' || token.type === 'text') {
      story(inlineText((token as Tokens.Paragraph).tokens) || (token as Tokens.Text).text, line);
    } else if (token.type === 'table') {
      const table = token as Tokens.Table;
      const tableStories = storiesFromTable(table);
      if (tableStories) addStories(tableStories, locate(line), draft.personas, draft.requirements);
      else table.rows.forEach((row, i) => story(row.map((cell) => inlineText(cell.tokens)).join(' '), line + 2 + i));
    } else if (token.type === 'list') {
      let itemLine = line;
      for (const item of (token as Tokens.List).items) {
        if (!visitLeadIn(item, itemLine)) for (const child of item.tokens) visitStories(child, itemLine);
        itemLine += newlines(item.raw);
      }
    } else if (token.type === 'blockquote') {
      for (const child of (token as Tokens.Blockquote).tokens) visitStories(child, line);
    }
  };

  const readTokens = (tokens: Token[], firstLine: number) => {
    let line = firstLine;
    for (const token of tokens) {
      const at = line;
      line += newlines(token.raw);
      visitStories(token, at);
      if (token.type === 'heading') {
        const heading = token as Tokens.Heading;
        const title = collapse(inlineText(heading.tokens));
        // The title as written, less leading emoji or symbols ("📊 Data Model" → "Data Model").
        if (heading.depth === 1 && draft.title === undefined) draft.title = title.replace(/^[^\p{L}\p{N}]+/u, '');
        if (pagesDepth !== undefined && heading.depth <= pagesDepth) pagesDepth = undefined;
        if (pagesDepth !== undefined) {
          draft.pages.push({ title, locator: locate(at) });
        } else if (PAGES_HEADING.test(title) && heading.depth > 1) {
          pagesDepth = heading.depth;
        }
        headings = [...headings.filter((h) => h.depth < heading.depth), { depth: heading.depth, text: title }];
      } else if (token.type === 'list' && pagesDepth !== undefined) {
        let itemLine = at;
        for (const item of (token as Tokens.List).items) {
          const page = pageFromItem(item, locate(itemLine));
          if (page) draft.pages.push(page);
          itemLine += newlines(item.raw);
        }
      } else if (token.type === 'table') {
        const table = token as Tokens.Table;
        const header = table.header.map((cell) => collapse(inlineText(cell.tokens)));
        if (!isEntityTable(header)) {
          if (!storiesFromTable(table)) otherTables.push({ line: at, header: header.join(' | ') });
        } else {
          entityTables.push({
            headings: headings.map((h) => h.text).reverse(),
            header,
            // GFM table rows are one line each, under the header and delimiter lines.
            rows: table.rows.map((row, i) => ({
              cells: row.map((cell) => collapse(inlineText(cell.tokens, true))),
              line: at + 2 + i,
            })),
            line: at,
          });
        }
      }
    }
  };

  for (const part of parts(text)) {
    readTokens(Lexer.lex(part.text, { gfm: true }), part.line);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const before = draft.models.length;
  draft.models.push(...tablesToModels(entityTables, draft.warnings, locate));
  const models = draft.models.slice(before);
  if (models.length > 1 || otherTables.length > 0) {
    const shown = (list: string[]) => (list.length > 12 ? `${list.slice(0, 12).join(', ')} and ${list.length - 12} more` : list.join(', '));
    const used = `${models.length} field ${models.length === 1 ? 'table' : 'tables'} read as models (${shown(models.map((m) => `${m.name}, ${m.locator}`))})`;
    const left = otherTables.length === 0
      ? 'no other table'
      : `${otherTables.length} other ${otherTables.length === 1 ? 'table' : 'tables'} left out, without field and type columns (${shown(otherTables.map((t) => `${locate(t.line)}: ${t.header.slice(0, 60)}`))})`;
    draft.warnings.push({ locator: 'document', message: `${used}; ${left}` });
  }
}

/** What the document gave nothing of, said once so the specification explains itself. */
export function warnIfEmpty(draft: Draft, locator: Locator): void {
  if (draft.models.length + draft.requirements.length + draft.pages.length === 0) {
    draft.warnings.push({
      locator,
      message: 'no user stories ("As a …, I want …"), page or screen lists, or entity tables (field and type columns) found',
    });
  }
}

/**
 * YAML front matter ("---" lines around `key: value`s opening the file) is metadata, not
 * Markdown (the lexer would read its closing "---" as a heading underline): its lines are
 * blanked, so line numbers still point into the file.
 */
function withoutFrontMatter(text: string): string {
  const front = /^---\r?\n[\s\S]*?\n---\r?\n/.exec(text.slice(0, 64 * 1024));
  return front ? front[0].replace(/[^\n]/g, '') + text.slice(front[0].length) : text;
}

export const extractMarkdown: Extractor = async (input) => {
  const decoded = decodeDocumentText(input.bytes);
  const text = withoutFrontMatter(decoded.text);
  const draft = emptyDraft();
  if (decoded.warning) draft.warnings.push(decoded.warning);
  await readMarkdown(text, draft, (line) => `line ${line}`);
  warnIfEmpty(draft, 'document');
  return draft;
};
