import type { Check, TargetClientId } from '../../shared/contract/checks.ts';
import { checkAccessibility } from './accessibility.ts';
import type { CheckInput, HtmlCheckContext, StaticCheckContext } from './check-input.ts';
import { checkCompatibility } from './compatibility.ts';
import { checkContent } from './content.ts';
import { parseHtml, type HtmlDoc } from './html-doc.ts';
import { checkImages } from './images.ts';
import { checkLinks } from './links.ts';
import { checkPlainText } from './plain-text.ts';
import { checkSize } from './size.ts';

/**
 * Every static check of the pre-send checklist, on the final message (docs/architecture.md §9). Pure
 * CPU: it runs in the transform process right after `prepare`, within the same time budget
 * (src/server/prepare/transform-task.ts). The spam check, which needs I/O, runs in the server.
 *
 * In two steps, so that the checks of the HTML part can run while the MIME message is still being
 * made (src/server/prepare/measure-thread.ts): `checkHtml` needs only the HTML, `finishChecks` adds
 * the checks that read the text part, the headers or the message's size.
 */

/** The checks of the HTML part alone, and the parsed document the others read. */
export interface HtmlChecked {
  doc: HtmlDoc;
  targetClients: readonly TargetClientId[];
  compatibility: Check;
  links: Check;
  images: Check;
  accessibility: Check;
}

export function checkHtml(html: string, targetClients: readonly TargetClientId[]): HtmlChecked {
  const doc = parseHtml(html);
  const ctx: HtmlCheckContext = { doc, targetClients };
  return {
    doc,
    targetClients,
    compatibility: checkCompatibility(ctx),
    links: checkLinks(ctx),
    images: checkImages(ctx),
    accessibility: checkAccessibility(ctx),
  };
}

/** Every check, in the checklist's order. `input.html` must be the HTML `checked` was made from. */
export function finishChecks(checked: HtmlChecked, input: CheckInput): Check[] {
  const ctx: StaticCheckContext = { input, doc: checked.doc, targetClients: checked.targetClients };
  return [
    checkSize(ctx),
    checked.compatibility,
    checked.links,
    checked.images,
    checked.accessibility,
    checkContent(ctx),
    checkPlainText(ctx),
  ];
}

export function runStaticChecks(input: CheckInput, targetClients: readonly TargetClientId[]): Check[] {
  return finishChecks(checkHtml(input.html, targetClients), input);
}
