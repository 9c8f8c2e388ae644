import type { Finding } from '../../shared/contract/checks.ts';
import { keepReason } from '../prepare/css-rules.ts';
import { isHidden } from './computed.ts';
import { scanCss, type CssRule, type Declaration } from './css-scan.ts';
import type { El, HtmlDoc } from './html-doc.ts';
import { matcher, OutOfSteps, spend, STEPS_PER_DOCUMENT, type StepBudget } from './select.ts';

/**
 * Rules of a `<style>` block inside `@media` or `@supports` that can never apply to an element
 * (docs/decisions/0063-pre-send-checklist.md): a declaration without `!important` for a property
 * the element's own `style` attribute sets, itself or through a shorthand. A style attribute wins
 * over every style sheet rule that is not `!important`, whatever the query, so the responsive or
 * dark-mode override silently does nothing there. It bites after Inline CSS
 * (src/server/prepare/inline-css.ts writes `p { color: red }` into `style="color: red;"` and keeps
 * `@media (max-width: 600px) { p { color: blue } }` in the `<style>` block), and emails are told
 * to mark such rules `!important`.
 *
 * Not judged: `!important` declarations (they beat a style attribute that is not), selectors that
 * match nothing, client-targeting hacks (which match only in the client they are written for),
 * pseudo-elements and interactive states (a `::before` box has no style attribute; a `:hover` rule
 * is the enhancement itself, as compatibility.ts takes it), properties only classic Outlook reads
 * (`mso-`, and it reads no media query), custom properties, and what classic Outlook alone sees
 * (its conditional comments' styles and elements). A `<style data-embed>` block is a `<style>`
 * block like any other once sent (the inliner leaves it as written, and the checks read it as they
 * read the others). A rule that sets the value the style attribute already has changes nothing
 * where it loses: not reported.
 *
 * Bounded as the rules matched by sheet-boxes.ts are: only elements whose style attribute sets
 * a property a rule sets are tested against it, each examined element and each step of a selector
 * test is paid from one budget per document (select.ts), and a rule examines at most
 * `MAX_EXAMINED_PER_RULE` elements. Past the budget, what was found is reported and nothing more.
 */

/** How many elements one rule examines at most, so that one rule cannot use up the budget. */
export const MAX_EXAMINED_PER_RULE = 2_000;

/**
 * The shorthands that set a longhand, each with what it sets: an inline `padding` sets the
 * `padding-left` a media rule sets, and wins. Only this direction: an inline `padding-left` beside
 * a media rule's `padding` leaves the rule's other sides applied.
 */
const SIDES = ['top', 'right', 'bottom', 'left'] as const;
const SHORTHANDS_OF: Readonly<Record<string, readonly string[]>> = {
  ...Object.fromEntries(SIDES.map((side) => [`padding-${side}`, ['padding']])),
  ...Object.fromEntries(SIDES.map((side) => [`margin-${side}`, ['margin']])),
  ...Object.fromEntries(SIDES.map((side) => [`border-${side}`, ['border']])),
  ...Object.fromEntries(
    ['width', 'style', 'color'].flatMap((part) => [
      [`border-${part}`, ['border']],
      ...SIDES.map((side) => [`border-${side}-${part}`, ['border', `border-${side}`, `border-${part}`]]),
    ]),
  ),
  ...Object.fromEntries(
    ['top-left', 'top-right', 'bottom-right', 'bottom-left'].map((corner) => [
      `border-${corner}-radius`,
      ['border-radius'],
    ]),
  ),
  ...Object.fromEntries(
    ['color', 'image', 'position', 'size', 'repeat', 'attachment', 'origin', 'clip'].map((part) => [
      `background-${part}`,
      ['background'],
    ]),
  ),
  ...Object.fromEntries(
    ['size', 'family', 'weight', 'style', 'variant', 'stretch'].map((part) => [`font-${part}`, ['font']]),
  ),
  'line-height': ['font'],
  ...Object.fromEntries(
    ['line', 'color', 'style'].map((part) => [`text-decoration-${part}`, ['text-decoration']]),
  ),
  ...Object.fromEntries(['type', 'position', 'image'].map((part) => [`list-style-${part}`, ['list-style']])),
  ...Object.fromEntries(['color', 'style', 'width'].map((part) => [`outline-${part}`, ['outline']])),
  ...Object.fromEntries(['grow', 'shrink', 'basis'].map((part) => [`flex-${part}`, ['flex']])),
  'flex-direction': ['flex-flow'],
  'flex-wrap': ['flex-flow'],
  'overflow-x': ['overflow'],
  'overflow-y': ['overflow'],
  'row-gap': ['gap'],
  'column-gap': ['gap'],
};

/** The property and the shorthands that set it. */
export function settersOf(property: string): readonly string[] {
  return [property, ...(SHORTHANDS_OF[property] ?? [])];
}

/**
 * A selector with a pseudo-element or a state (`:hover`, `:checked`): the inliner's reason to keep
 * it in the `<style>` block (src/server/prepare/css-rules.ts `keepReason`), asked with the
 * universal selector written out, since `keepReason` names that reason first.
 */
