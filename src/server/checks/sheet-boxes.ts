import { INTERACTIVE_STATES, type CssRule, type Declaration } from './css-scan.ts';
import type { El, HtmlDoc } from './html-doc.ts';
import { matcher, OutOfSteps, selectedBy, spend, STEPS_PER_DOCUMENT, type StepBudget } from './select.ts';

/**
 * What a document's `<style>` rules give its elements of the properties that size, paint and show
 * a box: sizes, their limits, padding, borders, backgrounds, `display`. The judges of a rule's `box-sizing` (box-sizing-rule.ts) and
 * of size limits (size-limit-rule.ts) ask it which elements a rule selects and what the rules give
 * an element. What rules outside `@media` give counts for every client; what rules inside give only
 * where media queries are read, which classic Outlook does not.
 *
 * An element is matched against the sheet's rules when a judge first asks about it, not every
 * element against every rule up front: most documents ask about a few. Every match, every test of
 * an element and every declaration a judge reads is paid from one budget per document (select.ts):
 * a sheet of a thousand `*` rules over a thousand elements would otherwise have the judges read a
 * billion declarations. Past it, or at a selector css-select cannot read, the judge cannot tell
 * (`judged`).
 */
export interface SheetBoxes {
  /** The elements a rule selects. */
  targets(rule: CssRule): El[];
  /**
   * What the rules give an element, in sheet order: from rules outside `@media`, or with
   * `queries` from every rule.
   */
  given(el: El, queries: boolean): readonly Declaration[];
}

/**
 * The declarations the judges read: what sizes a box (sizes, their limits, padding, borders), what
 * paints it, and whether it shows. A rule with none of them gives the judges nothing.
 */
const JUDGED_PROPERTY =
  /^(?:(?:min-|max-)?(?:width|height)|padding(?:-[a-z]+)?|border(?:-[a-z-]+)?|background(?:-[a-z]+)?|box-shadow|outline(?:-[a-z]+)?|display)$/;

/** The sheet's boxes for the document's judges, which share its budget. */
export function sheetBoxes(sheet: readonly CssRule[], doc: HtmlDoc): SheetBoxes {
  const budget: StepBudget = { left: STEPS_PER_DOCUMENT };
  const boxRules = sheet.filter(
    (r) =>
      r.declarations.some((d) => JUDGED_PROPERTY.test(d.property)) &&
      !r.selectors.some((s) => s.match(INTERACTIVE_STATES)),
  );
  // Compiled on first use; null when one of them cannot be read.
  let tests: ((el: El) => boolean)[] | null | undefined;
  const rulesOf = new Map<El, { outside: CssRule[]; inside: CssRule[] }>();
  const rulesSelecting = (el: El) => {
    let rules = rulesOf.get(el);
    if (rules) return rules;
    if (tests === undefined) {
      const compiled = boxRules.map((r) => matcher(r.selectors, budget));
      tests = compiled.every((test) => test !== undefined) ? compiled : null;
    }
    if (tests === null) cannotTell();
    rules = { outside: [], inside: [] };
    for (const [i, r] of boxRules.entries()) {
      if (tests[i]!(el)) (r.atRules.length > 0 ? rules.inside : rules.outside).push(r);
    }
    rulesOf.set(el, rules);
    return rules;
  };
  return {
    targets: (rule) => selectedBy(rule.selectors, doc.root, budget) ?? cannotTell(),
    given(el, queries) {
      const { outside, inside } = rulesSelecting(el);
      const rules = queries ? [...outside, ...inside] : outside;
      spend(
        budget,
        rules.reduce((sum, r) => sum + r.declarations.length, 1),
      );
      return rules.flatMap((r) => r.declarations);
    },
  };
}

function cannotTell(): never {
  throw new OutOfSteps();
}

/** A judge's answer, or `unknown` when it cannot tell: past the budget, or a selector it cannot read. */
export function judged<T>(judge: () => T, unknown: T): T {
  try {
    return judge();
  } catch (err) {
    if (err instanceof OutOfSteps) return unknown;
    throw err;
  }
}
