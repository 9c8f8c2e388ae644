import { INTERACTIVE_STATES, type CssRule, type Declaration } from './css-scan.ts';
import type { Audience, El, HtmlDoc } from './html-doc.ts';
import { boxSizingTells } from './same-where-ignored.ts';
import { selectedBy, STEPS_PER_DOCUMENT, type StepBudget } from './select.ts';

/**
 * Whether a `<style>` rule's `box-sizing` changes a box, and for whom (docs/decisions/0063-pre-send-checklist.md):
 * the elements the rule selects, each with the sizes, padding and borders its own style and the
 * style sheets give it. What rules outside `@media` give counts for every client; what rules inside
 * give only where media queries are read, which classic Outlook does not. Postmark's button
 * (`.button { box-sizing: border-box; border: … }`, `width: 100%` only in its phone query) changes
 * no box in classic Outlook; its universal `*:not(br):not(tr):not(html)` rule changes the boxes of
 * elements that have both a size and padding or a border, if any.
 *
 * Undefined when it changes none; `'all'` when it cannot be told (a selector css-select cannot
 * read, or matches past the document's step budget, select.ts).
 */

/** The declarations that can make box-sizing tell: sizes, padding and borders. */
const BOX_PROPERTY =
  /^(?:(?:min-|max-)?(?:width|height)|padding(?:-[a-z]+)?|border(?:-(?:top|right|bottom|left))?)$/;
/**
 * A judge of the sheet's `box-sizing` rules. What the rules give each element is gathered once, on
 * the first rule asked about, for every rule after it.
 */
export function boxSizingRules(
  sheet: readonly CssRule[],
  doc: HtmlDoc,
): (rule: CssRule) => Audience | undefined {
  // One budget for every match in the document (select.ts).
  const budget: StepBudget = { left: STEPS_PER_DOCUMENT };
  let given: { everywhere: Map<El, Declaration[]>; inQueries: Map<El, Declaration[]> } | null | undefined;
  const gather = () => {
    const boxRules = sheet.filter(
      (r) =>
        r.declarations.some((d) => BOX_PROPERTY.test(d.property)) &&
        !r.selectors.some((s) => s.match(INTERACTIVE_STATES)),
    );
    const everywhere = new Map<El, Declaration[]>();
    const inQueries = new Map<El, Declaration[]>();
    for (const r of boxRules) {
      const selected = selectedBy(r.selectors, doc.root, budget);
      if (!selected) return null;
      const into = r.atRules.length > 0 ? inQueries : everywhere;
      for (const el of selected) into.set(el, [...(into.get(el) ?? []), ...r.declarations]);
    }
    return { everywhere, inQueries };
  };
  return (rule) => {
    if (given === undefined) given = gather();
    if (given === null) return 'all';
    const targets = selectedBy(rule.selectors, doc.root, budget);
    if (!targets) return 'all';
    const { everywhere, inQueries } = given;
    const tells = (el: El, ...from: Map<El, Declaration[]>[]) =>
      boxSizingTells({
        ...el,
        style: [...el.style, ...rule.declarations, ...from.flatMap((m) => m.get(el) ?? [])],
      });
    if (targets.some((el) => tells(el, everywhere))) return 'all';
    if (targets.some((el) => tells(el, everywhere, inQueries))) return 'not-outlook';
    return undefined;
  };
}
