/**
 * Markdown PRDs (DESIGN §13), read through the mdast syntax tree (micromark + GFM tables):
 * - the first H1 is the title;
 * - "As a …, I want …, so that …" anywhere (paragraphs, list items, headings, table rows)
 *   gives personas and requirements (stories.ts);
 * - under a heading about pages, screens, views or the sitemap, each list item and each
 *   sub-heading is a page ("**Dashboard:** overview …" → title and description);
 * - a table with field and type columns under an entity heading is a model
 *   (markdown-tables.ts).
 * Locators are source lines: `line 12`. The PDF extractor runs the same rules on page text.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import type { Heading, List, ListItem, Nodes, Root, Table } from 'mdast';
import { addStories, collapse, storiesInText } from './stories.ts';
import type { Story } from './stories.ts';
import { isEntityTable, tablesToModels } from './markdown-tables.ts';
import type { EntityTable } from './markdown-tables.ts';
import { emptyDraft } from './types.ts';
import type { Draft, DraftPage, Extractor, Locator } from './types.ts';

const PAGES_HEADING = /\b(?:pages?|screens?|views?|site\s*map|sitemap)\b/i;
const STORY_COLUMNS = { persona: /^as\s+an?\b/i, want: /^i\s+want\b/i, benefit: /^so\s+that\b/i };

/**
 * A node's text with inline formatting dropped and line breaks kept as spaces. `keepCode`
 * keeps backticks around inline code, where they mark values (`CHECK (\`a\` or \`b\`)`).
 */
export function plainText(node: Nodes, keepCode = false): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'inlineCode') return keepCode ? `\`${node.value}\`` : node.value;
  if (node.type === 'break') return ' ';
  if ('children' in node) return node.children.map((child) => plainText(child as Nodes, keepCode)).join('');
  return '';
}

export function parseMarkdown(text: string): Root {
  return fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

function lineOf(node: Nodes): number {
  return node.position?.start.line ?? 1;
}

/** "**Main Dashboard:** Operational overview …" → title and description. */
function pageFromItem(item: ListItem, locate: (line: number) => Locator): DraftPage | undefined {
  const first = item.children.find((c) => c.type === 'paragraph');
  if (!first || first.type !== 'paragraph') return undefined;
  const lead = first.children[0];
  let title: string;
  let rest: string;
  if (lead && lead.type === 'strong') {
    title = plainText(lead);
    rest = first.children.slice(1).map((c) => plainText(c as Nodes)).join('');
  } else {
    const text = plainText(first);
    const split = /^(.{1,80}?)(?::\s+|\s+[-–—]\s+)(.*)$/s.exec(text);
    title = split ? split[1] : text;
    rest = split ? split[2] : '';
  }
  title = collapse(title).replace(/[:\-–—\s]+$/, '');
  const description = collapse(rest).replace(/^[:\-–—\s]+/, '');
  if (!title || title.length > 80) return undefined;
  const page: DraftPage = { title, locator: locate(lineOf(item)) };
  if (description) page.description = description;
  return page;
}

/** A table whose header reads "As a … | I want … | So that …": one story per row. */
function storiesFromTable(table: Table): Story[] | undefined {
  const [head, ...rows] = table.children;
  if (!head) return undefined;
  const header = head.children.map((cell) => collapse(plainText(cell)));
  const col = (pattern: RegExp) => header.findIndex((h) => pattern.test(h));
  const [p, w, b] = [col(STORY_COLUMNS.persona), col(STORY_COLUMNS.want), col(STORY_COLUMNS.benefit)];
  if (p < 0 || w < 0) return undefined;
  const stories: Story[] = [];
  for (const row of rows) {
    const cell = (i: number) => (i >= 0 && row.children[i] ? collapse(plainText(row.children[i])) : '');
    const persona = cell(p);
    const want = cell(w).replace(/^I\s+want\s+(?:to\s+)?/i, '');
    const benefit = cell(b).replace(/^so\s+that\s+/i, '');
    if (persona && want) stories.push(benefit ? { persona, want, benefit } : { persona, want });
  }
  return stories;
}

/**
 * The Markdown rules over one parsed document, adding to `draft`. `locate` turns a source
 * line into a locator (`line 12` for Markdown, `page 3` for PDF text).
 */
export function readMarkdown(root: Root, draft: Draft, locate: (line: number) => Locator): void {
  const entityTables: EntityTable[] = [];
  /** The open headings, outermost first: a table's entity is named by the nearest that names one. */
  let headings: { depth: number; text: string }[] = [];
  let pagesDepth: number | undefined;

  const visitStories = (node: Nodes) => {
    if (node.type === 'paragraph' || node.type === 'heading') {
      addStories(storiesInText(plainText(node)), locate(lineOf(node)), draft.personas, draft.requirements);
      return;
    }
    if (node.type === 'table') {
      const tableStories = storiesFromTable(node);
      if (tableStories) {
        addStories(tableStories, locate(lineOf(node)), draft.personas, draft.requirements);
        return;
      }
      for (const row of node.children) {
        const text = row.children.map((cell) => plainText(cell)).join(' ');
        addStories(storiesInText(text), locate(lineOf(row)), draft.personas, draft.requirements);
      }
      return;
    }
    if ('children' in node) for (const child of node.children) visitStories(child as Nodes);
  };

  for (const node of root.children) {
    visitStories(node);
    if (node.type === 'heading') {
      const text = collapse(plainText(node));
      // The title as written, less leading emoji or symbols ("📊 Data Model" → "Data Model").
      if (node.depth === 1 && draft.title === undefined) draft.title = text.replace(/^[^\p{L}\p{N}]+/u, '');
      if (pagesDepth !== undefined && node.depth <= pagesDepth) pagesDepth = undefined;
      if (pagesDepth !== undefined) {
        draft.pages.push({ title: text, locator: locate(lineOf(node)) });
      } else if (PAGES_HEADING.test(text) && node.depth > 1) {
        pagesDepth = (node as Heading).depth;
      }
      headings = [...headings.filter((h) => h.depth < node.depth), { depth: node.depth, text }];
      continue;
    }
    if (node.type === 'list' && pagesDepth !== undefined) {
      for (const item of (node as List).children) {
        const page = pageFromItem(item, locate);
        if (page) draft.pages.push(page);
      }
    }
    if (node.type === 'table') {
      const header = node.children[0]?.children.map((cell) => collapse(plainText(cell))) ?? [];
      if (isEntityTable(header)) {
        entityTables.push({
          headings: headings.map((h) => h.text).reverse(),
          header,
          rows: node.children.slice(1).map((row) => ({
            cells: row.children.map((cell) => collapse(plainText(cell, true))),
            line: lineOf(row),
          })),
          line: lineOf(node),
        });
      }
    }
  }
  draft.models.push(...tablesToModels(entityTables, draft.warnings, locate));
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

export const extractMarkdown: Extractor = async (input) => {
  const text = new TextDecoder().decode(input.bytes);
  const draft = emptyDraft();
  readMarkdown(parseMarkdown(text), draft, (line) => `line ${line}`);
  warnIfEmpty(draft, 'document');
  return draft;
};
