/**
 * Rewrites the values of CSS declarations in a style sheet or a `style` attribute, leaving
 * everything else byte for byte: selectors, at-rule preludes, comments, strings and `url()`s.
 * It is not a CSS parser; it finds declarations the way the preview's transforms need
 * (docs/decisions/0047-forced-dark-approximation.md): a run of text that ends in `;` or `}` and has a
 * `:` outside parentheses and strings. Text that ends in `{` is a selector or a prelude.
 */

/** Returns the new value for `property` (lower-cased, trimmed), or null to keep the declaration. */
export type DeclarationRewriter = (property: string, value: string) => string | null;

function rewriteDeclaration(text: string, rewrite: DeclarationRewriter): string {
  const colon = topLevelIndex(text, ':');
  if (colon < 0) return text;
  const property = text.slice(0, colon).trim().toLowerCase();
  if (!/^-?[a-z][a-z0-9-]*$/.test(property)) return text;
  const value = text.slice(colon + 1);
  const next = rewrite(property, value);
  return next === null ? text : text.slice(0, colon + 1) + next;
}

/** Index of `char` outside strings, comments and parentheses, or -1. */
function topLevelIndex(text: string, char: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") i = skipString(text, i);
    else if (c === '/' && text[i + 1] === '*') i = skipComment(text, i);
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === char && depth === 0) return i;
  }
  return -1;
}

function skipString(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === quote || text[i] === '\n') return i;
  }
  return text.length;
}

function skipComment(text: string, start: number): number {
  const end = text.indexOf('*/', start + 2);
  return end < 0 ? text.length : end + 1;
}

/** Applies `rewrite` to every declaration of `css` (a style sheet, or a style attribute's value). */
export function rewriteDeclarations(css: string, rewrite: DeclarationRewriter): string {
  let out = '';
  let start = 0;
  let depth = 0;
  for (let i = 0; i < css.length; i++) {
    const c = css[i]!;
    if (c === '"' || c === "'") i = skipString(css, i);
    else if (c === '/' && css[i + 1] === '*') i = skipComment(css, i);
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === '{' || c === '}' || c === ';')) {
      const segment = css.slice(start, i);
      out += (c === '{' ? segment : rewriteDeclaration(segment, rewrite)) + c;
      start = i + 1;
    }
  }
  return out + rewriteDeclaration(css.slice(start), rewrite);
}

// A value's tokens that matter here: url()s and strings (kept whole), hex colours, colour
// functions and identifiers (which may be colour names).
const VALUE_TOKEN =
  /url\((?:[^()"']|"[^"]*"|'[^']*')*\)|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?)\([^()]*\)|-?[a-zA-Z_][a-zA-Z0-9_-]*/g;

/**
 * Calls `replace` for each token of a declaration value that is not inside a url() or a string;
 * url()s and strings are offered too (they start with `url(` or a quote), so a caller can drop
 * them. Returns the value with the replacements.
 */
export function mapValueTokens(value: string, replace: (token: string) => string): string {
  return value.replace(VALUE_TOKEN, replace);
}
