/**
 * The story rules the Markdown and PDF extractors share (stories.ts), on the sentence and
 * table shapes user stories are written in. Unit tests of the rules; the fixtures' tests
 * (extractors-markdown, extractors-pdf) show them on real documents.
 */
import { describe, expect, it } from 'vitest';
import { addStories, storiesInTable, storiesInText, storySentence } from '../../src/specifications/extractors/stories.ts';
import type { DraftPersona, DraftRequirement } from '../../src/specifications/extractors/types.ts';

describe('stories in prose', () => {
  it('reads persona, want and benefit, with or without commas, "I need", "I can", "an"', () => {
    expect(storiesInText('As a librarian, I want to renew a loan, so that members keep books longer.')).toEqual([
      { persona: 'librarian', want: 'renew a loan', benefit: 'members keep books longer' },
    ]);
    expect(storiesInText('As an admin I need to export reports so that auditors get them')).toEqual([
      { persona: 'admin', want: 'export reports', benefit: 'auditors get them' },
    ]);
    expect(storiesInText('As a site user I can register.')).toEqual([{ persona: 'site user', want: 'register' }]);
  });

  it('finds several stories in one block and keeps dots inside words (Next.js)', () => {
    const stories = storiesInText(
      'As a developer, I want a Next.js app, so that we ship. As a tester, I want fixtures, so that tests are real.',
    );
    expect(stories.map((s) => [s.persona, s.want])).toEqual([
      ['developer', 'a Next.js app'],
      ['tester', 'fixtures'],
    ]);
  });

  it('ignores prose that only looks similar', () => {
    expect(storiesInText('As always, the team wants results.')).toEqual([]);
    expect(storiesInText('I want to be clear: this is not a story.')).toEqual([]);
  });
});

describe('story tables laid out as lines', () => {
  const page1 = [
    'Backlog',
    'Priority As a ... I want to ... So that I can...',
    '*** Member I want to renew',
    'a loan',
    'So that I keep the book',
    '** Guest I want to browse So that I can choose',
  ];
  const page2 = ['* Librarian', 'I want to see overdue loans', 'So that I can remind members', '2'];

  it('reads rows whose cells span lines, starting at each priority', () => {
    const { stories, table } = storiesInTable(page1);
    expect(stories).toEqual([
      { persona: 'Member', want: 'renew a loan', benefit: 'I keep the book' },
      { persona: 'Guest', want: 'browse', benefit: 'I can choose' },
    ]);
    expect(table).toEqual({ priorityFirst: true });
  });

  it('continues the table on a page without the header (its page number left out), and reads nothing without one', () => {
    expect(storiesInTable(page2).stories).toEqual([]);
    const { table } = storiesInTable(page1);
    expect(storiesInTable(page2, table).stories).toEqual([
      { persona: 'Librarian', want: 'see overdue loans', benefit: 'I can remind members' },
    ]);
  });
});

describe('stories into a draft', () => {
  it('adds one persona per name (compared without case) and one requirement per story', () => {
    const personas: DraftPersona[] = [];
    const requirements: DraftRequirement[] = [];
    addStories(storiesInText('As a Member, I want to renew a loan. As a member, I want to pay a fine, so that I can borrow.'), 'line 3', personas, requirements);
    expect(personas).toEqual([{ name: 'Member', locator: 'line 3' }]);
    expect(requirements.map((r) => [r.persona, r.description])).toEqual([
      ['Member', 'As a Member, I want to renew a loan'],
      ['Member', 'As a member, I want to pay a fine, so that I can borrow'],
    ]);
    expect(storySentence({ persona: 'editor', want: 'to publish' })).toBe('As an editor, I want to publish');
  });
});
