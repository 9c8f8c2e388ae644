import { INTERACTIVE_STATES } from './css-scan.ts';

/**
 * caniemail's notes on partial support, read for what they say about the use at hand
 * (docs/decisions/0111-partial-support-read-per-use.md). Many notes name the uses they are about:
 * Outlook.com "supports `sticky` but not `relative`", Yahoo "does not support multiple values" of
 * background-image, Gmail (web) "does not support height based media queries". A use such a note
 * does not concern works in that client, and a client whose every note passes the use by is not
 * named. A note that names nothing (an account type, a bug) concerns every use.
 */

/** What the compatibility check knows of one use of a feature. */
export interface UseDetail {
  /** The element it is written on, or null in a `<style>` block. */
  el: { name: string } | null;
  /** The declaration's property and value (lower-cased), or an at-rule's prelude as the value. */
  property?: string;
  value?: string;
  /** The selectors of a `<style>` rule that carry the feature (a pseudo-class). */
  selectors?: readonly string[];
  /** An at-rule inside `@media`. */
  nested?: boolean;
}

/** Whether a note concerns a use; each scope concerns a use it cannot tell about. */
type Scope = (use: UseDetail, note: string) => boolean;

/** The words a note writes as code, lower-cased; read once per note (there are a few dozen). */
const codeWords = new Map<string, string[]>();
function backticked(text: string): string[] {
  let words = codeWords.get(text);
  if (!words) {
    words = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.toLowerCase());
    codeWords.set(text, words);
  }
  return words;
}

/** A value with more than one comma-separated item outside brackets (`url(a), url(b)`). */
function hasTopLevelComma(value: string): boolean {
  let depth = 0;
  for (const c of value) {
    if (c === '(') depth++;
    else if (c === ')' && depth > 0) depth--;
    else if (c === ',' && depth === 0) return true;
  }
  return false;
}

const valued =
  (test: (value: string) => boolean): Scope =>
  (use) =>
    use.value === undefined || test(use.value);

/** A media query's types and features (`screen`, `max-width`), without the words that join them. */
function mediaTerms(prelude: string): string[] {
  const query = prelude.replace(/^@media\b/i, '').toLowerCase();
  const features = [...query.matchAll(/\(\s*([a-z-]+)/g)].map((m) => m[1]!);
  const types = query
    .replace(/\([^)]*\)/g, ' ')
    .split(/[\s,]+/)
    .filter((w) => w && !['and', 'only', 'not', 'or'].includes(w));
  return [...types, ...features];
}

const SCOPES: [RegExp, Scope][] = [
  // Classic Outlook's max-width; its background attribute.
  [/only works on `?<table>`? elements/i, (use) => use.el?.name !== 'table'],
  [/only supported on the `?<body>`? element/i, (use) => use.el?.name !== 'body'],
  // position: "Supports `relative`, `absolute` but not `sticky` and `fixed`."
  [
    /\bsupports (.+) but not\b/i,
    (use, note) => {
      const supported = backticked(note.slice(0, note.search(/\bbut not\b/i)));
      return use.value === undefined || !supported.includes(use.value.trim().split(/\s+/)[0]!);
    },
  ],
  [/does not support multiple values/i, valued(hasTopLevelComma)],
  [/elliptical borders with the slash/i, valued((v) => v.includes('/'))],
  [/percentages values are not supported/i, valued((v) => v.includes('%'))],
  [/the `all` keyword is not supported/i, valued((v) => /\ball\b/.test(v))],
  [
    /longhand properties are not supported/i,
    (use) => use.property === undefined || use.property.includes('-'),
  ],
  [/big negative values/i, valued((v) => v.trim().startsWith('-'))],
  [/values set in `em`/i, valued((v) => /\d(?:\.\d+)?em\b/.test(v))],
  [
    /^`(\w+)` value does not work/i,
    (use, note) => use.value === undefined || backticked(note)[0] === use.value,
  ],
  [/does not support `inline` and `block` values/i, valued((v) => v === 'inline' || v === 'block')],
  // Media queries: the prelude is the value.
  [/does not support height based media queries/i, valued((v) => /height/.test(v))],
  [/nested media queries/i, (use) => use.nested !== false],
  [/does not support landscape media query/i, valued((v) => /landscape/.test(v))],
  [
    /only supports (`[^`]+`(?:, | and )?)+ based media queries/i,
    (use, note) => {
      if (use.value === undefined) return true;
      const allowed = backticked(note);
      return mediaTerms(use.value).some((term) => !allowed.includes(term));
    },
  ],
  // Outlook.com's interactive pseudo-classes: `a:hover` works, `.button:hover` does not.
  [
    /only supported on type selectors/i,
    (use) =>
      use.selectors === undefined ||
      use.selectors.some((s) => /[.#[*:]/.test(s.replace(INTERACTIVE_STATES, ''))),
  ],
];

/** The notes of a client's partial support that concern this use (a note that names nothing does). */
export function notesConcerning(notes: readonly string[], use: UseDetail): string[] {
  return notes.filter((note) => scopeOf(note)?.(use, note) ?? true);
}

/** Each note's scope, found once (a feature used thousands of times asks about the same notes). */
const scopes = new Map<string, Scope | null>();
function scopeOf(note: string): Scope | null {
  let scope = scopes.get(note);
  if (scope === undefined) {
    scope = SCOPES.find(([re]) => re.test(note))?.[1] ?? null;
    scopes.set(note, scope);
  }
  return scope;
}

/** Whether a client's partial support concerns this use: it has no notes, or one that concerns it. */
export function partialConcerns(notes: readonly string[], use: UseDetail): boolean {
  return notes.length === 0 || notesConcerning(notes, use).length > 0;
}

/**
 * A note as a finding quotes it: the words of Markdown links, no code marks, no "Partial." (the
 * finding already says "only partly supported"), single spaces, a full stop at the end.
 */
export function noteText(note: string): string {
  const text = note
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/\s+/g, ' ')
    .replace(/^partial(?:ly supported| support)?[.:]\s*/i, '')
    .trim();
  if (!text) return '';
  const capital = text[0]!.toUpperCase() + text.slice(1);
  return /[.)!]$/.test(capital) ? capital : `${capital}.`;
}
