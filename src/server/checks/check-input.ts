import type { Check, CheckId, Finding } from '../../shared/contract/checks.ts';
import { statusOf } from '../../shared/contract/checks.ts';
import type { TargetClientId } from '../../shared/contract/checks.ts';
import type { TemplateSyntax } from '../../shared/contract/email.ts';
import type { HtmlDoc } from './html-doc.ts';

/**
 * What the static checks read: the final message as `prepare` made it
 * (src/server/prepare/prepare.ts `Prepared`), never what the user wrote.
 */
export interface CheckInput {
  /** The HTML part as sent. */
  html: string;
  /** The text part as sent. */
  text: string;
  subject: string;
  bytes: { message: number };
  headers: { name: string; value: string }[];
  /** Merge tags a template engine could not fill, and its syntax, when one ran. */
  notes?: { unfilled?: string[]; syntax?: TemplateSyntax };
}

export interface StaticCheckContext {
  input: CheckInput;
  doc: HtmlDoc;
  targetClients: readonly TargetClientId[];
}

/** What the checks of the HTML part alone read (src/server/checks/static-checks.ts `checkHtml`). */
export type HtmlCheckContext = Omit<StaticCheckContext, 'input'>;

export const CHECK_TITLES: Record<CheckId, string> = {
  size: 'Message Size',
  compatibility: 'Client Compatibility',
  links: 'Links',
  images: 'Images',
  accessibility: 'Accessibility',
  content: 'Content',
  'plain-text': 'Plain-Text Part',
  spam: 'Spam Score',
};

export function checkOf(id: CheckId, findings: Finding[]): Check {
  const listed = foldFindings(findings);
  return { id, title: CHECK_TITLES[id], status: statusOf(listed), findings: listed };
}

/** How many findings with the same message, hint and severity a check lists before it folds the rest. */
export const SAME_LISTED = 3;
/** How many findings a check lists at most, the last of them counting what is left out. */
export const MAX_LISTED = 30;

const SEVERITY_RANK = { error: 0, warning: 1, info: 2 } as const;
const count = (n: number) => n.toLocaleString('en-US');

/**
 * The findings a check lists (docs/decisions/0107-findings-folded.md). The same problem on 20,000
 * images was 60,000 findings, a 16 MB answer for a preview typed into and a list no one reads:
 * after `SAME_LISTED` alike, the rest are one finding that counts them and points at the next;
 * past `MAX_LISTED`, the most severe are kept, in order, and one last finding counts the others.
 * Each folded finding has the severity of what it stands for, so a check's status is unchanged.
 */
export function foldFindings(findings: readonly Finding[]): Finding[] {
  const keyOf = (f: Finding) => `${f.severity}\n${f.message}\n${f.hint}`;
  const alike = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = keyOf(f);
    const group = alike.get(key);
    if (group) group.push(f);
    else alike.set(key, [f]);
  }
  const folded: Finding[] = [];
  /** How many findings each listed one stands for. */
  const weight: number[] = [];
  const shown = new Map<string, number>();
  for (const f of findings) {
    const key = keyOf(f);
    const n = (shown.get(key) ?? 0) + 1;
    shown.set(key, n);
    if (n > SAME_LISTED) continue;
    folded.push(f);
    weight.push(1);
    const more = n === SAME_LISTED ? alike.get(key)!.slice(SAME_LISTED) : [];
    if (more.length === 0) continue;
    const lines = [...new Set(more.flatMap((m) => (m.line === undefined ? [] : [m.line])))];
    const at =
      lines.length === 0
        ? ''
        : ` (line${lines.length === 1 ? '' : 's'} ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', …' : ''})`;
    folded.push({
      severity: f.severity,
      message: `The same in ${count(more.length)} more place${more.length === 1 ? '' : 's'}${at}.`,
      hint: 'Fix them the same way.',
      ...(lines[0] !== undefined && { line: lines[0] }),
    });
    weight.push(more.length);
  }
  if (folded.length <= MAX_LISTED) return folded;
  // The most severe first; among equals, in the order found.
  const kept = new Set(
    folded
      .map((f, i) => ({ f, i }))
      .sort((a, b) => SEVERITY_RANK[a.f.severity] - SEVERITY_RANK[b.f.severity] || a.i - b.i)
      .slice(0, MAX_LISTED - 1)
      .map(({ i }) => i),
  );
  const left = folded.filter((_, i) => !kept.has(i));
  const leftOut = weight.reduce((sum, w, i) => (kept.has(i) ? sum : sum + w), 0);
  const worst = left.reduce(
    (w, f) => (SEVERITY_RANK[f.severity] < SEVERITY_RANK[w] ? f.severity : w),
    left[0]!.severity,
  );
  return [
    ...folded.filter((_, i) => kept.has(i)),
    {
      severity: worst,
      message: `${count(leftOut)} more finding${leftOut === 1 ? ' is' : 's are'} not listed.`,
      hint: 'Fix the ones above and check again: what is left is listed then.',
    },
  ];
}
