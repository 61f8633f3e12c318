/**
 * Figma paints and effects as CSS: fills → background layers, strokes → border,
 * outline or inset shadow (so that a stroke never moves the layout, as in Figma),
 * shadows → box-shadow, radii → border-radius.
 */
import type { FigmaColor, FigmaEffect, FigmaNode, FigmaPaint, FigmaRect } from '../types.ts';
import { px, round } from './escape.ts';

export type Css = Array<[property: string, value: string]>;

/** Where IMAGE fills find their file: a relative URL, or none for a placeholder. */
export type ImageUrl = (imageRef: string) => string | undefined;

/** Neutral grey of the box shown where an image's bytes are missing. */
export const PLACEHOLDER = '#d9d9d9';

const channel = (v: number) => Math.round(Math.min(1, Math.max(0, v)) * 255);

export function rgba(color: FigmaColor, opacity = 1): string {
  const alpha = round(Math.min(1, Math.max(0, (color.a ?? 1) * opacity)) * 1000) / 1000;
  return `rgba(${channel(color.r)}, ${channel(color.g)}, ${channel(color.b)}, ${alpha})`;
}

export const visiblePaints = (paints: FigmaPaint[] | undefined): FigmaPaint[] =>
  (paints ?? []).filter((p) => p && p.visible !== false && typeof p.type === 'string');

/**
 * The CSS angle of a linear gradient and where Figma's stops fall on the CSS
 * gradient line. Figma gives two handles in the node's unit square; CSS draws its
 * line through the centre, as long as the box's extent along the angle.
 */
export function linearGradientGeometry(handles: Array<{ x: number; y: number }>, width: number, height: number): { angle: number; start: number; end: number } {
  const [h0, h1] = handles;
  const p0 = { x: h0.x * width, y: h0.y * height };
  const p1 = { x: h1.x * width, y: h1.y * height };
  const dx = p1.x - p0.x;
  const dy = p1.y - p0.y;
  const angle = ((Math.atan2(dx, -dy) * 180) / Math.PI + 360) % 360;
  const rad = (angle * Math.PI) / 180;
  const u = { x: Math.sin(rad), y: -Math.cos(rad) };
  const length = Math.abs(width * u.x) + Math.abs(height * u.y) || 1;
  const along = (p: { x: number; y: number }) => ((p.x - width / 2) * u.x + (p.y - height / 2) * u.y + length / 2) / length;
  const fine = (v: number) => Math.round(v * 1e4) / 1e4 + 0; // + 0 turns -0 into 0
  return { angle: round(angle), start: fine(along(p0)), end: fine(along(p1)) };
}

function gradientStops(paint: FigmaPaint, at: (position: number) => number): string {
  const opacity = paint.opacity ?? 1;
  return (paint.gradientStops ?? []).map((s) => `${rgba(s.color, opacity)} ${round(at(s.position) * 100)}%`).join(', ');
}

/** One CSS background layer for a paint, or undefined for a paint CSS cannot draw. */
function layer(paint: FigmaPaint, box: FigmaRect, imageUrl: ImageUrl): { image: string; size?: string; repeat?: string } | undefined {
  const opacity = paint.opacity ?? 1;
  switch (paint.type) {
    case 'SOLID':
      return paint.color ? { image: `linear-gradient(${rgba(paint.color, opacity)}, ${rgba(paint.color, opacity)})` } : undefined;
    case 'GRADIENT_LINEAR': {
      if (!paint.gradientStops?.length) return undefined;
      const handles = paint.gradientHandlePositions?.length && paint.gradientHandlePositions.length >= 2 ? paint.gradientHandlePositions : [{ x: 0.5, y: 0 }, { x: 0.5, y: 1 }];
      const g = linearGradientGeometry(handles, box.width, box.height);
      return { image: `linear-gradient(${g.angle}deg, ${gradientStops(paint, (p) => g.start + p * (g.end - g.start))})` };
    }
    case 'GRADIENT_RADIAL':
    case 'GRADIENT_DIAMOND':
      return paint.gradientStops?.length ? { image: `radial-gradient(${gradientStops(paint, (p) => p)})` } : undefined;
    case 'GRADIENT_ANGULAR':
      return paint.gradientStops?.length ? { image: `conic-gradient(${gradientStops(paint, (p) => p)})` } : undefined;
    case 'IMAGE': {
      const url = paint.imageRef ? imageUrl(paint.imageRef) : undefined;
      if (!url) return { image: `linear-gradient(${PLACEHOLDER}, ${PLACEHOLDER})` };
      const size = paint.scaleMode === 'FIT' ? 'contain' : paint.scaleMode === 'TILE' ? 'auto' : paint.scaleMode === 'STRETCH' ? '100% 100%' : 'cover';
      return { image: `url("${url}")`, size, repeat: paint.scaleMode === 'TILE' ? 'repeat' : 'no-repeat' };
    }
    default:
      return undefined;
  }
}

