/**
 * Figma renderer (DESIGN §14): a Figma file document (the body of `GET /v1/files/{key}`)
 * → a static site: `index.html` linking one page per frame, the pages, `styles.css`,
 * `assets/`. The output depends on the input alone (same file, same bytes).
 */
import { createHash } from 'node:crypto';
import { unprocessable } from '../../errors.ts';
import type { FigmaNode } from '../types.ts';
import { escapeHtml, px, slug, UniqueNames } from './escape.ts';
import { isVisible, renderNode, Stylesheet, type RenderContext } from './node.ts';

export { escapeHtml } from './escape.ts';

export interface FigmaAsset { bytes: Uint8Array; contentType: string }
export interface RenderInput {
  /** Body of Figma's GET /v1/files/{key} (same shape as an uploaded Figma JSON). */
  document: unknown;
  /** Default: every top-level FRAME/COMPONENT of every page (CANVAS children). */
  frameIds?: string[];
  /** imageRef → bytes for IMAGE fills; missing → neutral placeholder box of the right size. */
  images?: Map<string, FigmaAsset>;
}
/** 'index.html' linking one page per frame, the pages, 'styles.css', 'assets/…'. */
export interface RenderedFile { path: string; content: string | Uint8Array }

export interface FrameSummary { nodeId: string; name: string; page: string; width: number; height: number }

/** Node types drawn as a page of their own when they sit at the top of a page (or of a section there). */
const FRAME_TYPES = new Set(['FRAME', 'COMPONENT', 'COMPONENT_SET', 'INSTANCE']);

interface FrameEntry { node: FigmaNode; page: string; pointer: string }

function topFrames(document: unknown): FrameEntry[] {
  const root = (document as { document?: FigmaNode } | null)?.document;
  if (!root || typeof root !== 'object' || !Array.isArray(root.children)) {
    throw unprocessable('Not a Figma file: no document with pages.', [{ path: '/document', message: 'expected a DOCUMENT node with CANVAS children' }]);
  }
  const found: FrameEntry[] = [];
  const visit = (nodes: FigmaNode[] | undefined, page: string, pointer: string) => {
    (nodes ?? []).forEach((node, i) => {
      if (!node || typeof node !== 'object' || !isVisible(node)) return;
      const at = `${pointer}/children/${i}`;
      if (FRAME_TYPES.has(node.type) && node.id && node.absoluteBoundingBox) found.push({ node, page, pointer: at });
      // Frames inside a section are top-level frames of the page all the same.
      else if (node.type === 'SECTION') visit(node.children, page, at);
    });
  };
  root.children.forEach((page, i) => {
    if (page && page.type === 'CANVAS') visit(page.children, page.name ?? '', `/document/children/${i}`);
  });
  return found;
}

/** Every top-level frame of every page, with its page and size. */
export function listFrames(document: unknown): FrameSummary[] {
  return topFrames(document).map(({ node, page }) => ({
    nodeId: node.id,
    name: node.name ?? '',
    page,
    width: node.absoluteBoundingBox!.width,
    height: node.absoluteBoundingBox!.height,
  }));
}

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/svg+xml': 'svg', 'image/avif': 'avif' };

/** Image files under assets/, named after their imageRef when it is a plain name. */
class Assets {
  readonly files: RenderedFile[] = [];
  private readonly paths = new Map<string, string>();

  constructor(private readonly images: Map<string, FigmaAsset> | undefined) {}

  url = (imageRef: string): string | undefined => {
    const known = this.paths.get(imageRef);
    if (known) return known;
    const asset = this.images?.get(imageRef);
    if (!asset) return undefined;
    const base = /^[A-Za-z0-9_-]{1,100}$/.test(imageRef) ? imageRef : createHash('sha256').update(imageRef).digest('hex').slice(0, 32);
    const type = asset.contentType.split(';')[0].trim().toLowerCase();
    const path = `assets/${base}.${EXTENSIONS[type] ?? 'bin'}`;
    this.paths.set(imageRef, path);
    this.files.push({ path, content: asset.bytes });
    return path;
  };
}

const BASE_CSS = `*, *::before, *::after { box-sizing: border-box; margin: 0; padding: 0; }
body { margin: 0; }
.figma-index { font-family: system-ui, sans-serif; margin: 2rem; line-height: 1.5; }
.figma-index h1 { margin-bottom: 1rem; }
.figma-index li { margin-left: 1.5rem; }
`;

function page(title: string, body: string, bodyClass = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="styles.css">
</head>
<body${bodyClass ? ` class="${bodyClass}"` : ''}>
${body}
</body>
</html>
`;
}

/**
 * Renders the chosen frames (all by default). Throws 422 naming unknown frame ids,
 * and for a node that cannot be drawn even as a box; any other node falls back to one.
 */
export function renderFigmaSite(input: RenderInput): RenderedFile[] {
  const frames = topFrames(input.document);
  const byId = new Map(frames.map((f) => [f.node.id, f]));
  const wanted = input.frameIds ?? frames.map((f) => f.node.id);
  const unknown = wanted.filter((id) => !byId.has(id));
  if (unknown.length) {
    throw unprocessable(`Unknown frame ids: ${unknown.join(', ')}.`, unknown.map((id) => ({ path: `/frameIds/${wanted.indexOf(id)}`, message: `no top-level frame ${id} in the file` })));
  }
  const chosen = [...new Set(wanted)].map((id) => byId.get(id)!);
  const assets = new Assets(input.images);
  const css = new Stylesheet();
  const ctx: RenderContext = { names: new UniqueNames(['figma-index']), css, imageUrl: assets.url };
  const pageNames = new UniqueNames(['index', 'styles']);
  const pages: RenderedFile[] = [];
  const links: string[] = [];
  for (const { node, page: pageName, pointer } of chosen) {
    const path = `${pageNames.take(slug(node.name ?? '', 'frame'))}.html`;
    const body = renderNode(node, undefined, undefined, ctx, pointer);
    pages.push({ path, content: page(node.name ?? path, body) });
    const box = node.absoluteBoundingBox!;
    links.push(`<li><a href="${escapeHtml(path)}">${escapeHtml(node.name ?? path)}</a> <small>${escapeHtml(pageName)} · ${px(box.width)} × ${px(box.height)}</small></li>`);
  }
  const title = typeof (input.document as { name?: unknown }).name === 'string' ? (input.document as { name: string }).name : 'Figma frames';
  const index = page(title, `<main class="figma-index">\n<h1>${escapeHtml(title)}</h1>\n<ul>\n${links.join('\n')}\n</ul>\n</main>`);
  return [{ path: 'index.html', content: index }, ...pages, { path: 'styles.css', content: BASE_CSS + css.toString() }, ...assets.files];
}
