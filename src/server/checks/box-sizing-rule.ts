import type { CssRule } from './css-scan.ts';
import type { Audience, El } from './html-doc.ts';
import { boxSizingTells } from './same-where-ignored.ts';
import { judged, type SheetBoxes } from './sheet-boxes.ts';

/**
 * Whether a `<style>` rule's `box-sizing` changes a box, and for whom (docs/decisions/0063-pre-send-checklist.md):
 * the elements the rule selects, each with the sizes, padding and borders its own style and the
 * style sheets give it (sheet-boxes.ts). Postmark's button (`.button { box-sizing: border-box;
 * border: … }`, `width: 100%` only in its phone query) changes no box in classic Outlook; its
 * universal `*:not(br):not(tr):not(html)` rule changes the boxes of elements that have both a size
 * and padding or a border, if any.
 *
 * Undefined when it changes none; `'all'` when it cannot be told (a selector css-select cannot
 * read, or past the document's step budget, select.ts).
 */
export function boxSizingRules(boxes: SheetBoxes): (rule: CssRule) => Audience | undefined {
  return (rule) =>
    judged<Audience | undefined>(() => {
      const targets = boxes.targets(rule);
      const tells = (el: El, queries: boolean) =>
        boxSizingTells({ ...el, style: [...el.style, ...rule.declarations, ...boxes.given(el, queries)] });
      if (targets.some((el) => tells(el, false))) return 'all';
      if (targets.some((el) => tells(el, true))) return 'not-outlook';
      return undefined;
    }, 'all');
}

/**
 * The same for an element's own `box-sizing` (its style attribute, where inlining puts a rule's):
 * with the sizes, padding and borders the sheets give it, so that Postmark's button, inlined, keeps
 * the verdict its `<style>` rule gets. Undefined when it changes no box, or when the sheets cannot be
 * read: then only the element's own style tells.
 */
export function boxSizingOfElements(boxes: SheetBoxes): (el: El) => Audience | undefined {
  return (el) => {
    if (boxSizingTells(el)) return 'all';
    return judged<Audience | undefined>(() => {
      const tells = (queries: boolean) =>
        boxSizingTells({ ...el, style: [...boxes.given(el, queries), ...el.style] });
      if (tells(false)) return 'all';
      if (tells(true)) return 'not-outlook';
      return undefined;
    }, undefined);
  };
}