/** Fills as background layers: Figma paints its list bottom-up, CSS lists the top layer first. */
export function backgroundCss(paints: FigmaPaint[], box: FigmaRect, imageUrl: ImageUrl): Css {
  const layers = visiblePaints(paints)
    .map((p) => layer(p, box, imageUrl))
    .filter((l): l is NonNullable<typeof l> => l !== undefined)
    .reverse();
  if (!layers.length) return [];
  const css: Css = [['background-image', layers.map((l) => l.image).join(', ')]];
  if (layers.some((l) => l.size)) {
    css.push(['background-size', layers.map((l) => l.size ?? 'auto').join(', ')]);
    css.push(['background-position', layers.map(() => 'center').join(', ')]);
    css.push(['background-repeat', layers.map((l) => l.repeat ?? 'repeat').join(', ')]);
  }
  return css;
}

/** A node's first visible solid (or gradient's first stop) colour: for text and strokes. */
export function firstColor(paints: FigmaPaint[] | undefined): string | undefined {
  for (const p of visiblePaints(paints)) {
    if (p.type === 'SOLID' && p.color) return rgba(p.color, p.opacity ?? 1);
    const stop = p.gradientStops?.[0];
    if (stop) return rgba(stop.color, p.opacity ?? 1);
  }
  return undefined;
}

/**
 * Strokes. INSIDE on a leaf is a border inside its box (border-box); on a container
 * an inset shadow, so children keep their places; CENTER and OUTSIDE are outlines,
 * which take no room. Returns the inset shadow separately to join the effects.
 */
export function strokeCss(node: FigmaNode, isLeaf: boolean): { css: Css; insetShadow?: string } {
  const color = firstColor(node.strokes);
  const weight = node.strokeWeight ?? 1;
  const sides = node.individualStrokeWeights;
  if (!color || (weight <= 0 && !sides)) return { css: [] };
  const style = node.strokeDashes?.length ? 'dashed' : 'solid';
  const align = node.strokeAlign ?? 'INSIDE';
  if (align === 'INSIDE' && isLeaf) {
    if (sides) return { css: [['border-style', style], ['border-color', color], ['border-width', [sides.top, sides.right, sides.bottom, sides.left].map(px).join(' ')]] };
    return { css: [['border', `${px(weight)} ${style} ${color}`]] };
  }
  if (align === 'INSIDE') return { css: [], insetShadow: `inset 0 0 0 ${px(weight)} ${color}` };
  return { css: [['outline', `${px(weight)} ${style} ${color}`], ['outline-offset', px(align === 'CENTER' ? -weight / 2 : 0)]] };
}

/** Shadows and blurs. Text takes its drop shadows as text-shadow. */
export function effectCss(effects: FigmaEffect[] | undefined, isText: boolean, extraShadow?: string): Css {
  const css: Css = [];
  const shadows: string[] = [];
  const textShadows: string[] = [];
  for (const e of effects ?? []) {
    if (!e || e.visible === false) continue;
    const color = e.color ? rgba(e.color) : 'rgba(0, 0, 0, 0.25)';
    const x = px(e.offset?.x ?? 0);
    const y = px(e.offset?.y ?? 0);
    const blur = px(e.radius ?? 0);
    if (e.type === 'DROP_SHADOW' && isText) textShadows.push(`${x} ${y} ${blur} ${color}`);
    else if (e.type === 'DROP_SHADOW') shadows.push(`${x} ${y} ${blur} ${px(e.spread ?? 0)} ${color}`);
    else if (e.type === 'INNER_SHADOW' && !isText) shadows.push(`inset ${x} ${y} ${blur} ${px(e.spread ?? 0)} ${color}`);
    else if (e.type === 'LAYER_BLUR') css.push(['filter', `blur(${px((e.radius ?? 0) / 2)})`]);
    else if (e.type === 'BACKGROUND_BLUR') css.push(['backdrop-filter', `blur(${px((e.radius ?? 0) / 2)})`]);
  }
  if (extraShadow) shadows.push(extraShadow);
  if (shadows.length) css.push(['box-shadow', shadows.join(', ')]);
  if (textShadows.length) css.push(['text-shadow', textShadows.join(', ')]);
  return css;
}

/** Corner radii: ELLIPSE is round, per-corner radii in Figma's (and CSS's) order tl tr br bl. */
export function radiusCss(node: FigmaNode): Css {
  if (node.type === 'ELLIPSE') return [['border-radius', '50%']];
  const radii = node.rectangleCornerRadii;
  if (Array.isArray(radii) && radii.length === 4 && radii.some((r) => r > 0) && !radii.every((r) => r === radii[0])) {
    return [['border-radius', radii.map(px).join(' ')]];
  }
  const r = node.cornerRadius ?? (Array.isArray(radii) ? radii[0] : 0);
  return r && r > 0 ? [['border-radius', px(r)]] : [];
}
