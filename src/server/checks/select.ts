import { selectAll, type Options } from 'css-select';
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
 * The elements a selector list selects in the document, or undefined when css-select cannot read
 * it (a selector of a newer CSS, a typo) or would take too long (`:has()`, `:contains()`): the
 * caller then cannot tell.
 */
export function selectedBy(selectors: readonly string[], root: El): El[] | undefined {
  // Selectors that read a subtree at each element they test would make the match quadratic.
  if (selectors.some((s) => SUBTREE.test(s))) return undefined;
  try {
    return selectAll<Node, El>(selectors.join(', '), root, { adapter, xmlMode: false });
  } catch {
    return undefined;
  }
}
