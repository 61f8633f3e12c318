/**
 * TEXT nodes: the type style as CSS, and the characters cut into runs where
 * `characterStyleOverrides` points into `styleOverrideTable` (each run a span).
 */
import type { FigmaNode, FigmaTypeStyle } from '../types.ts';
import type { Css } from './paint.ts';
import { firstColor } from './paint.ts';
import { cssString, escapeHtml, px, round } from './escape.ts';

const ALIGN: Record<string, string> = { LEFT: 'left', CENTER: 'center', RIGHT: 'right', JUSTIFIED: 'justify' };
const VERTICAL: Record<string, string> = { TOP: 'flex-start', CENTER: 'center', BOTTOM: 'flex-end' };
const CASE: Record<string, string> = { UPPER: 'uppercase', LOWER: 'lowercase', TITLE: 'capitalize' };
const DECORATION: Record<string, string> = { UNDERLINE: 'underline', STRIKETHROUGH: 'line-through' };

/** The properties of a type style that a run may override. */
export function typeCss(style: FigmaTypeStyle, fills: FigmaNode['fills']): Css {
  const css: Css = [];
  if (style.fontFamily) css.push(['font-family', `${cssString(style.fontFamily)}, sans-serif`]);
  if (style.fontSize) css.push(['font-size', px(style.fontSize)]);
  if (style.fontWeight) css.push(['font-weight', String(round(style.fontWeight))]);
  if (style.italic) css.push(['font-style', 'italic']);
  if (typeof style.lineHeightPx === 'number' && style.lineHeightPx > 0) css.push(['line-height', px(style.lineHeightPx)]);
  if (style.letterSpacing) css.push(['letter-spacing', px(style.letterSpacing)]);
  if (style.textCase && CASE[style.textCase]) css.push(['text-transform', CASE[style.textCase]]);
  if (style.textDecoration && DECORATION[style.textDecoration]) css.push(['text-decoration', DECORATION[style.textDecoration]]);
  const color = firstColor(fills);
  if (color) css.push(['color', color]);
  return css;
}

/** The whole text box: style, alignment, wrapping. */
export function textBoxCss(node: FigmaNode): Css {
  const style = node.style ?? {};
  const css = typeCss(style, node.fills);
  if (!css.some(([p]) => p === 'color')) css.push(['color', 'transparent']);
  css.push(['text-align', ALIGN[style.textAlignHorizontal ?? 'LEFT'] ?? 'left']);
  // The content sits in one span; the box places it vertically as Figma does.
  css.push(['display', 'flex'], ['flex-direction', 'column'], ['justify-content', VERTICAL[style.textAlignVertical ?? 'TOP'] ?? 'flex-start']);
  css.push(['white-space', style.textAutoResize === 'WIDTH_AND_HEIGHT' ? 'pre' : 'pre-wrap'], ['overflow-wrap', 'break-word']);
  return css;
}

export interface TextRun { text: string; styleId: number }

/** Consecutive characters with the same override id; 0 (or no entry) is the node's own style. */
export function textRuns(node: FigmaNode): TextRun[] {
  const text = node.characters ?? '';
  const overrides = node.characterStyleOverrides ?? [];
  const table = node.styleOverrideTable ?? {};
  const runs: TextRun[] = [];
  for (let i = 0; i < text.length; i++) {
    const raw = overrides[i] ?? 0;
    const id = table[String(raw)] ? raw : 0;
    const last = runs[runs.length - 1];
    if (last && last.styleId === id) last.text += text[i];
    else runs.push({ text: text[i], styleId: id });
  }
  return runs;
}

/**
 * The inner HTML of a text node: escaped runs, styled ones as spans with a class
 * made by `classFor` (which records the run's CSS).
 */
export function textHtml(node: FigmaNode, classFor: (styleId: number, css: Css) => string): string {
  const table = node.styleOverrideTable ?? {};
  const inner = textRuns(node)
    .map((run) => {
      if (run.styleId === 0) return escapeHtml(run.text);
      const override = table[String(run.styleId)];
      const css = typeCss(override, override.fills);
      return css.length ? `<span class="${classFor(run.styleId, css)}">${escapeHtml(run.text)}</span>` : escapeHtml(run.text);
    })
    .join('');
  return `<span>${inner}</span>`;
}
