import type { Check, TargetClientId } from '../../shared/contract/checks.ts';
import { checkAccessibility } from './accessibility.ts';
import type { CheckInput, StaticCheckContext } from './check-input.ts';
import { checkCompatibility } from './compatibility.ts';
import { checkContent } from './content.ts';
import { parseHtml } from './html-doc.ts';
import { checkImages } from './images.ts';
import { checkLinks } from './links.ts';
import { checkPlainText } from './plain-text.ts';
import { checkSize } from './size.ts';

/**
 * Every static check of the pre-send checklist, on the final message (docs/architecture.md §9). Pure
 * CPU: it runs in the transform process right after `prepare`, within the same time budget
 * (src/server/prepare/transform-worker.ts). The spam check, which needs I/O, runs in the server.
 */
export function runStaticChecks(input: CheckInput, targetClients: readonly TargetClientId[]): Check[] {
  const ctx: StaticCheckContext = { input, doc: parseHtml(input.html), targetClients };
  return [
    checkSize(ctx),
    checkCompatibility(ctx),
    checkLinks(ctx),
    checkImages(ctx),
    checkAccessibility(ctx),
    checkContent(ctx),
    checkPlainText(ctx),
  ];
}
