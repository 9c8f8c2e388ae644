import { createHash } from 'node:crypto';
import { inline } from '@css-inline/css-inline';
import { keepReason, normalizeSelector, quotesForAttribute, splitCss, type CssItem } from './css-rules.ts';
import { styleAttributes } from './style-attributes.ts';

/**
 * CSS inlining an email developer can trust (docs/decisions/0051-css-inliner.md).
 *
 * `@css-inline/css-inline` (a Rust inliner) writes the rules of each `<style>` block into the
 * style attributes of the elements they match. Around it, this module keeps in the `<style>`
 * block, in their original order, everything that cannot work from a style attribute:
 * - every at-rule (`@import` web fonts, `@media`, `@font-face`, `@keyframes`, `@supports`, …);
 * - rules for the universal selector (`*` resets), which would otherwise be copied onto every element;
 * - pseudo-elements and dynamic pseudo-classes (`:hover`, `::before`, …);
 * - every selector that matches nothing in the document: the client hacks (`#outlook a`,
 *   `.ExternalClass`, `[x-apple-data-detectors]`, `#MessageViewBody`, `u + .body`, Gmail's `.a6S`)
 *   match markup that the mail client adds, not ours.
 * A `<style data-embed>` block is left exactly as written, and so is a `<style>` inside a comment or
 * inside an element the parser reads as text. `<link>` elements stay, and nothing is ever fetched. The document keeps its doctype, and a fragment stays a fragment.
 */

export interface InlineResult {
  html: string;
  /** Rules kept in a `<style>` block because they cannot be inlined. */
  keptInStyle: number;
}

/**
 * A `<style>` block, or what holds text a `<style>` may stand in without being one: a comment (an
 * Outlook conditional comment's styles stay exactly as written; a comment ends as a parser ends it,
 * `<!-->` and `--!>` included) or an element whose content is text to the parser. Only the first
 * kind is touched, and only when it is closed: a `<style>` never closed runs to the end (its fourth
 * group empty) and is left as it is. Were it tried for its `</style>` and given up, every later
 * `<style>` would scan to the end again (2.8 s for 40,000 of them).
 */
const STYLE_OR_TEXT =
  /<!--(?:-?>|[\s\S]*?(?:--!?>|$))|<(textarea|title|script|xmp|iframe|noembed|noframes|plaintext)\b(?:[^>"']|"[^"]*"|'[^']*')*>[\s\S]*?(?:<\/\1\s*>|$)|<style\b((?:[^>"']|"[^"]*"|'[^']*')*)>([\s\S]*?)(<\/style\s*>|$)/gi;
const DOCTYPE = /^\uFEFF?\s*(<!doctype[^>]*>\s*)/i;
const DOCUMENT_TAGS = /<(?:html|head|body)[\s>]/i;

interface Block {
  /** The opening tag's attributes, as written. */
  attributes: string;
  items: CssItem[];
  /** Per item: the selectors handed to the inliner (rules only). */
  candidates: Map<number, string[]>;
}

function isEmbed(attributes: string): boolean {
  return /(^|\s)data-embed(\s|=|$)/i.test(attributes);
}

/** Rules are handed to the inliner one selector each, so what it leaves over maps back by order. */
function candidateCss(block: Block): string {
  const rules: string[] = [];
  block.items.forEach((item, index) => {
    for (const selector of block.candidates.get(index) ?? []) {
      if (item.kind === 'rule') rules.push(`${selector} ${quotesForAttribute(item.block)}`);
    }
  });
  return rules.join('\n');
}

/**
 * What the inliner left in a block (selectors that matched nothing), matched back to our
 * candidates in order. Returns, per item index, the selectors to keep.
 */
function leftoverSelectors(block: Block, leftoverCss: string): Map<number, string[]> {
  const left = splitCss(leftoverCss).flatMap((item) =>
    item.kind === 'rule' ? item.selectors.map(normalizeSelector) : [],
  );
  const kept = new Map<number, string[]>();
  let k = 0;
  for (const [index, selectors] of block.candidates) {
    for (const selector of selectors) {
      if (k < left.length && left[k] === normalizeSelector(selector)) {
        kept.set(index, [...(kept.get(index) ?? []), selector]);
        k++;
      }
    }
  }
  return kept;
}

/** The block's CSS after inlining: what stays, in the order it was written. */
function keptCss(
  block: Block,
  leftovers: Map<number, string[]>,
  fragment: boolean,
): { css: string; count: number } {
  const out: string[] = [];
  block.items.forEach((item, index) => {
    if (item.kind === 'at-rule') {
      out.push(item.text);
      return;
    }
    const always = item.selectors.filter((s) => keepReason(s, { fragment }) !== null);
    const unmatched = leftovers.get(index) ?? [];
    const selectors = item.selectors.filter((s) => always.includes(s) || unmatched.includes(s));
    if (selectors.length > 0) out.push(`${selectors.join(', ')} ${item.block}`);
  });
  return { css: out.join('\n'), count: out.length };
}