const statefulOrPseudo = (selector: string) => keepReason(selector.replace(/\*/g, 'x')) === 'pseudo';

/** A property a media rule may set that a reader's client applies from a style attribute. */
const judgedProperty = (property: string) => !property.startsWith('--') && !property.startsWith('mso-');

/** A declaration of a style attribute and its place there. */
interface Placed {
  d: Declaration;
  at: number;
  /** Its value as `normal` writes it, once asked. */
  normal?: string;
}

/** The declaration of each property that wins in the element's style attribute: the last, an `!important` one before any other. */
function winning(el: El): Map<string, Placed> {
  const wins = new Map<string, Placed>();
  el.style.forEach((d, at) => {
    if (d.important || !wins.get(d.property)?.d.important) wins.set(d.property, { d, at, normal: undefined });
  });
  return wins;
}

/**
 * The declaration of the style attribute that gives `setters[0]` its value, of the property and
 * its shorthands (`setters`): the last, an `!important` one before any other; or undefined.
 */
function inlineSetter(wins: ReadonlyMap<string, Placed>, setters: readonly string[]): Placed | undefined {
  let found: Placed | undefined;
  for (const property of setters) {
    const placed = wins.get(property);
    if (!placed) continue;
    if (!found || (placed.d.important === found.d.important ? placed.at > found.at : placed.d.important))
      found = placed;
  }
  return found;
}

/** A value with its blanks collapsed and none beside commas, slashes and brackets; linear. */
const normal = (value: string) => value.replace(/\s+/g, ' ').replace(/ ?([,/()]) ?/g, '$1');

/**
 * What a rule that shows a hidden element sets (a phone-only block: `display: none; max-height: 0;
 * overflow: hidden` in its style, `display: block; max-height: none` in the query).
 */
const REVEALING = new Set([
  'display',
  'visibility',
  'max-height',
  'max-width',
  'height',
  'width',
  'overflow',
  'opacity',
  'font-size',
  'line-height',
]);

/**
 * Whether what the rule would set of `property` shows on the element: not when an ancestor hides
 * it, nor, on an element that hides itself (computed.ts `isHidden`), for anything but what would
 * show it. A preheader's colour that a dark-mode rule cannot reach is never seen.
 */
function shows(el: El, property: string): boolean {
  if (!isHidden(el)) return true;
  return REVEALING.has(property) && (el.parent === null || !isHidden(el.parent));
}

/** Elements in document order from lists each in document order, each once. */
function* merged(lists: readonly (readonly El[])[]): Generator<El> {
  if (lists.length === 1) {
    yield* lists[0]!;
    return;
  }
  const at = lists.map(() => 0);
  let last: El | undefined;
  for (;;) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const el = lists[i]![at[i]!];
      if (el && (best === -1 || el.start < lists[best]![at[best]!]!.start)) best = i;
    }
    if (best === -1) return;
    const el = lists[best]![at[best]!++]!;
    if (el !== last) yield el;
    last = el;
  }
}

const MAX_PRELUDE = 80;
const shortened = (text: string) => (text.length > MAX_PRELUDE ? `${text.slice(0, MAX_PRELUDE - 1)}…` : text);

/** The style attributes of the elements a reader's client shows: by property, and each one's winning declarations. */
interface Inline {
  byProperty: ReadonlyMap<string, El[]>;
  stylesOf: ReadonlyMap<El, ReadonlyMap<string, Placed>>;
  /** The element's excerpt, made once: its start tag may hold a style of a megabyte. */
  excerpt(el: El): string;
}

/**
 * The findings: one per rule and property at most, at the rule's line, naming the selector, the
 * property and the first element it cannot reach. `clientTargeting` tells a client-targeting hack
 * (compatibility.ts `CLIENT_TARGETING`).
 */
export function overriddenMediaRules(doc: HtmlDoc, clientTargeting: RegExp): Finding[] {
  const blocks = doc.styles.filter((b) => b.audience !== 'outlook' && /@(?:media|supports)\b/i.test(b.css));
  if (blocks.length === 0) return [];
  // The elements a reader's client shows, by each property their style attribute sets.
  const byProperty = new Map<string, El[]>();
  const stylesOf = new Map<El, Map<string, Placed>>();
  for (const el of doc.elements) {
    if (el.audience === 'outlook' || el.name.includes(':') || el.style.length === 0) continue;
    const wins = winning(el);
    stylesOf.set(el, wins);
    for (const property of wins.keys()) {
      const list = byProperty.get(property);
      if (list) list.push(el);
      else byProperty.set(property, [el]);
    }
  }
  if (byProperty.size === 0) return [];

  const excerpts = new Map<El, string>();
  const excerpt = (el: El) => {
    let text = excerpts.get(el);
    if (text === undefined) excerpts.set(el, (text = doc.excerpt(el)));
    return text;
  };
  const budget: StepBudget = { left: STEPS_PER_DOCUMENT };
  const findings: Finding[] = [];
  try {
    for (const block of blocks) {
      for (const rule of scanCss(block.css).rules) {
        if (!rule.atRules.some((at) => /^@(?:media|supports)\b/i.test(at))) continue;
        findings.push(
          ...judgeRule(doc, block.start, rule, { byProperty, stylesOf, excerpt }, budget, clientTargeting),
        );
      }
    }
  } catch (err) {
    if (!(err instanceof OutOfSteps)) throw err;
  }
  return findings;
}

