/**
 * A small splitter for the CSS of a `<style>` block: top-level at-rules and style rules with their
 * selectors, as written. It does not interpret declarations; it only needs to know where each rule
 * starts and ends (strings, comments, brackets and nested blocks are respected) and what its
 * selectors are, to decide what may be inlined (docs/decisions/0051-css-inliner.md).
 */

export type CssItem =
  { kind: 'at-rule'; text: string } | { kind: 'rule'; selectors: string[]; block: string; text: string };

/** Index just past the string that starts at `i` (a quote), or the end of the input. */
function skipString(css: string, i: number): number {
  const quote = css[i];
  let j = i + 1;
  while (j < css.length && css[j] !== quote) {
    if (css[j] === '\\') j++;
    else if (css[j] === '\n') return j; // an unclosed string ends at the line end
    j++;
  }
  return Math.min(j + 1, css.length);
}

function skipComment(css: string, i: number): number {
  const end = css.indexOf('*/', i + 2);
  return end === -1 ? css.length : end + 2;
}

/**
 * Past a string, a comment or an escape starting at `i` (whose brackets and braces do not count),
 * or `i` itself when none starts there.
 */
function skipOpaque(css: string, i: number): number {
  const c = css[i];
  if (c === '"' || c === "'") return skipString(css, i);
  if (c === '/' && css[i + 1] === '*') return skipComment(css, i);
  if (c === '\\') return i + 2;
  return i;
}

/**
 * Scans from `i` to the first of `stops` found outside strings, comments and (), [] and {}
 * nesting. Returns its index, or the length of the input.
 */
function scanTo(css: string, i: number, stops: string): number {
  let depth = 0;
  while (i < css.length) {
    const c = css[i]!;
    const past = skipOpaque(css, i);
    if (past !== i) {
      i = past;
      continue;
    }
    if (depth === 0 && stops.includes(c)) return i;
    if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    i++;
  }
  return i;
}

/** Index just past the `}` that closes the block opened at `open`. */
function blockEnd(css: string, open: number): number {
  let depth = 0;
  for (let i = open; i < css.length;) {
    const c = css[i]!;
    const past = skipOpaque(css, i);
    if (past !== i) {
      i = past;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
    i++;
  }
  return css.length;
}

/** Splits a selector list at its top-level commas. */
export function splitSelectors(prelude: string): string[] {
  const selectors: string[] = [];
  let start = 0;
  for (;;) {
    const comma = scanTo(prelude, start, ',');
    const selector = prelude.slice(start, comma).trim();
    if (selector) selectors.push(selector);
    if (comma >= prelude.length) return selectors;
    start = comma + 1;
  }
}

export function splitCss(css: string): CssItem[] {
  const items: CssItem[] = [];
  let i = 0;
  while (i < css.length) {
    const c = css[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && css[i + 1] === '*') {
      i = skipComment(css, i);
      continue;
    }
    // HTML comment tokens that old templates wrap their CSS in.
    if (css.startsWith('<!--', i)) {
      i += 4;
      continue;
    }
    if (css.startsWith('-->', i)) {
      i += 3;
      continue;
    }
    if (c === '@') {
      const stop = scanTo(css, i, ';{}');
      const end = css[stop] === '{' ? blockEnd(css, stop) : Math.min(stop + 1, css.length);
      items.push({ kind: 'at-rule', text: css.slice(i, end).trim() });
      i = end;
      continue;
    }
    const open = scanTo(css, i, '{}');
    if (css[open] !== '{') {
      // A stray `}` or trailing garbage: browsers drop it, so do we.
      i = open + 1;
      continue;
    }
    const end = blockEnd(css, open);
    const selectors = splitSelectors(css.slice(i, open));
    const block = css.slice(open, end).trim();
    if (selectors.length > 0) items.push({ kind: 'rule', selectors, block, text: css.slice(i, end).trim() });
    i = end;
  }
  return items;
}

/** The selector with comments dropped and blanks collapsed, to compare selectors as text. */
export function normalizeSelector(selector: string): string {
  return selector
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([>+~,])\s*/g, '$1')
    .trim();
}

