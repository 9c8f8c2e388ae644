import { parseColour, type Rgb } from './colour.ts';
import { styleValue, type El, type TextNode } from './html-doc.ts';

/**
 * What the checks need of the cascade, from inline styles and presentational attributes only (the
 * HTML as sent is usually inlined; a `<style>` block is not applied): hidden or not, the text
 * colour, the background behind it, the font size.
 */

/** Whether the element's own attributes and inline style hide it (and so everything inside it). */
function hidesItself(e: El): boolean {
  if (e.attrs.hidden !== undefined || e.attrs['aria-hidden'] === 'true') return true;
  return hidingStyle((property) => styleValue(e, property));
}

/**
 * Whether these declarations hide the box they apply to, and everything in it, by the idioms
 * emails use: an element's inline style, or a `<style>` rule (a preheader's class, say). `value`
 * gives a property's last value. `font-size: 0` is not one: it hides the box's own text, and a
 * child that sets its own size shows (the hybrid layout's columns sit in a `font-size:0` cell,
 * which removes the gaps between them); see textHidden.
 */
export function hidingStyle(value: (property: string) => string | undefined): boolean {
  if (value('display') === 'none') return true;
  if (value('visibility') === 'hidden') return true;
  if (value('mso-hide') === 'all' && value('max-height')?.startsWith('0')) return true;
  if (/^0(?:px|%)?$/.test(value('max-height') ?? '') && value('overflow') === 'hidden') return true;
  return /^0(?:\.0*)?$/.test(value('opacity') ?? '');
}

/** Hidden by the idioms emails use: display:none, visibility:hidden, mso-hide, zero height or opacity. */
export function isHidden(el: El): boolean {
  if (el.name === '#document') return false;
  // Kept on the element: the checks ask for most elements, and each answer is its parent's answer
  // or its own, so a document is walked once, not once per element.
  el.hidden ??= hidesItself(el) || (el.parent !== null && isHidden(el.parent));
  return el.hidden;
}

/** Whether the element's own text is unseen: its box is hidden, or its font size is zero. */
export function textHidden(el: El): boolean {
  return isHidden(el) || fontSizePx(el) === 0;
}

/** Whether the element has text of its own (not only whitespace or &nbsp;): `ownText` without building it. */
export function hasOwnText(el: El): boolean {
  for (const c of el.children) if (c.kind === 'text' && NOT_BLANK.test(c.text)) return true;
  return false;
}
/**
 * A character a reader sees: not whitespace, nor one of the invisible characters spacer cells and
 * preheader fillers are made of (zero-width spaces and joiners, the soft hyphen, the combining
 * grapheme joiner, direction marks, word joiners, variation selectors, Hangul fillers).
 */
const NOT_BLANK =
  /(?!\u034F|\u1160|\u17B4|\u17B5|\p{Variation_Selector})[^\s\u00AD\u061C\u115F\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFFA0]/u;

