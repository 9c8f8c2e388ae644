import type { TargetClientId } from '../../shared/contract/checks.ts';
import { MSO_CLIENT } from './clients.ts';
import type { CssRule, Declaration } from './css-scan.ts';
import type { El } from './html-doc.ts';
import { limitHeld } from './same-where-ignored.ts';
import { judged, type SheetBoxes } from './sheet-boxes.ts';

type Fallback = Set<TargetClientId | '*'>;

/**
 * For whom a size limit (`min-width`, `max-height`, …) changes nothing where it is ignored, with
 * what the style sheets give the elements (sheet-boxes.ts): classic Outlook, which reads no media
 * query and ignores the limits, when the sizes outside media queries keep it; every client when
 * the sizes of media queries keep it too. leemunroe's `.btn { width: 100%; min-width: 100%
 * !important }` keeps its limit everywhere; Foundation's `center { min-width: 580px }` around a
 * 580 px container keeps it in classic Outlook, where its phone query's `width: 95%` is not read.
 * `rule` judges a `<style>` rule's limit by every element it selects (a rule that selects none is
 * no use, as for box-sizing-rule.ts); `element` an element's own (after `limitHeldBySize`, which
 * reads its style alone). No fallback when it cannot be told.
 */
export function sizeLimits(boxes: SheetBoxes): {
  /** Null when the rule selects no element: it limits nothing, anywhere. */
  rule(rule: CssRule, limit: Declaration, slug: string): Fallback | null;
  element(el: El, slug: string): Fallback;
} {
  const judge = (
    targetsOf: () => readonly El[],
    limitOf: (el: El) => Declaration | undefined,
    slug: string,
  ): Fallback | null =>
    judged<Fallback | null>(() => {
      const f: Fallback = new Set();
      const targets = targetsOf();
      if (targets.length === 0) return null;
      const heldBy = (queries: boolean) =>
        targets.every((el) => {
          const limit = limitOf(el);
          return limit !== undefined && limitHeld(el, limit, slug, (e) => boxes.given(e, queries));
        });
      // Every client sees the sizes outside media queries; those that read them, the others too.
      if (heldBy(false)) f.add(heldBy(true) ? '*' : MSO_CLIENT);
      return f;
    }, new Set());
  return {
    rule: (rule, limit, slug) =>
      judge(
        () => boxes.targets(rule),
        () => limit,
        slug,
      ),
    element: (el, slug) => {
      const property = slug.replace(/^css-/, '');
      return (
        judge(
          () => [el],
          (e) => e.style.findLast((d) => d.property === property),
          slug,
        ) ?? new Set()
      );
    },
  };
}
