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
const NOT_BLANK = /\S/;

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

/** The nearest declared font size in px (inline style), or undefined (the client's default). */
export function fontSizePx(el: El): number | undefined {
  for (let e: El | null = el; e && e.name !== '#document'; e = e.parent) {
    const v = styleValue(e, 'font-size');
    if (v !== undefined) return lengthPx(v);
  }
  return undefined;
}

export function isBold(el: El): boolean {
  for (let e: El | null = el; e && e.name !== '#document'; e = e.parent) {
    if (['b', 'strong', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'th'].includes(e.name)) return true;
    const w = styleValue(e, 'font-weight');
    if (w !== undefined) return w === 'bold' || w === 'bolder' || Number(w) >= 700;
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
