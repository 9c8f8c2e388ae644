import type { Check, CheckId, Finding } from '../../shared/contract/checks.ts';
import { statusOf } from '../../shared/contract/checks.ts';
import type { TargetClientId } from '../../shared/contract/checks.ts';
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
  /** Merge tags a template engine could not fill, when one ran. */
  notes?: { unfilled?: string[] };
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
  return { id, title: CHECK_TITLES[id], status: statusOf(findings), findings };
}
