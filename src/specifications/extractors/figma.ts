/**
 * Figma file JSON (DESIGN §13), the shape `GET /v1/files/:key` answers: each page of the
 * file (a CANVAS under the DOCUMENT) holds frames; every visible top-level frame (also one
 * inside a top-level SECTION) is a page of the sitemap draft, titled with the frame's name.
 * Components, groups and text at the top of a page are design material, not screens.
 * Locators are node ids: `node 1:23`.
 */
import { ExtractionError, emptyDraft } from './types.ts';
import type { Draft, Extractor } from './types.ts';

interface FigmaNode {
  id?: unknown;
  name?: unknown;
  type?: unknown;
  visible?: unknown;
  children?: unknown;
}

function children(node: FigmaNode): FigmaNode[] {
  return Array.isArray(node.children) ? (node.children as FigmaNode[]).filter((c) => c && typeof c === 'object') : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function readJson(bytes: Uint8Array, name: string): { name?: unknown; document?: FigmaNode } {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as { document?: FigmaNode };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ExtractionError(`${name} is not JSON: ${message}`);
  }
  throw new ExtractionError(`${name} is not a Figma file: the JSON is not an object`);
}

/** Top-level frames of one Figma page, looking one level into sections. */
function topFrames(canvas: FigmaNode): FigmaNode[] {
  const frames: FigmaNode[] = [];
  for (const node of children(canvas)) {
    if (node.visible === false) continue;
    if (node.type === 'FRAME') frames.push(node);
    else if (node.type === 'SECTION') frames.push(...children(node).filter((c) => c.type === 'FRAME' && c.visible !== false));
  }
  return frames;
}

export const extractFigma: Extractor = async (input) => {
  const file = readJson(input.bytes, input.name);
  const document = file.document;
  if (!document || document.type !== 'DOCUMENT') {
    throw new ExtractionError(`${input.name} is not a Figma file: no "document" node of type DOCUMENT (the GET /v1/files/:key shape)`);
  }
  const draft: Draft = emptyDraft();
  const title = text(file.name);
  if (title) draft.title = title;
  const canvases = children(document).filter((node) => node.type === 'CANVAS');
  for (const canvas of canvases) {
    const pageName = text(canvas.name) || 'Untitled page';
    const frames = topFrames(canvas);
    if (frames.length === 0) {
      draft.warnings.push({
        locator: `node ${text(canvas.id)}`,
        message: `Figma page "${pageName}" has no top-level frames (its components, groups and text are not screens): no page`,
      });
      continue;
    }
    for (const frame of frames) {
      const frameName = text(frame.name);
      const locator = `node ${text(frame.id)}`;
      if (!frameName) {
        draft.warnings.push({ locator, message: `a frame on Figma page "${pageName}" has no name: skipped` });
        continue;
      }
      draft.pages.push({ title: frameName, description: `Figma page "${pageName}"`, locator });
    }
  }
  if (canvases.length === 0) {
    draft.warnings.push({ locator: `node ${text(document.id)}`, message: 'the Figma document has no pages' });
  }
  draft.description = `${canvases.length} Figma pages, ${draft.pages.length} top-level frames`;
  return draft;
};
