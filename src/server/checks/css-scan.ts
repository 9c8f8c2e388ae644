import { splitCss } from '../prepare/css-rules.ts';

/**
 * CSS as the checks read it: declarations of a `style` attribute, and the rules of a `<style>`
 * block flattened with the at-rules they sit in (splitCss of src/server/prepare/css-rules.ts does
 * the splitting, so strings, comments and nesting are respected the same way as when inlining).
 */

export interface Declaration {
  /** Lower-cased. */
  property: string;
  /** Lower-cased, without `!important`. */
  value: string;
  important: boolean;
}

export interface CssRule {
  selectors: string[];
  declarations: Declaration[];
  /** Enclosing at-rules, outermost first (`@media (max-width: 600px)`). */
  atRules: string[];
  /** Offset of the rule in the CSS text. */
  offset: number;
}

export interface CssAtRule {
  /** `@media (max-width: 600px)`, `@font-face`, `@import url(…)`. */
  prelude: string;
  name: string;
  offset: number;
  /** Enclosing at-rules, outermost first. */
  within: string[];
}

/** Splits at `;` outside strings and brackets. */
function splitTop(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

export function parseDeclarations(text: string): Declaration[] {
  const out: Declaration[] = [];
  for (const part of splitTop(text.replace(/\/\*[\s\S]*?\*\//g, ''), ';')) {
    const colon = part.indexOf(':');
    if (colon === -1) continue;
    const property = part.slice(0, colon).trim().toLowerCase();
    let value = part.slice(colon + 1).trim();
    if (!property || !value) continue;
    const important = /!\s*important\s*$/i.test(value);
    if (important) value = value.replace(/!\s*important\s*$/i, '').trim();
    out.push({ property, value: value.toLowerCase(), important });
  }
  return out;
}

/** The value the last declaration of `property` gives (the one that wins), or undefined. */
export function lastValue(declarations: readonly Declaration[], property: string): string | undefined {
  for (let i = declarations.length - 1; i >= 0; i--) {
    if (declarations[i]!.property === property) return declarations[i]!.value;
  }
  return undefined;
}

/**
 * Whether a style sheet's URL (an `@import`'s, a `<link>`'s) is a web font's: Google Fonts, Bunny
 * Fonts, Adobe's Typekit and the like. Where it is not loaded, the font stack's next font shows,
 * as with `@font-face`: an enhancement, not a break.
 */
export function isWebFontSheet(url: string): boolean {
  return /font|typekit/i.test(url);
}

/**
 * The interactive pseudo-classes (`:hover`, `:focus`, `:active`, `:visited`): a rule with one
 * styles a state, not the box a reader first sees. Global: for `match` and `replace`.
 */
export const INTERACTIVE_STATES = /:(?:hover|focus|active|visited)\b/g;

/** Every rule and at-rule of a style sheet, nested blocks (`@media`, `@supports`) flattened. */
export function scanCss(css: string): { rules: CssRule[]; atRules: CssAtRule[] } {
  const rules: CssRule[] = [];
  const atRules: CssAtRule[] = [];
  const walk = (text: string, base: number, within: string[]) => {
    let cursor = 0;
    for (const item of splitCss(text)) {
      const found = text.indexOf(item.text, cursor);
      const at = found === -1 ? cursor : found;
      cursor = found === -1 ? cursor : found + item.text.length;
      if (item.kind === 'rule') {
        rules.push({
          selectors: item.selectors,
          declarations: parseDeclarations(item.block.replace(/^\{|\}$/g, '')),
          atRules: within,
          offset: base + at,
        });
        continue;
      }
      const brace = item.text.indexOf('{');
      const prelude = (brace === -1 ? item.text.replace(/;$/, '') : item.text.slice(0, brace))
        .replace(/\s+/g, ' ')
        .trim();
      const name = (/^@([\w-]+)/.exec(prelude)?.[1] ?? '').toLowerCase();
      atRules.push({ prelude, name, offset: base + at, within });
      if (brace !== -1 && /^(media|supports|document|layer|container)$/.test(name)) {
        const inner = item.text.slice(brace + 1, item.text.lastIndexOf('}'));
        walk(inner, base + at + brace + 1, [...within, prelude]);
      }
    }
  };
  walk(css, 0, []);
  return { rules, atRules };
}
