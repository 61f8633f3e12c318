/**
 * Where a node goes and how big it is. Auto layout frames become flex containers;
 * their children size themselves as in Figma (FIXED → fixed, HUG → auto, FILL →
 * grow or stretch). Everything else is placed absolutely from `absoluteBoundingBox`
 * relative to its parent.
 */
import type { FigmaNode, FigmaRect } from '../types.ts';
import type { Css } from './paint.ts';
import { px, round } from './escape.ts';

export type Sizing = 'FIXED' | 'HUG' | 'FILL';

export const isAutoLayout = (node: FigmaNode): boolean => node.layoutMode === 'HORIZONTAL' || node.layoutMode === 'VERTICAL';

const JUSTIFY: Record<string, string> = { MIN: 'flex-start', CENTER: 'center', MAX: 'flex-end', SPACE_BETWEEN: 'space-between' };
const ALIGN: Record<string, string> = { MIN: 'flex-start', CENTER: 'center', MAX: 'flex-end', BASELINE: 'baseline' };

/** The flex container of an auto layout frame: direction, gap, padding, alignment. */
export function containerCss(node: FigmaNode): Css {
  const row = node.layoutMode === 'HORIZONTAL';
  const css: Css = [['display', 'flex'], ['flex-direction', row ? 'row' : 'column']];
  const spaceBetween = node.primaryAxisAlignItems === 'SPACE_BETWEEN';
  if (node.layoutWrap === 'WRAP') {
    css.push(['flex-wrap', 'wrap']);
    const cross = node.counterAxisSpacing ?? 0;
    if (cross) css.push([row ? 'row-gap' : 'column-gap', px(cross)]);
  }
  // Figma ignores the spacing between items when it spreads them.
  if (node.itemSpacing && !spaceBetween) css.push([row ? 'column-gap' : 'row-gap', px(node.itemSpacing)]);
  const top = node.paddingTop ?? node.verticalPadding ?? 0;
  const bottom = node.paddingBottom ?? node.verticalPadding ?? 0;
  const left = node.paddingLeft ?? node.horizontalPadding ?? 0;
  const right = node.paddingRight ?? node.horizontalPadding ?? 0;
  if (top || right || bottom || left) css.push(['padding', [top, right, bottom, left].map(px).join(' ')]);
  css.push(['justify-content', JUSTIFY[node.primaryAxisAlignItems ?? 'MIN'] ?? 'flex-start']);
  css.push(['align-items', ALIGN[node.counterAxisAlignItems ?? 'MIN'] ?? 'flex-start']);
  return css;
}

/** How an auto layout frame sizes itself along one axis when nothing newer says (2020-era files). */
function ownSizing(node: FigmaNode, horizontal: boolean): Sizing | undefined {
  if (isAutoLayout(node)) {
    const primary = (node.layoutMode === 'HORIZONTAL') === horizontal;
    const mode = primary ? node.primaryAxisSizingMode ?? 'AUTO' : node.counterAxisSizingMode ?? 'FIXED';
    return mode === 'AUTO' ? 'HUG' : 'FIXED';
  }
  if (node.type === 'TEXT') {
    const resize = node.style?.textAutoResize;
    if (resize === 'WIDTH_AND_HEIGHT' || (!horizontal && resize === 'HEIGHT')) return 'HUG';
  }
  return undefined;
}

/** FIXED, HUG or FILL of a child of an auto layout parent, along one axis. */
export function childSizing(node: FigmaNode, parent: FigmaNode, horizontal: boolean): Sizing {
  const explicit = horizontal ? node.layoutSizingHorizontal : node.layoutSizingVertical;
  if (explicit === 'FIXED' || explicit === 'HUG' || explicit === 'FILL') return explicit;
  const primary = (parent.layoutMode === 'HORIZONTAL') === horizontal;
  if (primary && (node.layoutGrow ?? 0) > 0) return 'FILL';
  if (!primary && node.layoutAlign === 'STRETCH') return 'FILL';
  return ownSizing(node, horizontal) ?? 'FIXED';
}

