import type { Check, Finding } from '../../shared/contract/checks.ts';
import { checkOf, type StaticCheckContext } from './check-input.ts';
import { httpLinks } from './links.ts';

/**
 * The plain-text part (docs/decisions/0053-text-part-rules.md): present, and carrying every web link
 * of the HTML, since a reader of the text part has no other way to follow them.
 */
const MAX_LISTED = 10;

function variants(url: string): string[] {
  const bare = url.replace(/\/$/, '');
  return [url, bare, `${bare}/`, url.replace(/&amp;/g, '&')];
}

/** A character that carries a URL on: more path, a query, a fragment. */
const URL_GOES_ON = /[\w\-~/%?#&=+@$*]/;
/** Punctuation that may end a sentence after a URL, or carry it on when more URL follows (`1.html`). */
const TRAILING = /[.,;:!']/;

/**
 * Whether `url` stands in the text as a whole link: the text part of `https://example.com/12` does
 * not carry `https://example.com/1`. A link may be followed by the end, a space, a bracket
 * (`[https://…]`, the generated part's form), or punctuation that ends a sentence.
 */
export function carriesByScan(text: string, url: string): boolean {
  for (let at = text.indexOf(url); at !== -1; at = text.indexOf(url, at + 1)) {
    const next = text[at + url.length];
    if (next === undefined) return true;
    if (TRAILING.test(next)) {
      const after = text[at + url.length + 1];
      if (after === undefined || !URL_GOES_ON.test(after)) return true;
    } else if (!URL_GOES_ON.test(next)) return true;
  }
  return false;
}

/** Whether the character at `i` carries a link on: one of URL_GOES_ON, or punctuation before one. */
function goesOn(text: string, i: number): boolean {
  const c = text[i];
  if (c === undefined) return false;
  if (URL_GOES_ON.test(c)) return true;
  const after = text[i + 1];
  return TRAILING.test(c) && after !== undefined && URL_GOES_ON.test(after);
}

/**
 * The longest link-like run that starts at each `http` of the text. A URL made only of characters
 * that carry a link on (plainUrl) stands whole somewhere exactly when it
 * is one of these runs: where the text starts with it, its run covers it, and stops right after it
 * exactly when what follows ends a link in `carriesByScan`. One pass over the text answers every
 * link of a long email, where a scan per link grows with links × text.
 */
export function linkRuns(text: string): Set<string> {
  const runs = new Set<string>();
  for (let at = text.indexOf('http'); at !== -1; at = text.indexOf('http', at + 1)) {
    let end = at;
    while (goesOn(text, end)) end++;
    runs.add(text.slice(at, end));
  }
  return runs;
}

/**
 * Whether every character of `url` carries the link on within the URL itself (see linkRuns); so its
 * last one is one of URL_GOES_ON.
 */
function plainUrl(url: string): boolean {
  if (!url.startsWith('http')) return false;
  for (let i = 0; i < url.length; i++) if (!goesOn(url, i)) return false;
  return true;
}

export function carries(text: string, runs: Set<string>, url: string): boolean {
  return plainUrl(url) ? runs.has(url) : carriesByScan(text, url);
}

export function checkPlainText(ctx: StaticCheckContext): Check {
  const text = ctx.input.text;
  const findings: Finding[] = [];
  if (!text.trim()) {
    findings.push({
      severity: 'error',
      message: 'The plain-text part is empty: some clients and readers show only that part.',
      hint: 'Leave the text part blank to have it generated from the HTML, or write one.',
    });
    return checkOf('plain-text', findings);
  }
  const missing = new Map<string, { element: string; line: number }>();
  const runs = linkRuns(text);
  for (const link of httpLinks(ctx.doc)) {
    if (missing.has(link.url)) continue;
    if (!variants(link.url).some((v) => carries(text, runs, v)))
      missing.set(link.url, { element: link.element, line: link.line });
  }
  let listed = 0;
  for (const [url, at] of missing) {
    if (listed++ === MAX_LISTED) {
      findings.push({
        severity: 'warning',
        message: `${missing.size - MAX_LISTED} more links of the HTML are missing from the plain-text part.`,
        hint: 'Add them to the text part, or leave it blank to have it generated.',
      });
      break;
    }
    findings.push({
      severity: 'warning',
      message: `The plain-text part lacks a link of the HTML: ${url.slice(0, 120)}`,
      hint: 'Add it to the text part, or leave the text part blank to have it generated from the HTML.',
      ...at,
    });
  }
  return checkOf('plain-text', findings);
}
