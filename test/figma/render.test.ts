/**
 * The Figma renderer's mapping (DESIGN §14), read back the way a browser reads it:
 * each generated site is loaded as shipped into chromium (requests answered from the
 * rendered files) and the elements' declared rules (CSSOM) and computed styles are
 * checked; plus the parts that need no browser (errors, assets, determinism, names).
 * The small designs here are written for the case each test names; the real designs
 * are in fidelity.test.ts.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { listFrames, renderFigmaSite, type RenderedFile, type RenderInput } from '../../src/figma/render/index.ts';
import { cssString, escapeHtml, slug, UniqueNames } from '../../src/figma/render/escape.ts';
import { linearGradientGeometry } from '../../src/figma/render/paint.ts';
import { Problem } from '../../src/errors.ts';
import type { FigmaNode } from '../../src/figma/types.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const chromiumMissing = !existsSync(CHROMIUM);
if (chromiumMissing && process.env.CI) throw new Error(`${CHROMIUM} is missing in CI: .ci/run installs it (apt-get install -y chromium).`);

type Extra = Partial<FigmaNode>;
const node = (id: string, type: string, x: number, y: number, width: number, height: number, extra: Extra = {}): FigmaNode => ({
  id, name: extra.name ?? `${type} ${id}`, type, absoluteBoundingBox: { x, y, width, height }, ...extra,
});
const file = (...frames: FigmaNode[]) => ({ name: 'Test file', document: { id: '0:0', type: 'DOCUMENT', children: [{ id: '0:1', type: 'CANVAS', name: 'Page 1', children: frames }] } });
const solid = (r: number, g: number, b: number, extra: object = {}) => ({ type: 'SOLID', color: { r, g, b, a: 1 }, ...extra });

// 1×1 transparent PNG.
const PNG = Uint8Array.from(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'));

const TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', css: 'text/css; charset=utf-8', png: 'image/png' };

describe('Figma renderer: names, escaping, errors, assets (no browser)', () => {
  it('escapes the five HTML characters and makes CSS strings that cannot be closed', () => {
    expect(escapeHtml(`<a href="x">&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#38;&#39;&#60;/a&#62;');
    expect(cssString('x"; } * { display: none } .a { x: "')).toBe('"x\\"; } * { display: none } .a { x: \\""');
    expect(cssString('a\\b\nc')).toBe('"a\\\\b c"');
  });

  it('makes class names from layer names: sanitised, starting with a letter, unique in order', () => {
    expect(slug('Primary Button / Hover', 'node')).toBe('primary-button-hover');
    expect(slug('Ünïcode Ñame', 'node')).toBe('unicode-name');
    expect(slug('123 go', 'node')).toBe('node-123-go');
    expect(slug('<script>', 'node')).toBe('script');
    expect(slug('🙂', 'node')).toBe('node');
    const names = new UniqueNames(['index']);
    expect(['card', 'card', 'index', 'card'].map((n) => names.take(n))).toEqual(['card', 'card-2', 'index-2', 'card-3']);
  });

  it('turns gradient handles into the CSS angle and the stops onto the CSS gradient line', () => {
    expect(linearGradientGeometry([{ x: 0, y: 0.5 }, { x: 1, y: 0.5 }], 200, 100)).toEqual({ angle: 90, start: 0, end: 1 });
    expect(linearGradientGeometry([{ x: 0.5, y: 0 }, { x: 0.5, y: 1 }], 200, 100)).toEqual({ angle: 180, start: 0, end: 1 });
    const diagonal = linearGradientGeometry([{ x: 0, y: 0 }, { x: 1, y: 1 }], 200, 100);
    expect(diagonal.angle).toBeCloseTo(116.57, 2);
    expect(diagonal.start).toBeCloseTo(0, 6);
    expect(diagonal.end).toBeCloseTo(1, 6);
    // Handles inside the box: the stops move in from the ends of the CSS line.
    const inner = linearGradientGeometry([{ x: 0.25, y: 0.5 }, { x: 0.75, y: 0.5 }], 200, 100);
    expect(inner).toEqual({ angle: 90, start: 0.25, end: 0.75 });
    expect(linearGradientGeometry([{ x: 0.5, y: 1 }, { x: 0.5, y: 0 }], 100, 100).angle).toBe(0);
  });

  it('lists the top-level frames of every page (inside sections too), without hidden ones', () => {
    const doc = {
      document: {
        id: '0:0', type: 'DOCUMENT', children: [
          { id: '1:0', type: 'CANVAS', name: 'Home', children: [node('1:1', 'FRAME', 0, 0, 375, 812, { name: 'Mobile' }), node('1:2', 'RECTANGLE', 0, 0, 5, 5), node('1:3', 'FRAME', 0, 0, 9, 9, { visible: false })] },
          { id: '2:0', type: 'CANVAS', name: 'Parts', children: [node('2:1', 'SECTION', 0, 0, 900, 900, { children: [node('2:2', 'COMPONENT', 10, 10, 120, 40, { name: 'Button' })] })] },
        ],
      },
    };
    expect(listFrames(doc)).toEqual([
      { nodeId: '1:1', name: 'Mobile', page: 'Home', width: 375, height: 812 },
      { nodeId: '2:2', name: 'Button', page: 'Parts', width: 120, height: 40 },
    ]);
  });

  it('answers 422 naming unknown frame ids, a node with no box, and a document that is not a Figma file', () => {
    const doc = file(node('1:1', 'FRAME', 0, 0, 100, 100, { children: [{ id: '1:2', type: 'RECTANGLE', name: 'no box' }] }));
    const problem = (input: RenderInput) => {
      try {
        renderFigmaSite(input);
      } catch (error) {
        return error as Problem;
      }
      throw new Error('expected a problem');
    };
    const unknown = problem({ document: doc, frameIds: ['1:1', '9:9'] });
    expect(unknown).toBeInstanceOf(Problem);
    expect(unknown.status).toBe(422);
    expect(unknown.errors).toEqual([{ path: '/frameIds/1', message: 'no top-level frame 9:9 in the file' }]);
    const boxless = problem({ document: doc });
    expect(boxless.status).toBe(422);
    expect(boxless.errors[0].path).toBe('/document/children/0/children/0/children/0');
    expect(boxless.message).toContain('1:2');
    expect(problem({ document: { nope: true } }).status).toBe(422);
    // A node type the renderer does not know is still a box.
    const widget = file(node('1:1', 'FRAME', 0, 0, 100, 100, { children: [node('1:3', 'WIDGET', 10, 10, 20, 20)] }));
    expect(renderFigmaSite({ document: widget }).find((f) => f.path === 'frame-1-1.html')!.content).toContain('data-node-id="1:3"');
  });

  it('writes an asset for an image fill with bytes, and none (a placeholder) without', () => {
    const frame = node('1:1', 'FRAME', 0, 0, 100, 100, { children: [node('1:2', 'RECTANGLE', 0, 0, 50, 50, { fills: [{ type: 'IMAGE', scaleMode: 'FILL', imageRef: 'abc123' }] })] });
    const without = renderFigmaSite({ document: file(frame) });
    expect(without.filter((f) => f.path.startsWith('assets/'))).toEqual([]);
    expect(without.find((f) => f.path === 'styles.css')!.content).toContain('linear-gradient(#d9d9d9, #d9d9d9)');
    const withBytes = renderFigmaSite({ document: file(frame), images: new Map([['abc123', { bytes: PNG, contentType: 'image/png' }]]) });
    const asset = withBytes.find((f) => f.path === 'assets/abc123.png');
    expect(asset?.content).toEqual(PNG);
    expect(withBytes.find((f) => f.path === 'styles.css')!.content).toContain('url("assets/abc123.png")');
    // An imageRef that is not a plain name does not become a path.
    const odd = renderFigmaSite({ document: file({ ...frame, children: [node('1:2', 'RECTANGLE', 0, 0, 50, 50, { fills: [{ type: 'IMAGE', imageRef: '../../etc/passwd' }] })] }), images: new Map([['../../etc/passwd', { bytes: PNG, contentType: 'image/png' }]]) });
    expect(odd.filter((f) => f.path.startsWith('assets/')).map((f) => f.path)).toEqual([expect.stringMatching(/^assets\/[0-9a-f]{32}\.png$/)]);
  });

  it('renders the same files for the same input', () => {
    const frame = node('1:1', 'FRAME', 0, 0, 300, 200, { layoutMode: 'VERTICAL', itemSpacing: 4, children: [node('1:2', 'TEXT', 0, 0, 100, 20, { characters: 'Hi', style: { fontFamily: 'Inter', fontSize: 14 } }), node('1:3', 'ELLIPSE', 0, 24, 10, 10)] });
    expect(renderFigmaSite({ document: file(frame) })).toEqual(renderFigmaSite({ document: file(structuredClone(frame)) }));
  });
});

interface Declared { [property: string]: string }
interface Styled { declared: Declared; computed: Declared; box: { x: number; y: number; width: number; height: number } }

/*
 * Browser-side code runs in the page and is written as text: the project compiles
 * without DOM types. STYLE_OF: a node's element, the rule of its class as the
 * browser parsed styles.css (CSSOM), chosen computed properties, and its box.
 */
