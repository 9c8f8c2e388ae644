import type { Declaration } from './css-scan.ts';
import { styleValue, type El } from './html-doc.ts';

/**
 * Uses of a feature that a client ignoring the feature lays out the same, so that the
 * compatibility check (compatibility.ts) does not report them as broken there
 * (docs/decisions/0063-pre-send-checklist.md): a declaration that sets a property back to its
 * initial value, `box-sizing` on a box without both a size and padding or a border, a min-/max-
 * limit the element's own size already keeps.
 */

/**
 * Each property's initial value, as emails write it. A client that ignores a property ignores every
 * declaration of it, so there the property is at this value everywhere: a declaration that sets it
 * back (MJML's navbar writes `max-height: none`, a button `box-shadow: none`) changes nothing in that
 * client and uses nothing.
 */
const INITIAL_VALUES: Record<string, readonly string[]> = {
  position: ['static'],
  transform: ['none'],
  animation: ['none'],
  'animation-name': ['none'],
  transition: ['none'],
  'box-shadow': ['none'],
  'text-shadow': ['none'],
  opacity: ['1', '1.0', '100%'],
  filter: ['none'],
  'backdrop-filter': ['none'],
  'mix-blend-mode': ['normal'],
  'background-blend-mode': ['normal'],
  'clip-path': ['none'],
  'mask-image': ['none'],
  'object-fit': ['fill'],
  'aspect-ratio': ['auto'],
  'background-size': ['auto', 'auto auto'],
  'background-position': ['0 0', '0px 0px', '0% 0%', 'left top', 'top left'],
  'background-repeat': ['repeat'],
  'background-clip': ['border-box'],
  'background-origin': ['padding-box'],
  'border-radius': ['0', '0px'],
  'border-image': ['none'],
  'max-width': ['none'],
  'max-height': ['none'],
  'min-width': ['0', '0px', 'auto'],
  'min-height': ['0', '0px', 'auto'],
  'z-index': ['auto'],
  inset: ['auto'],
  left: ['auto'],
  right: ['auto'],
  top: ['auto'],
  bottom: ['auto'],
  'text-overflow': ['clip'],
  'writing-mode': ['horizontal-tb'],
  'column-count': ['auto'],
  'box-sizing': ['content-box'],
  'list-style-image': ['none'],
  'user-select': ['auto'],
  resize: ['none'],
  hyphens: ['manual'],
  'color-scheme': ['normal'],
  'accent-color': ['auto'],
  'text-underline-offset': ['auto'],
  'text-decoration-thickness': ['auto'],
};

/** CSS-wide keywords: where the property is ignored, it is at its initial value, and so are they. */
const CSS_WIDE = new Set(['initial', 'unset', 'inherit', 'revert']);

/** Whether the declaration only sets its property back to where a client that ignores it has it. */
export function setsBack(d: Declaration): boolean {
  return CSS_WIDE.has(d.value) || (INITIAL_VALUES[d.property]?.includes(d.value) ?? false);
}

const SIZES = ['width', 'height', 'min-width', 'min-height', 'max-width', 'max-height'];
const BORDER_SIDE = /^border(?:-(?:top|right|bottom|left))?$/;
const BORDER_STYLE = /\b(?:solid|dashed|dotted|double|groove|ridge|inset|outset)\b/;

/**
 * Whether `box-sizing` changes this element's box: only a size (CSS or attribute) with padding or
 * a border beside it is measured differently by it. Postmark's button (`box-sizing: border-box`
 * with borders, no width) looks the same in a client that ignores it. A `<style>` rule is asked the
 * same of each element it selects (box-sizing-rule.ts).
 */
export function boxSizingTells(el: El): boolean {
  const sized =
    el.attrs.width !== undefined ||
    el.attrs.height !== undefined ||
    el.style.some((d) => SIZES.includes(d.property) && !setsBack(d) && d.value !== 'auto');
  if (!sized) return false;
  if (el.attrs.border !== undefined && /[1-9]/.test(el.attrs.border)) return true;
  return el.style.some(
    (d) =>
      (d.property.startsWith('padding') && /[1-9]/.test(d.value)) ||
      (BORDER_SIDE.test(d.property) &&
        BORDER_STYLE.test(d.value) &&
        !/(?:^|\s)0(?:px)?(?:\s|$)/.test(d.value)),
  );
}

