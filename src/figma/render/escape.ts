/**
 * Everything that goes from a Figma file into the generated HTML and CSS passes
 * through here: layer names and text are the designer's (or anyone's) input.
 */

/** Text and attribute values: the five characters HTML gives meaning to. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A CSS string literal (a font family): quotes, backslashes and line breaks cannot end it. */
export const cssString = (text: string): string =>
  `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\n\r\f]/g, ' ').replace(/[<>]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`;

/** A length in px with at most two decimals, the same for the same input. */
export const px = (value: number): string => `${round(value)}px`;
export const round = (value: number): number => {
  const r = Math.round(value * 100) / 100;
  return Object.is(r, -0) ? 0 : r;
};

/** A lowercase identifier made of a layer name: letters, digits and dashes, starting with a letter. */
export function slug(name: string, fallback: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  if (!base) return fallback;
  return /^[a-z]/.test(base) ? base : `${fallback}-${base}`;
}

/** Hands out unique names: the second `card` is `card-2`, in the order asked. */
export class UniqueNames {
  private readonly used = new Set<string>();

  constructor(reserved: string[] = []) {
    for (const name of reserved) this.used.add(name);
  }

  take(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.used.has(name); n++) name = `${wanted}-${n}`;
    this.used.add(name);
    return name;
  }
}