const STYLE_OF = `({ nodeId, props }) => {
  const el = document.querySelector('[data-node-id="' + CSS.escape(nodeId) + '"]');
  const rules = [...document.styleSheets].flatMap((s) => [...s.cssRules]);
  const rule = rules.find((r) => r.selectorText === '.' + el.className);
  const declared = {};
  for (let i = 0; i < rule.style.length; i++) declared[rule.style[i]] = rule.style.getPropertyValue(rule.style[i]);
  const cs = getComputedStyle(el);
  const computed = {};
  for (const p of props) computed[p] = cs.getPropertyValue(p);
  const r = el.getBoundingClientRect();
  return { declared, computed, box: { x: r.x, y: r.y, width: r.width, height: r.height } };
}`;

describe.skipIf(chromiumMissing)('Figma renderer: the mapping as chromium reads it', () => {
  let browser: Browser;
  let page: Page;
  let requested: string[];

  /** Loads a rendered site's frame page as shipped: every request is answered from the files. */
  async function open(files: RenderedFile[], path?: string): Promise<void> {
    requested = [];
    const byPath = new Map(files.map((f) => [`/${f.path}`, f]));
    await page.unroute('**/*');
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      requested.push(url.pathname);
      const f = byPath.get(url.pathname);
      return f ? route.fulfill({ status: 200, contentType: TYPES[f.path.split('.').pop() ?? ''] ?? 'application/octet-stream', body: Buffer.from(f.content) }) : route.fulfill({ status: 404, body: 'not found' });
    });
    const target = path ?? files.find((f) => f.path.endsWith('.html') && f.path !== 'index.html')!.path;
    await page.goto(`http://figma.test/${target}`);
  }

  /** The declared rule of a node's class (the browser's own parse of styles.css) and its computed style. */
  async function styleOf(nodeId: string, props: string[]): Promise<Styled> {
    return page.evaluate<Styled>(`(${STYLE_OF})(${JSON.stringify({ nodeId, props })})`);
  }

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    page = await browser.newPage({ viewport: { width: 800, height: 600 } });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('auto layout → flexbox: direction, gap, padding, justify/align, FIXED/FILL/HUG children, ABSOLUTE children', async () => {
    const frame = node('1:1', 'FRAME', 100, 100, 400, 100, {
      layoutMode: 'HORIZONTAL', itemSpacing: 12, paddingTop: 8, paddingRight: 16, paddingBottom: 8, paddingLeft: 16,
      primaryAxisAlignItems: 'CENTER', counterAxisAlignItems: 'MAX',
      children: [
        node('1:2', 'RECTANGLE', 116, 152, 50, 40, { layoutSizingHorizontal: 'FIXED', layoutSizingVertical: 'FIXED' }),
        node('1:3', 'RECTANGLE', 178, 108, 200, 84, { layoutSizingHorizontal: 'FILL', layoutSizingVertical: 'FILL' }),
        node('1:4', 'FRAME', 390, 172, 30, 20, { layoutMode: 'VERTICAL', layoutSizingHorizontal: 'HUG', layoutSizingVertical: 'HUG', children: [node('1:5', 'RECTANGLE', 390, 172, 30, 20)] }),
        node('1:6', 'RECTANGLE', 105, 105, 10, 10, { layoutPositioning: 'ABSOLUTE' }),
      ],
    });
    await open(renderFigmaSite({ document: file(frame) }));
    const container = await styleOf('1:1', ['display', 'flex-direction', 'column-gap', 'padding-top', 'padding-right', 'padding-left', 'justify-content', 'align-items']);
    expect(container.computed).toEqual({ display: 'flex', 'flex-direction': 'row', 'column-gap': '12px', 'padding-top': '8px', 'padding-right': '16px', 'padding-left': '16px', 'justify-content': 'center', 'align-items': 'flex-end' });
    const fixed = await styleOf('1:2', ['flex-grow', 'flex-shrink']);
    expect(fixed.declared).toMatchObject({ width: '50px', height: '40px' });
    expect(fixed.computed).toEqual({ 'flex-grow': '0', 'flex-shrink': '0' });
    const fill = await styleOf('1:3', ['flex-grow', 'align-self']);
    expect(fill.computed).toEqual({ 'flex-grow': '1', 'align-self': 'stretch' });
    expect(fill.declared.width).toBeUndefined();
    const hug = await styleOf('1:4', ['flex-direction']);
    expect(hug.declared.width).toBeUndefined();
    expect(hug.declared.height).toBeUndefined();
    expect(hug.box).toMatchObject({ width: 30, height: 20 });
    const absolute = await styleOf('1:6', ['position', 'left', 'top']);
    expect(absolute.computed).toEqual({ position: 'absolute', left: '5px', top: '5px' });
  });

  it('2020-era auto layout: horizontalPadding/verticalPadding and per-child alignment', async () => {
    const frame = node('1:1', 'FRAME', 0, 0, 200, 300, {
      layoutMode: 'VERTICAL', itemSpacing: 10, horizontalPadding: 12, verticalPadding: 20, counterAxisSizingMode: 'FIXED',
      children: [node('1:2', 'ELLIPSE', 75, 20, 50, 50, { layoutAlign: 'CENTER' }), node('1:3', 'RECTANGLE', 12, 80, 176, 30, { layoutAlign: 'STRETCH' })],
    });
    await open(renderFigmaSite({ document: file(frame) }));
    expect((await styleOf('1:1', ['padding-top', 'padding-left', 'row-gap'])).computed).toEqual({ 'padding-top': '20px', 'padding-left': '12px', 'row-gap': '10px' });
    const centred = await styleOf('1:2', ['align-self', 'border-top-left-radius']);
    expect(centred.computed).toEqual({ 'align-self': 'center', 'border-top-left-radius': '50%' });
    expect(centred.box).toEqual({ x: 75, y: 20, width: 50, height: 50 });
    expect((await styleOf('1:3', [])).box).toEqual({ x: 12, y: 80, width: 176, height: 30 });
  });

  it('fills: solid with opacity, linear gradient at its angle, hidden paints skipped; node opacity', async () => {
    const gradient = { type: 'GRADIENT_LINEAR', opacity: 0.5, gradientHandlePositions: [{ x: 0, y: 0.5 }, { x: 1, y: 0.5 }, { x: 0, y: 1 }], gradientStops: [{ position: 0, color: { r: 1, g: 0, b: 0, a: 1 } }, { position: 1, color: { r: 0, g: 0, b: 1, a: 1 } }] };
    const frame = node('1:1', 'FRAME', 0, 0, 300, 200, {
      fills: [solid(1, 1, 1)],
      children: [
        node('1:2', 'RECTANGLE', 10, 10, 100, 50, { fills: [solid(0, 0.5, 0, { opacity: 0.25 })], opacity: 0.5 }),
        node('1:3', 'RECTANGLE', 10, 70, 200, 50, { fills: [gradient] }),
        node('1:4', 'RECTANGLE', 10, 130, 50, 50, { fills: [solid(1, 0, 0, { visible: false })] }),
      ],
    });
    await open(renderFigmaSite({ document: file(frame) }));
    const green = await styleOf('1:2', ['background-image', 'opacity']);
    expect(green.computed['background-image']).toBe('linear-gradient(rgba(0, 128, 0, 0.25), rgba(0, 128, 0, 0.25))');
    expect(green.computed.opacity).toBe('0.5');
    expect((await styleOf('1:3', ['background-image'])).computed['background-image']).toBe('linear-gradient(90deg, rgba(255, 0, 0, 0.5) 0%, rgba(0, 0, 255, 0.5) 100%)');
    expect((await styleOf('1:4', ['background-image'])).computed['background-image']).toBe('none');
  });

  it('strokes (border inside a leaf, inset shadow inside a container, outline outside), radii, shadows, clipping', async () => {
    const red = [solid(1, 0, 0)];
    const frame = node('1:1', 'FRAME', 0, 0, 400, 300, {
      clipsContent: true,
      children: [
        node('1:2', 'RECTANGLE', 10, 10, 100, 50, { strokes: red, strokeWeight: 2, strokeAlign: 'INSIDE', rectangleCornerRadii: [1, 2, 3, 4], cornerRadius: 0 }),
        node('1:3', 'FRAME', 120, 10, 100, 100, { strokes: red, strokeWeight: 3, strokeAlign: 'INSIDE', cornerRadius: 8, children: [node('1:4', 'RECTANGLE', 120, 10, 20, 20)] }),
        node('1:5', 'RECTANGLE', 10, 120, 50, 50, { strokes: red, strokeWeight: 4, strokeAlign: 'OUTSIDE', effects: [
          { type: 'DROP_SHADOW', color: { r: 0, g: 0, b: 0, a: 0.5 }, offset: { x: 1, y: 2 }, radius: 3, spread: 0 },
          { type: 'INNER_SHADOW', color: { r: 0, g: 0, b: 1, a: 1 }, offset: { x: 0, y: 1 }, radius: 2 },
          { type: 'DROP_SHADOW', visible: false, color: { r: 1, g: 0, b: 0, a: 1 }, offset: { x: 9, y: 9 }, radius: 9 },
        ] }),
      ],
    });
    await open(renderFigmaSite({ document: file(frame) }));
    expect((await styleOf('1:1', ['overflow'])).computed.overflow).toBe('hidden');
    const leaf = await styleOf('1:2', ['border-top-width', 'border-top-color', 'border-top-left-radius', 'border-top-right-radius', 'border-bottom-right-radius', 'border-bottom-left-radius']);
    expect(leaf.computed).toEqual({ 'border-top-width': '2px', 'border-top-color': 'rgb(255, 0, 0)', 'border-top-left-radius': '1px', 'border-top-right-radius': '2px', 'border-bottom-right-radius': '3px', 'border-bottom-left-radius': '4px' });
    expect(leaf.box).toEqual({ x: 10, y: 10, width: 100, height: 50 });
    const container = await styleOf('1:3', ['border-top-width', 'box-shadow', 'border-top-left-radius']);
    expect(container.computed).toEqual({ 'border-top-width': '0px', 'box-shadow': 'rgb(255, 0, 0) 0px 0px 0px 3px inset', 'border-top-left-radius': '8px' });
    expect((await styleOf('1:4', [])).box).toEqual({ x: 120, y: 10, width: 20, height: 20 });
    const outside = await styleOf('1:5', ['outline-width', 'outline-offset', 'box-shadow']);
    expect(outside.computed).toEqual({ 'outline-width': '4px', 'outline-offset': '0px', 'box-shadow': 'rgba(0, 0, 0, 0.5) 1px 2px 3px 0px, rgb(0, 0, 255) 0px 1px 2px 0px inset' });
    expect(outside.box).toEqual({ x: 10, y: 120, width: 50, height: 50 });
  });

  it('text: family, size, weight, line height, letter spacing, alignment, colour, and override runs as spans', async () => {
    const frame = node('1:1', 'FRAME', 0, 0, 400, 200, {
      children: [node('1:2', 'TEXT', 20, 30, 300, 40, {
        characters: 'Hello bold world',
        style: { fontFamily: 'Inter', fontSize: 20, fontWeight: 700, lineHeightPx: 24, letterSpacing: 1, textAlignHorizontal: 'CENTER', textAlignVertical: 'BOTTOM', textCase: 'UPPER' },
        fills: [solid(0, 0, 1)],
        characterStyleOverrides: [0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
        styleOverrideTable: { 1: { fontWeight: 900, fills: [solid(0, 1, 0)] } },
      })],
    });
    await open(renderFigmaSite({ document: file(frame) }));
    const text = await styleOf('1:2', ['font-family', 'font-size', 'font-weight', 'line-height', 'letter-spacing', 'text-align', 'color', 'text-transform', 'justify-content']);
    expect(text.computed).toEqual({ 'font-family': 'Inter, sans-serif', 'font-size': '20px', 'font-weight': '700', 'line-height': '24px', 'letter-spacing': '1px', 'text-align': 'center', color: 'rgb(0, 0, 255)', 'text-transform': 'uppercase', 'justify-content': 'flex-end' });
    expect(text.box).toEqual({ x: 20, y: 30, width: 300, height: 40 });
    const runs = await page.evaluate<Array<{ text: string; weight: string; color: string }>>(`[...document.querySelectorAll('[data-node-id="1:2"] span span')].map((s) => ({ text: s.textContent, weight: getComputedStyle(s).fontWeight, color: getComputedStyle(s).color }))`);
    expect(runs).toEqual([{ text: 'bold', weight: '900', color: 'rgb(0, 255, 0)' }]);
    expect(await page.locator('[data-node-id="1:2"]').textContent()).toBe('Hello bold world');
  });

  it('hostile layer names and text render as text: no script, no element, no broken CSS', async () => {
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const frame = node('1:1', 'FRAME', 0, 0, 400, 200, {
      name: '<script>alert(1)</script>',
      fills: [solid(1, 1, 1)],
      children: [
        node('1:2', 'TEXT', 10, 10, 300, 40, {
          name: '"><img src=x onerror=alert(2)>',
          characters: '<script>alert(3)</script> & "quotes" <b>not bold</b>',
          style: { fontFamily: 'x"; } * { display: none } .a { x: "', fontSize: 12 },
          fills: [solid(0, 0, 0)],
        }),
        node('1:3', 'RECTANGLE', 10, 60, 50, 50, { name: '</div><script>alert(4)</script>', fills: [solid(1, 0, 0)] }),
      ],
    });
    const files = renderFigmaSite({ document: file(frame) });
    for (const f of files.filter((x) => x.path.endsWith('.html'))) {
      await open(files, f.path);
      expect(await page.evaluate<number>(`document.querySelectorAll('script, img, b').length`)).toBe(0);
    }
    await open(files);
    expect(await page.title()).toBe('<script>alert(1)</script>');
    expect(await page.locator('[data-node-id="1:2"]').textContent()).toBe('<script>alert(3)</script> & "quotes" <b>not bold</b>');
    expect(await page.locator('[data-node-id="1:2"]').getAttribute('data-name')).toBe('"><img src=x onerror=alert(2)>');
    expect(await page.locator('[data-node-id="1:3"]').getAttribute('data-name')).toBe('</div><script>alert(4)</script>');
    // The family stays one quoted name: the rest of the sheet still applies (nothing hidden).
    const text = await styleOf('1:2', ['display', 'font-family']);
    expect(text.computed.display).toBe('flex');
    expect(text.computed['font-family']).toBe('"x\\"; } * { display: none } .a { x: \\"", sans-serif');
    expect((await styleOf('1:3', ['display'])).box).toEqual({ x: 10, y: 60, width: 50, height: 50 });
    expect(dialogs).toEqual([]);
  });

  it('class names come from layer names, unique across the site; invisible nodes are skipped', async () => {
    const frame = node('1:1', 'FRAME', 0, 0, 300, 300, {
      name: 'Card',
      children: [
        node('1:2', 'RECTANGLE', 0, 0, 10, 10, { name: 'Card' }),
        node('1:3', 'RECTANGLE', 0, 20, 10, 10, { name: 'Card' }),
        node('1:4', 'RECTANGLE', 0, 40, 10, 10, { name: 'Hidden', visible: false }),
        node('1:5', 'GROUP', 0, 60, 10, 10, { name: 'Group', visible: false, children: [node('1:6', 'RECTANGLE', 0, 60, 10, 10)] }),
        node('1:7', 'VECTOR', 0, 80, 10, 10, { name: '9 lives' }),
      ],
    });
    const other = node('2:1', 'FRAME', 500, 0, 100, 100, { name: 'Card', children: [node('2:2', 'TEXT', 500, 0, 50, 20, { name: 'Card', characters: 'x' })] });
    const files = renderFigmaSite({ document: file(frame, other) });
    expect(files.map((f) => f.path)).toEqual(['index.html', 'card.html', 'card-2.html', 'styles.css']);
    await open(files, 'card.html');
    const classes = await page.evaluate<string[][]>(`[...document.querySelectorAll('[data-node-id]')].map((e) => [e.dataset.nodeId, e.className])`);
    expect(classes).toEqual([['1:1', 'card'], ['1:2', 'card-2'], ['1:3', 'card-3'], ['1:7', 'node-9-lives']]);
    await open(files, 'card-2.html');
    expect(await page.evaluate<string[]>(`[...document.querySelectorAll('[data-node-id]')].map((e) => e.className)`)).toEqual(['card-4', 'card-5']);
  });

  it('image fills: the asset is fetched as shipped; without bytes a neutral placeholder of the right size', async () => {
    const frame = node('1:1', 'FRAME', 0, 0, 300, 300, { children: [
      node('1:2', 'RECTANGLE', 10, 10, 120, 80, { fills: [{ type: 'IMAGE', scaleMode: 'FIT', imageRef: 'withbytes' }] }),
      node('1:3', 'RECTANGLE', 10, 100, 120, 80, { fills: [{ type: 'IMAGE', scaleMode: 'FILL', imageRef: 'missing' }] }),
    ] });
    await open(renderFigmaSite({ document: file(frame), images: new Map([['withbytes', { bytes: PNG, contentType: 'image/png' }]]) }));
    const image = await styleOf('1:2', ['background-image', 'background-size']);
    expect(image.computed['background-image']).toBe('url("http://figma.test/assets/withbytes.png")');
    expect(image.computed['background-size']).toBe('contain');
    await expect.poll(() => requested).toContain('/assets/withbytes.png');
    const placeholder = await styleOf('1:3', ['background-image']);
    expect(placeholder.computed['background-image']).toBe('linear-gradient(rgb(217, 217, 217), rgb(217, 217, 217))');
    expect(placeholder.box).toEqual({ x: 10, y: 100, width: 120, height: 80 });
  });

  it('a simple rotation turns the box about its centre so its bounding box is Figma’s', async () => {
    const angle = (30 * Math.PI) / 180;
    const [w, h] = [100, 50];
    const bw = w * Math.cos(angle) + h * Math.sin(angle);
    const bh = w * Math.sin(angle) + h * Math.cos(angle);
    const frame = node('1:1', 'FRAME', 0, 0, 400, 400, { children: [
      node('1:2', 'RECTANGLE', 100, 100, bw, bh, { size: { x: w, y: h }, relativeTransform: [[Math.cos(angle), -Math.sin(angle), 0], [Math.sin(angle), Math.cos(angle), 0]], fills: [solid(0, 0, 0)] }),
    ] });
    await open(renderFigmaSite({ document: file(frame) }));
    const turned = await styleOf('1:2', ['transform', 'width']);
    expect(turned.computed.width).toBe('100px');
    expect(turned.computed.transform).not.toBe('none');
    for (const [k, v] of Object.entries({ x: 100, y: 100, width: bw, height: bh })) expect(Math.abs(turned.box[k as 'x'] - v)).toBeLessThan(0.5);
  });

  it('index.html lists every frame with a link to its page, its page name and size', async () => {
    const files = renderFigmaSite({ document: file(node('1:1', 'FRAME', 0, 0, 375, 812, { name: 'Sign in & up' }), node('1:2', 'COMPONENT', 0, 0, 120, 40, { name: 'Button' })) });
    await open(files, 'index.html');
    const links = await page.evaluate<string[][]>(`[...document.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href'), a.parentElement.querySelector('small').textContent])`);
    expect(links).toEqual([['Sign in & up', 'sign-in-up.html', 'Page 1 · 375px × 812px'], ['Button', 'button.html', 'Page 1 · 120px × 40px']]);
    expect(await page.locator('h1').textContent()).toBe('Test file');
  });
});