/** The element's own text (not its descendants'), blanks collapsed; empty when only whitespace or &nbsp;. */
export function ownText(el: El): string {
  return el.children
    .filter((c): c is TextNode => c.kind === 'text')
    .map((c) => c.text)
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/** px from a CSS length in px or pt; undefined for relative units (em, %, keywords). */
export function lengthPx(value: string | undefined): number | undefined {
  const m = /^([\d.]+)\s*(px|pt)?$/.exec(value?.trim() ?? '');
  if (!m) return undefined;
  const n = Number(m[1]);
  if (!Number.isFinite(n)) return undefined;
  return m[2] === 'pt' ? (n * 4) / 3 : n;
}

/** The size mail clients (as browsers) give text nobody sized: 16 px. */
const DEFAULT_FONT_PX = 16;
/** The absolute-size keywords, in px at the default size (CSS Fonts 4). */
const KEYWORD_PX: Record<string, number> = {
  'xx-small': 9,
  'x-small': 10,
  small: 13,
  medium: 16,
  large: 18,
  'x-large': 24,
  'xx-large': 32,
  'xxx-large': 48,
};
/** Elements with a size of their own in every client's default style sheet, in em of the parent's. */
const DEFAULT_EM: Record<string, number> = {
  h1: 2,
  h2: 1.5,
  h3: 1.17,
  h5: 0.83,
  h6: 0.67,
  small: 1 / 1.2,
  big: 1.2,
};
/** `<font size="1">` to `"7"`, in px. */
const FONT_ATTRIBUTE_PX = [10, 13, 16, 18, 24, 32, 48];
/** The size in a `font` shorthand: before the optional `/line-height` and the family. */
const SHORTHAND_SIZE =
  /(?:^|\s)([\d.]+(?:px|pt|em|rem|%)|(?:xx?-)?small|medium|(?:xx?x?-)?large|smaller|larger)(?:\s*\/\s*\S+)?\s/;
const SHORTHAND_WEIGHT = /(?:^|\s)(bold|bolder|lighter|[1-9]00)(?:\s|$)/;

/** The last of a property and the `font` shorthand the element declares, as its `font-size` or `font-weight`. */
function fontLonghand(el: El, property: 'font-size' | 'font-weight'): string | undefined {
  for (let i = el.style.length - 1; i >= 0; i--) {
    const d = el.style[i]!;
    if (d.property === property) return d.value;
    if (d.property === 'font') {
      // The shorthand sets both: a weight it leaves out is normal again.
      if (property === 'font-weight') return SHORTHAND_WEIGHT.exec(d.value)?.[1] ?? 'normal';
      return SHORTHAND_SIZE.exec(`${d.value} `)?.[1];
    }
  }
  return undefined;
}

/** A `font-size` value in px, given the parent's; undefined for what cannot be told (calc, var). */
function sizeIn(value: string, parentPx: number): number | undefined {
  const v = value.trim();
  const px = lengthPx(v);
  if (px !== undefined) return px;
  const m = /^([\d.]+)(em|rem|%)$/.exec(v);
  if (m) {
    const n = Number(m[1]);
    if (!Number.isFinite(n)) return undefined;
    if (m[2] === 'rem') return n * DEFAULT_FONT_PX;
    return m[2] === '%' ? (n / 100) * parentPx : n * parentPx;
  }
  if (v === 'smaller') return parentPx / 1.2;
  if (v === 'larger') return parentPx * 1.2;
  if (v === 'inherit') return parentPx;
  return KEYWORD_PX[v];
}

/**
 * The element's font size in px as the cascade of inline styles makes it: `font-size` or the `font`
 * shorthand in px, pt, em, %, rem or a keyword, relative to the parent's; a heading's, `<small>`'s
 * and `<font size>`'s default; 16 px where nothing says otherwise.
 */
export function fontSizePx(el: El): number {
  if (el.name === '#document') return DEFAULT_FONT_PX;
  if (el.fontPx !== undefined) return el.fontPx;
  const parentPx = el.parent ? fontSizePx(el.parent) : DEFAULT_FONT_PX;
  const declared = fontLonghand(el, 'font-size');
  let px: number | undefined = declared === undefined ? undefined : sizeIn(declared, parentPx);
  if (declared === undefined && el.name === 'font' && /^[1-7]$/.test(el.attrs.size ?? ''))
    px = FONT_ATTRIBUTE_PX[Number(el.attrs.size) - 1];
  if (declared === undefined && DEFAULT_EM[el.name]) px = DEFAULT_EM[el.name]! * parentPx;
  // Kept on the element, as isHidden's answer is: each answer is its parent's, or its own.
  el.fontPx = px ?? parentPx;
  return el.fontPx;
}

export function isBold(el: El): boolean {
  for (let e: El | null = el; e && e.name !== '#document'; e = e.parent) {
    const w = fontLonghand(e, 'font-weight');
    if (w !== undefined) return w === 'bold' || w === 'bolder' || Number(w) >= 700;
    if (['b', 'strong', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'th'].includes(e.name)) return true;
  }
  return false;
}

/** The text colour: the nearest `color` or `<font color>`; null when it cannot be judged. */
export function textColour(el: El): { colour: Rgb | null; declared: boolean } {
  for (let e: El | null = el; e && e.name !== '#document'; e = e.parent) {
    const v = styleValue(e, 'color') ?? (e.name === 'font' ? e.attrs.color : undefined);
    if (v !== undefined) return { colour: parseColour(v), declared: true };
  }
  return { colour: [0, 0, 0], declared: false };
}

/**
 * The background behind the element: the nearest background colour (background-color, bgcolor,
 * the colour of a `background` shorthand); null when an image or something unjudgeable is behind.
 */
export function backgroundColour(el: El): { colour: Rgb | null; declared: boolean } {
  for (let e: El | null = el; e && e.name !== '#document'; e = e.parent) {
    const image = styleValue(e, 'background-image');
    const shorthand = styleValue(e, 'background');
    if (
      (image && image !== 'none') ||
      (shorthand && /url\(|gradient\(/.test(shorthand)) ||
      e.attrs.background
    )
      return { colour: null, declared: true };
    const v =
      styleValue(e, 'background-color') ??
      (shorthand && !/^(?:none|transparent|inherit|initial)$/.test(shorthand)
        ? shorthand.split(/\s+/).pop()
        : undefined) ??
      e.attrs.bgcolor;
    if (v !== undefined && v !== 'transparent') return { colour: parseColour(v), declared: true };
  }
  return { colour: [255, 255, 255], declared: false };
}