/** The selector outside of strings, [attribute] brackets and (arguments): what its structure is. */
function structureOf(selector: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < selector.length;) {
    const c = selector[i]!;
    if (c === '"' || c === "'") {
      i = skipString(selector, i);
      continue;
    }
    if (c === '\\') {
      i += 2;
      out += 'x';
      continue;
    }
    if (c === '[' || c === '(') depth++;
    else if ((c === ']' || c === ')') && depth > 0) depth--;
    else if (depth === 0) out += c;
    i++;
  }
  return out;
}

/** Pseudo-classes that depend on the reader (pointer, focus, history, the URL): never inlinable. */
const DYNAMIC_PSEUDO =
  /:(?:hover|focus|focus-within|focus-visible|active|visited|link|any-link|target|checked|indeterminate|placeholder-shown|autofill)\b/i;
/** ::before, ::after, ::placeholder … and the legacy one-colon forms. */
const PSEUDO_ELEMENT = /::|:(?:before|after|first-line|first-letter|selection|placeholder|marker)\b/i;

/**
 * Why a selector stays in the `<style>` block without being inlined, or null when the inliner may
 * try it. A rule for the universal selector (`*` resets, usually with `!important`) would copy its
 * declarations onto every element; dynamic pseudo-classes and pseudo-elements cannot be written
 * into a style attribute at all; and in a fragment, rules for `html`, `body` or `:root` are for the
 * mail client's page.
 */
export function keepReason(
  selector: string,
  { fragment = false }: { fragment?: boolean } = {},
): 'universal' | 'pseudo' | 'client-body' | null {
  const structure = structureOf(selector);
  if (/(^|[\s>+~])\*/.test(structure)) return 'universal';
  if (PSEUDO_ELEMENT.test(structure) || DYNAMIC_PSEUDO.test(structure)) return 'pseudo';
  // A fragment has no <html> or <body> of its own: such rules (and `:root`, the root element) style
  // the mail client's, from <style>. Inlined, they would land on the parser's made-up <html>.
  if (
    fragment &&
    /^(?:html|body)\b|^[^\s>+~]*:root\b/i.test(
      structure
        .trim()
        .split(/\s*[\s>+~]\s*/)
        .pop() ?? '',
    )
  )
    return 'client-body';
  return null;
}

/**
 * The CSS of a style attribute with no string holding a quote of the other kind: the inliner
 * (`@css-inline/css-inline`) writes declarations between double quotes and turns every `"` in them
 * into `'`, so `"Reader's Sans"` came out as `'Reader's Sans'`, an invalid declaration, and a
 * data URI's `"…xmlns='…'…"` as a broken `url()`. Such a string is rewritten, same value, as one
 * the swap leaves intact: single-quoted, its `'` escaped as `\'` and any `"` as `\22 `. Every other
 * string, comment and character stays as written; one pass over the input.
 */
export function quotesForAttribute(css: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < css.length;) {
    const c = css[i];
    if (c === '/' && css[i + 1] === '*') {
      i = skipComment(css, i);
      continue;
    }
    if (c !== '"' && c !== "'") {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < css.length && css[j] !== c && css[j] !== '\n') j += css[j] === '\\' ? 2 : 1;
    // An unclosed string (a parse error that ends at the line end) is left as written.
    if (css[j] !== c) {
      i = j;
      continue;
    }
    const body = css.slice(i + 1, j);
    if (body.includes(c === '"' ? "'" : '"')) {
      out += `${css.slice(from, i)}'${requoted(body)}'`;
      from = j + 1;
    }
    i = j + 1;
  }
  return from === 0 ? css : out + css.slice(from);
}

/** A string's body written for single quotes, with no `"` left: escapes kept, `\"` and `"` as `\22 `. */
function requoted(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\' && i + 1 < body.length) {
      const next = body[++i]!;
      out += next === '"' ? '\\22 ' : `\\${next}`;
    } else if (c === '"') out += '\\22 ';
    else if (c === "'") out += "\\'";
    else out += c;
  }
  return out;
}
