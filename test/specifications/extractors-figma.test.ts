/**
 * The Figma extractor on a real `GET /v1/files/:key` answer (test/fixtures/README.md): the
 * "Figmagic — Design System template 4.0 (Community)" file. Read from the JSON: five pages;
 * "Design Tokens" holds 17 top-level frames (and two text nodes), "Views" four device
 * frames (and a group and a text), while "Elements", "Graphics" and "Components" hold only
 * components, instances and text at their top level.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractFigma } from '../../src/specifications/extractors/figma.ts';
import { ExtractionError } from '../../src/specifications/extractors/types.ts';
import type { Draft } from '../../src/specifications/extractors/types.ts';

function figma(json: unknown, name = 'design.json'): Promise<Draft> {
  const bytes = new TextEncoder().encode(typeof json === 'string' ? json : JSON.stringify(json));
  return extractFigma({ attachmentId: 'att', name, kind: 'figma', bytes });
}

describe('Figma extractor: Figmagic design system template', () => {
  const bytes = new Uint8Array(readFileSync(new URL('../fixtures/figma/figmagic-design-system-template.json', import.meta.url)));
  const drafted = extractFigma({ attachmentId: 'att_fig', name: 'figmagic.json', kind: 'figma', bytes });

  it('takes the file name as the title', async () => {
    expect((await drafted).title).toBe('Figmagic — Design System template 4.0 (Community)');
  });

  it('makes one page per top-level frame, titled with the frame name, located by node id', async () => {
    const draft = await drafted;
    expect(draft.pages).toHaveLength(21);
    const tokens = draft.pages.filter((p) => p.description === 'Figma page "Design Tokens"').map((p) => p.title);
    expect(tokens).toEqual([
      'Media Queries', 'Easings', 'Delays', 'Durations', 'Opacities', 'Shadows', 'Border Widths', 'Radii',
      'Z Indices', 'Letter Spacings', 'Font Families', 'Line Heights', 'Font Weights', 'Spacing',
      'Fonts (use for Styles; not exported as tokens)', 'Font Sizes', 'Colors',
    ]);
    const views = draft.pages.filter((p) => p.description === 'Figma page "Views"');
    expect(views.map((p) => [p.title, p.locator])).toEqual([
      ['MacBook Pro', 'node 3022:700'],
      ['MacBook', 'node 3022:699'],
      ['iPad Pro 11"', 'node 3022:698'],
      ['iPhone 11 Pro / X', 'node 3022:697'],
    ]);
  });

  it('does not take components, groups or text for screens, and says which pages gave none', async () => {
    const draft = await drafted;
    const titles = draft.pages.map((p) => p.title);
    expect(titles).not.toContain('Button');
    expect(titles).not.toContain('DemoForm');
    expect(titles).not.toContain('Screen divider (max height single view)');
    expect(draft.warnings.map((w) => w.locator)).toEqual(['node 3163:2850', 'node 2710:2', 'node 3015:3']);
    expect(draft.warnings[0].message).toContain('"Elements"');
    expect(draft.models).toEqual([]);
  });
});

describe('Figma extractor: other shapes', () => {
  it('looks into top-level sections and skips hidden frames', async () => {
    const draft = await figma({
      name: 'Shop',
      document: {
        id: '0:0',
        type: 'DOCUMENT',
        children: [
          {
            id: '0:1',
            name: 'Flows',
            type: 'CANVAS',
            children: [
              { id: '1:1', name: 'Cart', type: 'FRAME' },
              { id: '1:2', name: 'Old cart', type: 'FRAME', visible: false },
              { id: '1:3', name: 'Checkout', type: 'SECTION', children: [{ id: '1:4', name: 'Payment', type: 'FRAME' }] },
            ],
          },
        ],
      },
    });
    expect(draft.pages.map((p) => [p.title, p.locator])).toEqual([
      ['Cart', 'node 1:1'],
      ['Payment', 'node 1:4'],
    ]);
  });

  it('fails with a clear message on JSON that is not a Figma file', async () => {
    await expect(figma('{"openapi": "3.0.0"}', 'api.json')).rejects.toThrow(ExtractionError);
    await expect(figma('{"openapi": "3.0.0"}', 'api.json')).rejects.toThrow(/api\.json is not a Figma file/);
    await expect(figma('[1, 2]')).rejects.toThrow(/not a Figma file/);
    await expect(figma('{ nope')).rejects.toThrow(/is not JSON/);
  });
});