/** An image with a width attribute in pixels, and no CSS width or one in px: fixed everywhere. */
export function fixedWidthImage(el: El): boolean {
  const declared = styleValue(el, 'width');
  return length(el.attrs.width)?.unit === 'px' && (declared === undefined || length(declared)?.unit === 'px');
}

/** The min-/max- limits, the size each bounds, and which way. */
const SIZE_LIMITS: Record<string, readonly [limit: string, size: 'width' | 'height', bound: 'min' | 'max']> =
  {
    'css-min-width': ['min-width', 'width', 'min'],
    'css-max-width': ['max-width', 'width', 'max'],
    'css-min-height': ['min-height', 'height', 'min'],
    'css-max-height': ['max-height', 'height', 'max'],
  };
/** Whether the feature is a min-/max- size limit. */
export const isSizeLimit = (slug: string): boolean => slug in SIZE_LIMITS;

/** Elements whose `width` and `height` attributes every client sizes them by, classic Outlook first. */
const SIZED_BY_ATTRIBUTE = new Set(['table', 'td', 'th', 'img']);

function length(value: string | undefined): { n: number; unit: string } | undefined {
  const m = /^(\d+(?:\.\d+)?)(px|%)?$/.exec(value ?? '');
  return m ? { n: Number(m[1]), unit: m[2] ?? 'px' } : undefined;
}

export const ROOT_ELEMENTS = new Set(['html', 'body']);

/** A minimum of at most 100 % on the root or the body, which every client sizes to the window. */
export function windowHoldsLimit(slug: string, value: string | undefined): boolean {
  const limit = length(value);
  return SIZE_LIMITS[slug]?.[2] === 'min' && limit?.unit === '%' && limit.n <= 100;
}

/**
 * Whether the element's own size already keeps it within a min-/max- limit, so that a client that
 * ignores the limit lays it out the same: `width:600px; min-width:600px`, a spacer's `height="1"`
 * beside `max-height:1px`, a `width="600"` table with `min-width:240px`. The root and the body are
 * as wide and as high as the window in every client: `min-width:100%` there is the same.
 */
export function limitHeldBySize(el: El, slug: string): boolean {
  const limits = SIZE_LIMITS[slug];
  if (!limits) return false;
  const [property, dimension, bound] = limits;
  const value = styleValue(el, property);
  if (ROOT_ELEMENTS.has(el.name) && windowHoldsLimit(slug, value)) return true;
  const limit = length(value);
  if (!limit) return false;
  const declared = styleValue(el, dimension);
  const attribute = SIZED_BY_ATTRIBUTE.has(el.name) ? el.attrs[dimension] : undefined;
  // A box of its content's size is no wider than what holds it: max-width:100% keeps nothing in
  // (React Email's button writes it on an <a> and a <span>).
  if (
    bound === 'max' &&
    limit.unit === '%' &&
    limit.n >= 100 &&
    (declared ?? 'auto') === 'auto' &&
    !attribute
  )
    return true;
  // An image of a fixed width keeps it where the limit is ignored: the limit only shrinks it in a
  // narrow window, which the clients that ignore it (Outlook on Windows) do not have.
  if (el.name === 'img' && bound === 'max' && fixedWidthImage(el)) return true;
  // A box of auto width in a parent of a fixed width no wider than the maximum: the parent keeps
  // it (leemunroe's `.content` div, `max-width: 600px` in its `width="600"` cell). Not an image,
  // which is as wide as its file wherever its own size does not say otherwise.
  if (
    bound === 'max' &&
    dimension === 'width' &&
    el.name !== 'img' &&
    (declared ?? 'auto') === 'auto' &&
    !attribute &&
    parentKeeps(el, limit)
  )
    return true;
  const size = length(declared ?? attribute);
  if (!size || size.unit !== limit.unit) return false;
  return bound === 'min' ? size.n >= limit.n : size.n <= limit.n;
}

/** Whether the element's parent has a fixed width in px no wider than the limit. */
function parentKeeps(el: El, limit: { n: number; unit: string }): boolean {
  const parent = el.parent;
  if (!parent || limit.unit !== 'px') return false;
  const width = length(
    styleValue(parent, 'width') ?? (SIZED_BY_ATTRIBUTE.has(parent.name) ? parent.attrs.width : undefined),
  );
  return width?.unit === 'px' && width.n <= limit.n;
}

/** What the style sheets give an element beyond its own style (sheet-boxes.ts), in sheet order. */
export type GivenStyle = (el: El) => readonly Declaration[];

