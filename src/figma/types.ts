/**
 * The parts of Figma's REST file format (`GET /v1/files/{key}`) the renderer reads.
 * Every member is optional: files come from many API versions (2020's
 * `horizontalPadding` beside today's `layoutSizingHorizontal`), so readers check.
 */
export interface FigmaColor { r: number; g: number; b: number; a?: number }
export interface FigmaVector { x: number; y: number }
export interface FigmaRect { x: number; y: number; width: number; height: number }

export interface FigmaColorStop { position: number; color: FigmaColor }

export interface FigmaPaint {
  type: string; // SOLID | GRADIENT_LINEAR | GRADIENT_RADIAL | GRADIENT_ANGULAR | GRADIENT_DIAMOND | IMAGE | …
  visible?: boolean;
  opacity?: number;
  color?: FigmaColor;
  gradientHandlePositions?: FigmaVector[];
  gradientStops?: FigmaColorStop[];
  scaleMode?: string; // FILL | FIT | TILE | STRETCH
  imageRef?: string | null;
}

export interface FigmaEffect {
  type: string; // DROP_SHADOW | INNER_SHADOW | LAYER_BLUR | BACKGROUND_BLUR
  visible?: boolean;
  radius?: number;
  spread?: number;
  color?: FigmaColor;
  offset?: FigmaVector;
}

export interface FigmaTypeStyle {
  fontFamily?: string;
  fontWeight?: number;
  fontSize?: number;
  italic?: boolean;
  textCase?: string; // UPPER | LOWER | TITLE | …
  textDecoration?: string; // UNDERLINE | STRIKETHROUGH
  textAlignHorizontal?: string; // LEFT | CENTER | RIGHT | JUSTIFIED
  textAlignVertical?: string; // TOP | CENTER | BOTTOM
  textAutoResize?: string; // NONE | HEIGHT | WIDTH_AND_HEIGHT | TRUNCATE
  letterSpacing?: number;
  lineHeightPx?: number;
  lineHeightUnit?: string;
  fills?: FigmaPaint[];
}

export interface FigmaNode {
  id: string;
  name?: string;
  type: string;
  visible?: boolean;
  children?: FigmaNode[];
  absoluteBoundingBox?: FigmaRect | null;
  size?: FigmaVector;
  relativeTransform?: number[][];
  rotation?: number;
  opacity?: number;
  isMask?: boolean;
  clipsContent?: boolean;
  fills?: FigmaPaint[];
  background?: FigmaPaint[];
  strokes?: FigmaPaint[];
  strokeWeight?: number;
  individualStrokeWeights?: { top: number; right: number; bottom: number; left: number };
  strokeAlign?: string; // INSIDE | OUTSIDE | CENTER
  strokeDashes?: number[];
  cornerRadius?: number;
  rectangleCornerRadii?: number[];
  effects?: FigmaEffect[];
  // Auto layout of a container.
  layoutMode?: string; // NONE | HORIZONTAL | VERTICAL | GRID
  layoutWrap?: string; // NO_WRAP | WRAP
  primaryAxisSizingMode?: string; // FIXED | AUTO
  counterAxisSizingMode?: string; // FIXED | AUTO
  primaryAxisAlignItems?: string; // MIN | CENTER | MAX | SPACE_BETWEEN
  counterAxisAlignItems?: string; // MIN | CENTER | MAX | BASELINE
  counterAxisSpacing?: number;
  itemSpacing?: number;
  paddingLeft?: number;
  paddingRight?: number;
  paddingTop?: number;
  paddingBottom?: number;
  horizontalPadding?: number; // the 2020 API's names
  verticalPadding?: number;
  // Place of a child inside an auto layout parent.
  layoutAlign?: string; // INHERIT | STRETCH | MIN | CENTER | MAX (the last three from the 2020 API)
  layoutGrow?: number;
  layoutPositioning?: string; // AUTO | ABSOLUTE
  layoutSizingHorizontal?: string; // FIXED | HUG | FILL
  layoutSizingVertical?: string;
  minWidth?: number | null;
  maxWidth?: number | null;
  minHeight?: number | null;
  maxHeight?: number | null;
  // Text.
  characters?: string;
  style?: FigmaTypeStyle;
  characterStyleOverrides?: number[];
  styleOverrideTable?: Record<string, FigmaTypeStyle>;
}

export interface FigmaFile {
  name?: string;
  document: FigmaNode;
}
