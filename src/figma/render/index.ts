/**
 * Figma renderer (DESIGN §14): a Figma file document (the body of `GET /v1/files/{key}`)
 * → a static site: `index.html` linking one page per frame, the pages, `styles.css`, `assets/`.
 */
import { unprocessable } from '../../errors.ts';

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

interface Box { x: number; y: number; width: number; height: number }
interface RawNode { id?: string; name?: string; type?: string; children?: RawNode[]; absoluteBoundingBox?: Box }

const FRAME_TYPES = new Set(['FRAME', 'COMPONENT', 'COMPONENT_SET', 'INSTANCE', 'SECTION']);

function pages(document: unknown): RawNode[] {
  const root = (document as { document?: RawNode } | null)?.document;
  if (!root || !Array.isArray(root.children)) throw unprocessable('Not a Figma file: no document with pages.', [{ path: '/document', message: 'expected a DOCUMENT node with CANVAS children' }]);
  return root.children.filter((page) => page.type === 'CANVAS');
}

/** Every top-level frame of every page, with its page and size. */
export function listFrames(document: unknown): Array<{ nodeId: string; name: string; page: string; width: number; height: number }> {
  return pages(document).flatMap((page) => (page.children ?? [])
    .filter((node) => FRAME_TYPES.has(node.type ?? '') && node.id && node.absoluteBoundingBox)
    .map((node) => ({ nodeId: node.id as string, name: node.name ?? '', page: page.name ?? '', width: node.absoluteBoundingBox!.width, height: node.absoluteBoundingBox!.height })));
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Renders the chosen frames (all by default). Throws 422 naming unknown frame ids. */
export function renderFigmaSite(input: RenderInput): RenderedFile[] {
  const frames = listFrames(input.document);
  const wanted = input.frameIds ?? frames.map((f) => f.nodeId);
  const unknown = wanted.filter((id) => !frames.some((f) => f.nodeId === id));
  if (unknown.length) throw unprocessable(`Unknown frame ids: ${unknown.join(', ')}.`, unknown.map((id) => ({ path: '/frameIds', message: `no top-level frame ${id}` })));
  const chosen = frames.filter((f) => wanted.includes(f.nodeId));
  const files: RenderedFile[] = chosen.map((f, i) => ({
    path: `frame-${i + 1}.html`,
    content: `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(f.name)}</title><link rel="stylesheet" href="styles.css"></head><body></body></html>\n`,
  }));
  const links = chosen.map((f, i) => `<li><a href="frame-${i + 1}.html">${escapeHtml(f.name)}</a></li>`).join('');
  files.unshift({ path: 'index.html', content: `<!doctype html><html><head><meta charset="utf-8"><title>Frames</title></head><body><ul>${links}</ul></body></html>\n` });
  files.push({ path: 'styles.css', content: 'body { margin: 0; }\n' });
  return files;
}
