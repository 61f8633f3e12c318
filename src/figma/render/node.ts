/**
 * One Figma node (and its subtree) → HTML elements and their CSS rules. Every
 * element carries `data-node-id`, so a page can be measured against the design.
 */
import { unprocessable } from '../../errors.ts';
import type { FigmaNode, FigmaRect } from '../types.ts';
import { escapeHtml, px, slug, type UniqueNames } from './escape.ts';
import { absoluteCss, containerCss, flowCss, isAutoLayout } from './layout.ts';
import { backgroundCss, effectCss, radiusCss, strokeCss, visiblePaints, type Css, type ImageUrl } from './paint.ts';
import { textBoxCss, textHtml } from './text.ts';

/** The CSS of a site, rule by rule in the order written (the output is deterministic). */
export class Stylesheet {
  readonly rules: Array<[selector: string, css: Css]> = [];

  add(className: string, css: Css): void {
    this.rules.push([`.${className}`, css]);
  }

  toString(): string {
    return this.rules.map(([selector, css]) => `${selector} {\n${css.map(([p, v]) => `  ${p}: ${v};`).join('\n')}\n}\n`).join('');
  }
}

export interface RenderContext {
  names: UniqueNames;
  css: Stylesheet;
  imageUrl: ImageUrl;
}

const usableBox = (box: FigmaNode['absoluteBoundingBox']): box is FigmaRect =>
  !!box && [box.x, box.y, box.width, box.height].every((n) => typeof n === 'number' && Number.isFinite(n)) && box.width >= 0 && box.height >= 0;

export const isVisible = (node: FigmaNode): boolean => node.visible !== false;

/** Nodes that paint their own fills as a box (text paints its fills as glyph colour). */
function paintCss(node: FigmaNode, box: FigmaRect, ctx: RenderContext, isLeaf: boolean): Css {
  const isText = node.type === 'TEXT';
  // A mask shapes what follows it in Figma; here it is only a box, and it paints nothing.
  const fills = isText || node.isMask ? [] : visiblePaints(node.fills ?? node.background);
  const stroke = isText ? { css: [] } : strokeCss(node, isLeaf);
  return [
    ...backgroundCss(fills, box, ctx.imageUrl),
    ...(isText ? [] : radiusCss(node)),
    ...stroke.css,
    ...effectCss(node.effects, isText, stroke.insetShadow),
    ...(typeof node.opacity === 'number' && node.opacity < 1 ? ([['opacity', String(Math.max(0, node.opacity))]] as Css) : []),
  ];
}

/**
 * Renders `node` placed in `parent` (undefined for the frame of a page, drawn at the
 * page's origin). `pointer` is its JSON pointer in the file, for errors.
 */
export function renderNode(node: FigmaNode, parent: FigmaNode | undefined, parentBox: FigmaRect | undefined, ctx: RenderContext, pointer: string): string {
  if (!node || typeof node !== 'object' || typeof node.type !== 'string') {
    throw unprocessable('A node of the Figma file is not a node.', [{ path: pointer, message: 'expected an object with a type' }]);
  }
  const box = node.absoluteBoundingBox;
  if (!usableBox(box)) {
    throw unprocessable(`Node ${String(node.id)} cannot be rendered even as a box: it has no absoluteBoundingBox.`, [
      { path: pointer, message: `node ${String(node.id)} (${node.type}) has no usable absoluteBoundingBox` },
    ]);
  }
  const children = (node.children ?? []).map((child, i) => ({ child, i })).filter(({ child }) => child && isVisible(child));
  const isLeaf = children.length === 0;
  const className = ctx.names.take(slug(node.name ?? '', 'node'));

  let place: Css;
  if (!parent || !parentBox) place = [['position', 'relative'], ['width', px(box.width)], ['height', px(box.height)]];
  else if (isAutoLayout(parent) && node.layoutPositioning !== 'ABSOLUTE') place = flowCss(node, box, parent);
  else place = absoluteCss(node, box, parentBox);

  const css: Css = [...place];
  if (isAutoLayout(node) && node.type !== 'TEXT') css.push(...containerCss(node));
  if (node.clipsContent) css.push(['overflow', 'hidden']);
  if (node.type === 'TEXT') css.push(...textBoxCss(node));
  css.push(...paintCss(node, box, ctx, isLeaf));
  ctx.css.add(className, css);

  let inner = '';
  if (node.type === 'TEXT') {
    inner = textHtml(node, (styleId, runCss) => {
      const runClass = ctx.names.take(`${className}-run-${styleId}`);
      ctx.css.add(runClass, runCss);
      return runClass;
    });
  } else {
    inner = children.map(({ child, i }) => renderNode(child, node, box, ctx, `${pointer}/children/${i}`)).join('');
  }
  const attrs = `class="${className}" data-node-id="${escapeHtml(String(node.id))}" data-name="${escapeHtml(node.name ?? '')}"`;
  return `<div ${attrs}>${inner}</div>`;
}
