import { compile, selectAll, type Options } from 'css-select';
import { textOf, type El, type TextNode } from './html-doc.ts';

/**
 * CSS selectors matched against the checks' own tree (html-doc.ts) by css-select, through an
 * adapter, so that a `<style>` rule can be asked which elements it styles.
 */

type Node = El | TextNode;

const isTag = (node: Node): node is El => node.kind === 'element' && node.name !== '#document';
const siblings = (node: Node): Node[] =>
  node.kind === 'element' && node.parent ? node.parent.children : [node];

const adapter: NonNullable<Options<Node, El>['adapter']> = {
  isTag,
  getAttributeValue: (el, name) => el.attrs[name],
  getChildren: (node) => (node.kind === 'element' ? node.children : []),
  getName: (el) => el.name,
  getParent: (el) => (el.parent && el.parent.name !== '#document' ? el.parent : null),
  getSiblings: siblings,
  getText: (node) => (node.kind === 'element' ? textOf(node) : node.text),
  hasAttrib: (el, name) => el.attrs[name] !== undefined,
  removeSubsets: (nodes) =>
    nodes.filter((node) => {
      let up = node.kind === 'element' ? node.parent : null;
      for (; up; up = up.parent) if (nodes.includes(up)) return false;
      return true;
    }),
};

const SUBTREE = /:(?:has|contains|icontains)\(/i;

/**
 * The steps (moves to a parent or a sibling, reads of a name or an attribute, and the
 * declarations the judges of sheet-boxes.ts read over the matches) one document may take.
 * css-select backtracks over descendant and sibling combinators, so a selector such as
 * `section div div b` over deeply nested elements takes steps exponential in its combinators:
 * seconds for two. Past the budget, the matches stop and the caller cannot tell.
 */
export interface StepBudget {
  left: number;
}
export const STEPS_PER_DOCUMENT = 500_000;

/** Thrown past the budget; a caller that spends steps of its own (`spend`) catches it. */
export class OutOfSteps extends Error {}

/** Spends steps of the document's budget on other work over the matches (sheet-boxes.ts). */
export function spend(budget: StepBudget, steps: number): void {
  budget.left -= steps;
  if (budget.left < 0) throw new OutOfSteps();
}

function counted(budget: StepBudget): typeof adapter {
  const step = () => spend(budget, 1);
  return {
    ...adapter,
    getParent: (el) => (step(), adapter.getParent(el)),
    getSiblings: (node) => (step(), adapter.getSiblings(node)),
    getName: (el) => (step(), adapter.getName(el)),
    getAttributeValue: (el, name) => (step(), adapter.getAttributeValue(el, name)),
  };
}

/**
 * The elements a selector list selects in the document, or undefined when css-select cannot read
 * it (a selector of a newer CSS, a typo) or would take too long (`:has()`, `:contains()`, or past
 * the budget): the caller then cannot tell.
 */
export function selectedBy(selectors: readonly string[], root: El, budget: StepBudget): El[] | undefined {
  // Selectors that read a subtree at each element they test would make the match quadratic.
  if (budget.left < 0 || selectors.some((s) => SUBTREE.test(s))) return undefined;
  try {
    return selectAll<Node, El>(selectors.join(', '), root, { adapter: counted(budget), xmlMode: false });
  } catch {
    return undefined;
  }
}

/**
 * A test of whether an element is selected by the selector list, compiled once, each test paid
 * from the budget (it throws OutOfSteps past it); undefined when css-select cannot read the list
 * or it reads a subtree at each element (as `selectedBy`).
 */
export function matcher(selectors: readonly string[], budget: StepBudget): ((el: El) => boolean) | undefined {
  if (selectors.some((s) => SUBTREE.test(s))) return undefined;
  try {
    const test = compile<Node, El>(selectors.join(', '), { adapter: counted(budget), xmlMode: false });
    return (el) => (spend(budget, 1), test(el));
  } catch {
    return undefined;
  }
}