function judgeRule(
  doc: HtmlDoc,
  blockStart: number,
  rule: CssRule,
  { byProperty, stylesOf, excerpt }: Inline,
  budget: StepBudget,
  clientTargeting: RegExp,
): Finding[] {
  // The rule's own `!important` for a property (or a shorthand of it) wins within the rule.
  const important = new Set(rule.declarations.filter((d) => d.important).map((d) => d.property));
  const wins = new Map<string, { value: string; important: boolean }>();
  for (const d of rule.declarations) {
    if (!judgedProperty(d.property)) continue;
    if (!d.important && settersOf(d.property).some((p) => important.has(p))) continue;
    wins.delete(d.property);
    wins.set(d.property, { value: d.value, important: d.important });
  }
  const judged = [...wins].filter(([property]) => settersOf(property).some((p) => byProperty.has(p)));
  if (judged.length === 0) return [];
  const selectors = rule.selectors
    .map((s) => s.trim())
    .filter((s) => !clientTargeting.test(s) && !statefulOrPseudo(s));
  if (selectors.length === 0) return [];

  // Each selector compiled when first needed; null when css-select cannot read it.
  const tests: (((el: El) => boolean) | null | undefined)[] = selectors.map(() => undefined);
  const selectorOf = new Map<El, string | null>();
  const selecting = (el: El): string | null => {
    let found = selectorOf.get(el);
    if (found !== undefined) return found;
    found = null;
    for (const [i, selector] of selectors.entries()) {
      if (tests[i] === undefined) tests[i] = matcher([selector], budget) ?? null;
      if (tests[i]?.(el)) {
        found = selector;
        break;
      }
    }
    selectorOf.set(el, found);
    return found;
  };

  const findings: Finding[] = [];
  let examined = 0;
  for (const [property, { value, important: ruleImportant }] of judged) {
    const setters = settersOf(property);
    let ruleValue: string | undefined;
    const lists = setters.map((p) => byProperty.get(p)).filter((list) => list !== undefined);
    for (const el of merged(lists)) {
      if (++examined > MAX_EXAMINED_PER_RULE) return findings;
      spend(budget, 1);
      if (!shows(el, property)) continue;
      const inline = inlineSetter(stylesOf.get(el)!, setters)!;
      // An !important rule loses only to an !important style attribute (Inline CSS copies a
      // rule's !important into the attribute it writes).
      if (ruleImportant && !inline.d.important) continue;
      // The value the style attribute already has: the rule would change nothing.
      if (inline.d.property === property) {
        ruleValue ??= normal(value);
        inline.normal ??= normal(inline.d.value);
        if (inline.normal === ruleValue) continue;
      }
      const selector = selecting(el);
      if (selector === null) continue;
      findings.push(
        finding(doc, blockStart, rule, selector, { property, ruleImportant }, excerpt(el), inline.d),
      );
      break;
    }
  }
  return findings;
}

function finding(
  doc: HtmlDoc,
  blockStart: number,
  rule: CssRule,
  selector: string,
  { property, ruleImportant }: { property: string; ruleImportant: boolean },
  element: string,
  inline: Declaration,
): Finding {
  const where = shortened(rule.atRules.join(' '));
  const sets =
    inline.property === property
      ? `sets ${property} too`
      : `sets ${inline.property}, which includes ${property}`;
  if (ruleImportant) {
    return {
      severity: 'warning',
      message:
        `A rule in ${where} sets ${property} on "${shortened(selector)}" with !important, but the ` +
        `element's style attribute ${sets} with !important: an !important style attribute wins over ` +
        'every rule, so the rule never applies to it.',
      hint: `Remove the !important from the style attribute's ${inline.property} (Inline CSS copies it there from an !important rule: drop it from that rule).`,
      line: doc.line(blockStart + rule.offset),
      element,
    };
  }
  return {
    severity: 'warning',
    message:
      `A rule in ${where} sets ${property} on "${shortened(selector)}" without !important, but the ` +
      `element's style attribute ${sets}: a style attribute wins over any rule without !important, so ` +
      'the rule never applies to it.',
    hint: inline.important
      ? `The style attribute's ${inline.property} is !important, which no <style> rule can beat: remove that !important, and add !important to the rule's ${property}.`
      : `Add !important to the rule's ${property} (${property}: … !important), as responsive and dark-mode rules need wherever styles are inline.`,
    line: doc.line(blockStart + rule.offset),
    element,
  };
}
