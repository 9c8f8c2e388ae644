/** CSS colours as the contrast check reads them (WCAG 2.2 relative luminance and contrast ratio). */

export type Rgb = readonly [number, number, number];

const NAMED: Record<string, string> = {
  black: '#000000',
  white: '#ffffff',
  red: '#ff0000',
  green: '#008000',
  blue: '#0000ff',
  gray: '#808080',
  grey: '#808080',
  silver: '#c0c0c0',
  lightgray: '#d3d3d3',
  lightgrey: '#d3d3d3',
  darkgray: '#a9a9a9',
  darkgrey: '#a9a9a9',
  dimgray: '#696969',
  navy: '#000080',
  maroon: '#800000',
  purple: '#800080',
  teal: '#008080',
  olive: '#808000',
  orange: '#ffa500',
  yellow: '#ffff00',
  aqua: '#00ffff',
  cyan: '#00ffff',
  fuchsia: '#ff00ff',
  magenta: '#ff00ff',
  lime: '#00ff00',
  whitesmoke: '#f5f5f5',
  gainsboro: '#dcdcdc',
};

/** Colours read so far, by value as written; emptied when full (a job reads a few dozen). */
const parsed = new Map<string, Rgb | null>();
const PARSED_MAX = 1024;

/**
 * An opaque colour, or null for what cannot be judged: transparent, translucent, `inherit`,
 * `currentColor`, variables, unknown names.
 */
export function parseColour(value: string | undefined): Rgb | null {
  if (!value) return null;
  let known = parsed.get(value);
  if (known === undefined) {
    // An email repeats a few colours on thousands of elements: each is read once.
    if (parsed.size >= PARSED_MAX) parsed.clear();
    parsed.set(value, (known = readColour(value)));
  }
  return known;
}

function readColour(value: string): Rgb | null {
  let v = value.trim().toLowerCase();
  v = NAMED[v] ?? v;
  let m = /^#([0-9a-f]{3})$/.exec(v);
  if (m) {
    const n = parseInt(m[1]!, 16);
    return [((n >> 8) & 15) * 17, ((n >> 4) & 15) * 17, (n & 15) * 17];
  }
  m = /^#([0-9a-f]{6})(?:ff)?$/.exec(v);
  if (m) {
    const n = parseInt(m[1]!, 16);
    return [n >> 16, (n >> 8) & 255, n & 255];
  }
  m = /^rgba?\(\s*(\d{1,3})[\s,]+(\d{1,3})[\s,]+(\d{1,3})\s*(?:[,/]\s*([\d.]+%?)\s*)?\)$/.exec(v);
  if (m) {
    if (m[4] !== undefined && m[4] !== '1' && m[4] !== '100%') return null;
    return [Math.min(255, Number(m[1])), Math.min(255, Number(m[2])), Math.min(255, Number(m[3]))];
  }
  return null;
}

function channel(c: number): number {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

export function luminance([r, g, b]: Rgb): number {
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The colour as one number (0xRRGGBB), to key maps by. */
export function rgbNumber([r, g, b]: Rgb): number {
  return (r << 16) | (g << 8) | b;
}

export function hex([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((n) => n.toString(16).padStart(2, '0')).join('')}`;
}
