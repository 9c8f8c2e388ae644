import { FORCED_DARK_CANVAS, FORCED_DARK_TEXT } from './canvas.ts';
import { formatColor, fromHsl, parseColor, parseLegacyColor, toHsl, type Rgba } from './css-color.ts';
import { mapValueTokens, rewriteDeclarations } from './css-declarations.ts';

/**
 * "Dark — forced": an approximation of the colour inversion the Gmail app and Outlook.com apply
 * to emails that do not handle dark mode themselves (docs/decisions/0047-forced-dark-approximation.md).
 * Light backgrounds become dark and dark text becomes light, keeping the hue; dark backgrounds
 * and light text stay. It recolours every place an email puts colour: `<style>` blocks, `style`
 * attributes and the presentational attributes (`bgcolor`, `<font color>`, `<body text link
 * vlink alink>`). Images are left alone, as those clients do.
 *
 * `forceDark(doc)` works on any DOM Document (DOMParser in the app, a headless browser page in
 * a renderer) and reads nothing but the document.
 */

export type ColorRole = 'background' | 'text';

const FORCED_DARK_LINK = '#8ab4f8';

/**
 * The colour a light-on-dark client would show: a background lighter than mid-grey is mirrored
 * into the dark range (white → #121212-ish), text darker than mid-grey into the light range
 * (black → #ededed-ish). The mapping is continuous at mid-grey, so mid tones barely move.
 */
export function forcedDarkColor(color: Rgba, role: ColorRole): Rgba {
  if (color.a === 0) return color;
  const { h, s, l } = toHsl(color);
  if (role === 'background') {
    if (l <= 0.5) return color;
    return { ...fromHsl({ h, s: s * 0.6, l: 0.07 + (1 - l) * 0.86 }), a: color.a };
  }
  if (l >= 0.5) return color;
  return { ...fromHsl({ h, s, l: 0.93 - l * 0.86 }), a: color.a };
}

const TEXT_PROPERTIES = new Set(['color', '-webkit-text-fill-color', 'text-decoration-color', 'caret-color']);

/** Which colours of a property are backgrounds (including borders and outlines) or text. */
export function colorRole(property: string): ColorRole | null {
  if (TEXT_PROPERTIES.has(property)) return 'text';
  if (
    property === 'background' ||
    property === 'background-color' ||
    property.startsWith('border') ||
    property.startsWith('outline') ||
    property === 'column-rule' ||
    property === 'column-rule-color'
  )
    return 'background';
  return null;
}

/** A declaration value with each colour in it recoloured (url()s and strings untouched). */
export function forcedDarkValue(value: string, role: ColorRole): string {
  return mapValueTokens(value, (token) => {
    if (token.startsWith('url(') || token.startsWith('"') || token.startsWith("'")) return token;
    const color = parseColor(token);
    if (!color) return token;
    const dark = forcedDarkColor(color, role);
    return dark === color ? token : formatColor(dark);
  });
}

/** A style sheet or a `style` attribute with every colour declaration recoloured. */
export function forcedDarkCss(css: string): string {
  return rewriteDeclarations(css, (property, value) => {
    const role = colorRole(property);
    return role ? forcedDarkValue(value, role) : null;
  });
}

const LEGACY_ATTRIBUTES: ReadonlyArray<[string, ColorRole]> = [
  ['bgcolor', 'background'],
  ['color', 'text'],
  ['text', 'text'],
  ['link', 'text'],
  ['vlink', 'text'],
  ['alink', 'text'],
];

// Zero specificity: any rule of the email wins over these.
const DEFAULTS =
  `:where(:root){background-color:${FORCED_DARK_CANVAS};color:${FORCED_DARK_TEXT}}` +
  `:where(a:link,a:visited){color:${FORCED_DARK_LINK}}`;

/** Recolours `doc` in place for the forced-dark view. */
export function forceDark(doc: Document): void {
  for (const style of Array.from(doc.querySelectorAll('style'))) {
    const css = style.textContent ?? '';
    const next = forcedDarkCss(css);
    if (next !== css) style.textContent = next;
  }
  for (const el of Array.from(doc.querySelectorAll('[style]'))) {
    const css = el.getAttribute('style') ?? '';
    const next = forcedDarkCss(css);
    if (next !== css) el.setAttribute('style', next);
  }
  for (const [name, role] of LEGACY_ATTRIBUTES) {
    for (const el of Array.from(doc.querySelectorAll(`[${name}]`))) {
      // `color` and `text` are colours only on these elements (`text` is also an SVG element).
      if (name === 'color' && el.localName !== 'font' && el.localName !== 'basefont') continue;
      if (name !== 'bgcolor' && name !== 'color' && el.localName !== 'body') continue;
      const color = parseLegacyColor(el.getAttribute(name) ?? '');
      const dark = color && forcedDarkColor(color, role);
      if (dark && dark !== color) el.setAttribute(name, formatColor(dark));
    }
  }
  const defaults = doc.createElement('style');
  defaults.textContent = DEFAULTS;
  // After the leading <meta> elements (a Content-Security-Policy among them stays first).
  const head = doc.head ?? doc.documentElement;
  let before = head.firstElementChild;
  while (before?.localName === 'meta') before = before.nextElementSibling;
  head.insertBefore(defaults, before);
}
