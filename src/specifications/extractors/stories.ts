/**
 * User stories in prose (DESIGN §13): "As a librarian, I want to renew a loan, so that …"
 * becomes a persona and a requirement. Shared by the Markdown and PDF extractors: both hand
 * over plain text (Markdown inline formatting already flattened) and a locator.
 *
 * Three shapes are read: the sentence ("As a X, I want Y[, so that Z]") anywhere in a block of
 * text, the lead-in ("As a X, I want:") whose wants are the items of a nested list (read by
 * the Markdown extractor), and the story table whose header row reads "As a … | I want … | So that …", where
 * each row names its persona in the first cell and has no "As a" of its own (the common
 * template exported to PDF, where cells arrive as lines).
 */
import type { DraftPersona, DraftRequirement, Locator } from './types.ts';

export interface Story {
  persona: string;
  want: string;
  benefit?: string;
  /** The want reads on from "I want" as written ("the API to …", "to be alerted …"). */
  asWritten?: boolean;
}

const WANT = String.raw`I\s+(?:want|need|would\s+like|wish|can)\s+(?:to\s+)?`;
const SO_THAT = String.raw`,?\s*so\s+that\s+`;
/** A sentence ends at a full stop followed by a space or the end (not `Next.js`). */
const END = String.raw`(?:[.!](?=\s|$)|$)`;
const SENTENCE = new RegExp(
  String.raw`\bAs\s+an?\s+([^,.;:]{1,80}?),?\s+${WANT}(.+?)(?:${SO_THAT}(.+?))?\s*${END}`,
  'gi',
);

/** Collapses the whitespace a PDF line break or a Markdown soft break leaves. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function clean(part: string): string {
  return collapse(part).replace(/^[\s,;:]+|[\s,;:]+$/g, '');
}

/** Every "As a X, I want Y, so that Z" sentence in a block of text. */
export function storiesInText(text: string): Story[] {
  const stories: Story[] = [];
  for (const match of collapse(text).matchAll(SENTENCE)) {
    const persona = clean(match[1]);
    const want = clean(match[2]);
    if (!persona || !want) continue;
    const benefit = match[3] ? clean(match[3]) : undefined;
    stories.push(benefit ? { persona, want, benefit } : { persona, want });
  }
  return stories;
}

/** "As a **grantor**, I want:" — a persona whose wants follow as a nested list. */
const LEAD_IN = /^As\s+(?:an?\s+)?([^,.;:]{1,80}?),?\s+I\s+(?:want|need|would\s+like|wish)(\s+to)?\s*:$/i;

export interface StoryLeadIn {
  persona: string;
  /** "I want to:": each want is a verb phrase ("publish …"), read after "I want to". */
  wantTo: boolean;
}

/** A story lead-in ("As a X, I want:"), or undefined for any other text. */
export function storyLeadIn(text: string): StoryLeadIn | undefined {
  const match = LEAD_IN.exec(collapse(text));
  const persona = match ? clean(match[1]) : '';
  return match && persona ? { persona, wantTo: match[2] !== undefined } : undefined;
}

/** One want under a lead-in ("to be alerted …, so that I can …") as a story of its persona. */
export function storyOfWant(lead: StoryLeadIn, text: string): Story | undefined {
  const split = new RegExp(String.raw`^(.+?)${SO_THAT}(.+)$`, 'is').exec(collapse(text));
  const want = clean(split ? split[1] : text).replace(/[.]$/, '');
  if (!want) return undefined;
  const story: Story = { persona: lead.persona, want };
  if (split) story.benefit = clean(split[2]).replace(/[.]$/, '');
  if (!lead.wantTo) story.asWritten = true;
  return story;
}

const TABLE_HEADER = /\bAs\s+an?\b.*\bI\s+want\b.*\bSo\s+that\b/i;
const ROW_WANT = new RegExp(String.raw`^(.*?)\b${WANT}(.*)$`, 'i');
const ROW_SO_THAT = /^(.*?)\bSo\s+that\s+(.*)$/i;
/** A priority cell: stars, or a MoSCoW / High-Medium-Low word. */
const PRIORITY = /^(?:\*+|high|medium|low|must|should|could|won't|p[0-3])(?=\s|$)/i;

/** How a story table's rows start, kept to read its rows on the following PDF pages. */
export interface StoryTable {
  priorityFirst: boolean;
}

/**
 * Rows of a story table laid out as lines (PDF text). The header line names the columns;
 * when its first column is a priority, each row starts at a line opening with a priority
 * (cells of one row can span several lines); otherwise each row starts at the line
 * holding its persona and "I want". A page without the header continues the table of the
 * page before (`continued`), as a table running over a page break does.
 */
export function storiesInTable(lines: string[], continued?: StoryTable): { stories: Story[]; table?: StoryTable } {
  const header = lines.findIndex((line) => TABLE_HEADER.test(line));
  if (header < 0 && !continued) return { stories: [] };
  const table: StoryTable = header >= 0 ? { priorityFirst: /^\s*priority\b/i.test(lines[header]) } : (continued ?? { priorityFirst: false });
  const { priorityFirst } = table;
  const body = lines.slice(header + 1).map((line) => line.trim()).filter(Boolean);
  // A bare number closing the page is its page number, not part of the last row.
  if (body.length > 0 && /^\d{1,4}$/.test(body[body.length - 1])) body.pop();
  const rows: string[][] = [];
  for (const raw of body) {
    const line = raw.trim();
    if (!line) continue;
    const starts = priorityFirst ? PRIORITY.test(line) : ROW_WANT.test(line) && !/^I\s/i.test(line);
    if (starts || rows.length === 0) rows.push([line]);
    else rows[rows.length - 1].push(line);
  }
  const stories: Story[] = [];
  for (const row of rows) {
    const text = collapse(row.join(' ')).replace(priorityFirst ? PRIORITY : /^$/, '');
    const want = ROW_WANT.exec(text);
    if (!want) continue;
    const persona = clean(want[1]);
    const rest = ROW_SO_THAT.exec(want[2]);
    const wanted = clean(rest ? rest[1] : want[2]);
    if (!persona || !wanted) continue;
    const benefit = rest ? clean(rest[2]) : undefined;
    stories.push(benefit ? { persona, want: wanted, benefit } : { persona, want: wanted });
  }
  return { stories, table };
}

/** The story as one sentence, the way a requirement reads. */
export function storySentence(story: Story): string {
  const article = /^[aeiou]/i.test(story.persona) ? 'an' : 'a';
  const want = story.asWritten ? story.want : `to ${story.want.replace(/^to\s+/i, '')}`;
  const base = `As ${article} ${story.persona}, I want ${want}`;
  return story.benefit ? `${base}, so that ${story.benefit.replace(/[.]$/, '')}` : base;
}

/**
 * Adds stories to a draft's personas and requirements: one persona per distinct name
 * (compared without case), at the locator where it first appears.
 */
export function addStories(
  stories: Story[],
  locator: Locator,
  personas: DraftPersona[],
  requirements: DraftRequirement[],
): void {
  for (const story of stories) {
    const known = personas.find((p) => p.name.toLowerCase() === story.persona.toLowerCase());
    if (!known) personas.push({ name: story.persona, locator });
    requirements.push({
      description: storySentence(story),
      persona: known ? known.name : story.persona,
      locator,
    });
  }
}