/** The box relative to another box (its parent's). */
export const offset = (box: FigmaRect, origin: FigmaRect): FigmaRect => ({ x: box.x - origin.x, y: box.y - origin.y, width: box.width, height: box.height });

/**
 * A simple rotation from `relativeTransform` (a rotation matrix, no skew or scale),
 * in CSS degrees, and the unrotated size; undefined when there is none to apply.
 */
export function rotationOf(node: FigmaNode): { degrees: number; width: number; height: number } | undefined {
  const m = node.relativeTransform;
  const size = node.size;
  if (!Array.isArray(m) || m.length < 2 || !size) return undefined;
  const [a, c] = m[0];
  const [b, d] = m[1];
  const orthonormal = Math.abs(a - d) < 1e-3 && Math.abs(b + c) < 1e-3 && Math.abs(a * a + b * b - 1) < 1e-3;
  const degrees = round((Math.atan2(b, a) * 180) / Math.PI);
  if (!orthonormal || Math.abs(degrees) < 0.01) return undefined;
  return { degrees, width: size.x, height: size.y };
}

/**
 * Absolute placement inside a parent box. A rotated node keeps its own size, centred
 * where Figma's bounding box is, and turns about its centre: its rendered bounding
 * box is then Figma's.
 */
export function absoluteCss(node: FigmaNode, box: FigmaRect, parentBox: FigmaRect): Css {
  const at = offset(box, parentBox);
  const turn = rotationOf(node);
  if (turn) {
    const cx = at.x + at.width / 2;
    const cy = at.y + at.height / 2;
    return [
      ['position', 'absolute'],
      ['left', px(cx - turn.width / 2)],
      ['top', px(cy - turn.height / 2)],
      ['width', px(turn.width)],
      ['height', px(turn.height)],
      ['transform', `rotate(${turn.degrees}deg)`],
    ];
  }
  return [['position', 'absolute'], ['left', px(at.x)], ['top', px(at.y)], ['width', px(at.width)], ['height', px(at.height)]];
}

const SELF: Record<string, string> = { MIN: 'flex-start', CENTER: 'center', MAX: 'flex-end' };

/**
 * A child in the flow of an auto layout parent. Text keeps Figma's box even when it
 * hugs: the fonts here are not Figma's, and the box is what the design laid out.
 */
export function flowCss(node: FigmaNode, box: FigmaRect, parent: FigmaNode): Css {
  const row = parent.layoutMode === 'HORIZONTAL';
  const css: Css = [['position', 'relative']];
  const along = childSizing(node, parent, row);
  const across = childSizing(node, parent, !row);
  const [mainSize, crossSize] = row ? ['width', 'height'] : ['height', 'width'];
  const [mainLength, crossLength] = row ? [box.width, box.height] : [box.height, box.width];
  const keepsBox = node.type === 'TEXT' || !isAutoLayout(node);
  if (along === 'FILL') css.push(['flex', '1 1 0'], [`min-${mainSize}`, '0']);
  else {
    css.push(['flex', 'none']);
    if (along === 'FIXED' || keepsBox) css.push([mainSize, px(mainLength)]);
  }
  if (across === 'FILL') css.push(['align-self', 'stretch']);
  else {
    if (across === 'FIXED' || keepsBox) css.push([crossSize, px(crossLength)]);
    // 2020-era files align each child themselves.
    const self = SELF[node.layoutAlign ?? ''];
    if (self && parent.counterAxisAlignItems === undefined) css.push(['align-self', self]);
  }
  for (const [key, prop] of [['minWidth', 'min-width'], ['maxWidth', 'max-width'], ['minHeight', 'min-height'], ['maxHeight', 'max-height']] as const) {
    const value = node[key];
    if (typeof value === 'number' && Number.isFinite(value)) css.push([prop, px(value)]);
  }
  return css;
}
