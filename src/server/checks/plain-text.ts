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
  for (const link of httpLinks(ctx.doc)) {
    if (missing.has(link.url)) continue;
    if (!variants(link.url).some((v) => text.includes(v)))
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