/**
 * `limitHeldBySize` for a limit declared anywhere (the element's style or a `<style>` rule), with
 * the sizes the sheets give the element too: held when every size declared for it keeps the limit
 * (whichever wins the cascade), or, without one, its attribute or its auto size does; or a
 * minimum width its content keeps (`contentKeepsMinWidth`).
 */
export function limitHeld(el: El, limit: Declaration, slug: string, given: GivenStyle): boolean {
  const limits = SIZE_LIMITS[slug];
  if (!limits) return false;
  const [, dimension, bound] = limits;
  const own = [...given(el), ...el.style];
  const sizes = own.filter((d) => d.property === dimension);
  const judged = (size?: Declaration) =>
    limitHeldBySize({ ...el, style: size ? [limit, size] : [limit] }, slug);
  if (sizes.length === 0 ? judged() : sizes.every((size) => judged(size))) return true;
  return (
    bound === 'min' &&
    dimension === 'width' &&
    (contentKeepsMinWidth(el, own, limit, given) || labelTable(el, own))
  );
}

/** The elements a button's label is written in. */
const PHRASING = new Set(['a', 'span', 'b', 'strong', 'i', 'em', 'u', 'font', 'br', 'small', 'sup', 'sub']);
const TABLE_PARTS = new Set(['tbody', 'thead', 'tr', 'td', 'th']);

/**
 * A button: a table of no width of its own that holds one link and its label, nothing else (the
 * bulletproof button: `<table style="min-width:120px"><tr><td bgcolor="…" style="padding:12px
 * 24px"><a href="…">Explore</a>`). A table without a width is as wide as its content, so where the
 * minimum is ignored a short label makes a narrower button, and nothing overflows or hides.
 */
function labelTable(el: El, own: readonly Declaration[]): boolean {
  if (el.name !== 'table' || el.attrs.width !== undefined) return false;
  if (own.some((d) => d.property === 'width' && !setsBack(d) && d.value !== 'auto')) return false;
  let text = false;
  let links = 0;
  const onlyLabel = (node: El): boolean =>
    node.children.every((c) => {
      if (c.kind === 'text') {
        text ||= c.text.trim() !== '';
        return true;
      }
      if (c.name === 'a' && c.attrs.href !== undefined) links++;
      return (TABLE_PARTS.has(c.name) || PHRASING.has(c.name)) && onlyLabel(c);
    });
  return onlyLabel(el) && text && links === 1;
}

/** Declarations that paint a box, so that its own width shows. */
const PAINTS = /^(?:background|border|box-shadow|outline)/;
const UNPAINTED = new Set(['none', '0', '0px', 'transparent', 'hidden']);

/**
 * A minimum width in px that the element's content keeps anyway, on a box that paints nothing
 * (`own`: everything its style and the sheets give it):
 * Foundation for Emails writes `center { width: 100%; min-width: 580px }` around its
 * `table.container { width: 580px }`. Where the minimum is ignored, the `<center>` may be narrower
 * than the table in a narrow window, but the table keeps its 580 px and nothing of the `<center>`
 * shows, so the email looks the same. A child counts when it is seen by every client, shown, and
 * fixed: each width declared for it (or, without one, its width attribute) at least the minimum in
 * px, and no `max-width` to shrink it.
 */
function contentKeepsMinWidth(
  el: El,
  own: readonly Declaration[],
  limit: Declaration,
  given: GivenStyle,
): boolean {
  const min = length(limit.value);
  if (min?.unit !== 'px') return false;
  if (el.attrs.bgcolor !== undefined || el.attrs.background !== undefined) return false;
  if (own.some((d) => PAINTS.test(d.property) && !UNPAINTED.has(d.value) && !setsBack(d))) return false;
  return el.children.some((child) => {
    if (child.kind !== 'element' || child.audience !== 'all') return false;
    const style = [...given(child), ...child.style];
    if (
      style.some(
        (d) =>
          (d.property === 'display' && d.value === 'none') || (d.property === 'max-width' && !setsBack(d)),
      )
    )
      return false;
    const widths = style.filter((d) => d.property === 'width').map((d) => d.value);
    const attribute = SIZED_BY_ATTRIBUTE.has(child.name) ? child.attrs.width : undefined;
    const fixed = widths.length > 0 ? widths : attribute !== undefined ? [attribute] : [];
    return fixed.length > 0 && fixed.every((w) => length(w)?.unit === 'px' && length(w)!.n >= min.n);
  });
}