/** A declaration that hides its element: `display: none`, with `!important` or not. */
const DISPLAY_NONE = /(?:^|[{;\s])display\s*:\s*none\b/i;

/**
 * Whether a `<style>` block the inliner reads has a rule, outside every at-rule, that hides the
 * elements it selects (`display: none`): inlined, those elements carry the declaration themselves.
 * The generated text part leaves such elements out, as it leaves out an inline `display: none`
 * (src/server/prepare/prepare.ts).
 */
export function hidesByRule(html: string): boolean {
  if (!DISPLAY_NONE.test(html)) return false;
  const fragment = !DOCUMENT_TAGS.test(html);
  for (const [, , attributes, css, close] of html.matchAll(STYLE_OR_TEXT)) {
    if (attributes === undefined || css === undefined || !close || isEmbed(attributes)) continue;
    const hides = splitCss(css).some(
      (item) =>
        item.kind === 'rule' &&
        DISPLAY_NONE.test(item.block) &&
        item.selectors.some((s) => keepReason(s, { fragment }) === null),
    );
    if (hides) return true;
  }
  return false;
}

const QUOTE_REFERENCE = /&(?:quot|#0*34|#x0*22);/gi;
const APOSTROPHE_REFERENCE = /&(?:apos|#0*39|#x0*27);/gi;

/**
 * Every `style` attribute (as the tokenizer finds them, src/server/prepare/style-attributes.ts)
 * with its CSS strings made safe for the inliner's quote swap (quotesForAttribute,
 * src/server/prepare/css-rules.ts): the inliner rewrites the style attribute of every element a
 * rule matches. Only the quote references are read as characters; every other byte stays as written.
 */
function safeStyleAttributes(html: string): string {
  let out = '';
  let from = 0;
  for (const { start, end, value } of styleAttributes(html)) {
    const css = value.replace(QUOTE_REFERENCE, '"').replace(APOSTROPHE_REFERENCE, "'");
    const safe = quotesForAttribute(css);
    if (safe === css) continue;
    out += `${html.slice(from, start)}style="${safe.replace(/"/g, '&quot;')}"`;
    from = end;
  }
  return from === 0 ? html : out + html.slice(from);
}

export function inlineCss(html: string): InlineResult {
  // A marker no input can contain: it is derived from the input itself.
  const nonce = createHash('sha256').update(html).digest('hex').slice(0, 16);
  const embeds: string[] = [];
  const blocks: Block[] = [];
  const fragment = !DOCUMENT_TAGS.test(html);

  const marked = html.replace(
    STYLE_OR_TEXT,
    (whole, _text, attributes?: string, css?: string, close?: string) => {
      if (attributes === undefined || css === undefined || !close) return whole;
      if (isEmbed(attributes)) {
        embeds.push(whole);
        return `<!--pm-${nonce}-embed-${embeds.length - 1}-->`;
      }
      const items = splitCss(css);
      const candidates = new Map<number, string[]>();
      items.forEach((item, index) => {
        if (item.kind !== 'rule') return;
        const selectors = item.selectors.filter((s) => keepReason(s, { fragment }) === null);
        if (selectors.length > 0) candidates.set(index, selectors);
      });
      const block: Block = { attributes, items, candidates };
      blocks.push(block);
      return `<style data-pm-${nonce}="${blocks.length - 1}">${candidateCss(block)}</style>`;
    },
  );

  let out = inline(safeStyleAttributes(marked), {
    inlineStyleTags: true,
    keepStyleTags: true,
    removeInlinedSelectors: true,
    keepAtRules: false,
    keepLinkTags: true,
    loadRemoteStylesheets: false,
    applyWidthAttributes: true,
    applyHeightAttributes: true,
  });

  let keptInStyle = 0;
  const ours = new RegExp(`<style data-pm-${nonce}="(\\d+)"[^>]*>([\\s\\S]*?)</style>`, 'g');
  out = out.replace(ours, (_whole, n: string, leftover: string) => {
    const block = blocks[Number(n)]!;
    const { css, count } = keptCss(block, leftoverSelectors(block, leftover), fragment);
    keptInStyle += count;
    return count === 0 ? '' : `<style${block.attributes}>\n${css}\n</style>`;
  });
  out = out.replace(
    new RegExp(`<!--pm-${nonce}-embed-(\\d+)-->`, 'g'),
    (_w, n: string) => embeds[Number(n)]!,
  );

  return { html: restoreShape(html, out), keptInStyle };
}

/** The parser rewrites the document's frame: give back the author's doctype, and a fragment stays a fragment. */
function restoreShape(input: string, output: string): string {
  const doctype = DOCTYPE.exec(input)?.[1];
  if (!DOCUMENT_TAGS.test(input)) {
    const head = /<head\b[^>]*>([\s\S]*?)<\/head>/.exec(output)?.[1] ?? '';
    const bodyTag = /<body\b[^>]*>/.exec(output);
    const bodyEnd = output.lastIndexOf('</body>');
    const body =
      bodyTag && bodyEnd > bodyTag.index ? output.slice(bodyTag.index + bodyTag[0].length, bodyEnd) : output;
    // Comments before the first element end up ahead of <html>, and after the last one behind it.
    const htmlStart = output.search(/<html\b/);
    const before = htmlStart > 0 ? output.slice(0, htmlStart).replace(/^<!DOCTYPE[^>]*>/i, '') : '';
    const htmlEnd = output.lastIndexOf('</html>');
    const after = htmlEnd !== -1 ? output.slice(htmlEnd + 7) : '';
    return `${doctype ?? ''}${before}${head}${body}${after}`;
  }
  if (doctype) return output.replace(/^<!DOCTYPE[^>]*>/i, () => doctype);
  return output;
}
