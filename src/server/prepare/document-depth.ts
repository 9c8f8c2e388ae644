/**
 * How deeply an HTML document nests, measured by a single pass over its tags with an explicit
 * stack (no recursion, linear time but for the bounded work of reopening formatting elements),
 * before any parser or inliner sees the document (docs/decisions/0050-transform-process-pool.md,
 * docs/decisions/0106-depth-counted-as-a-parser-builds.md).
 *
 * The count errs on the deep side, because the inliner's native parser crashes the whole process
 * on a document a few thousand levels deep, and builds millions of elements from some small ones.
 * It follows the parts of the HTML standard's tokenizer and tree construction that matter for
 * depth: attributes and quotes as the tokenizer reads them, comments ended where a parser ends
 * them, void and raw-text elements, `/>` honoured only inside SVG and MathML (and HTML tags
 * breaking out of them), end tags ignored out of scope, `form` and formatting elements taken out
 * in place, formatting elements reopened before text (at most three alike), the implied closes of
 * `p`, `li`, `dt`/`dd`, `td`/`th`, `tr` and `option`, and the `tbody` a parser inserts between a
 * table and its rows. `document-depth.test.ts` holds it to parse5 (the standard's algorithm) on
 * generated tag soup: never shallower.
 */

import { commentEnd, isLetter, isSpace, RAW_TEXT, rawTextEnd, readTag } from './html-tokens.ts';
import { FORMATTING, OpenElements, SCOPE, SPECIAL } from './open-elements.ts';

/** Chromium's HTML parser stops nesting at 512 levels; a deeper email renders differently everywhere. */
export const MAX_DOCUMENT_DEPTH = 512;

const VOID = new Set([
  'area',
  'base',
  'basefont',
  'bgsound',
  'br',
  'col',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
/** Opening one of these closes an open `p` (in button scope). */
const CLOSES_P = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'center',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  // Not table: without a doctype (quirks mode, as many emails are) a table opens inside the p.
  'ul',
  'li',
  'dd',
  'dt',
]);
/** HTML start tags that close the SVG or MathML around them (and font with color, face or size). */
const BREAK_OUT = new Set(
  (
    'b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li ' +
    'listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var'
  ).split(' '),
);
/** Start tags that mean something only inside a table. */
const TABLE_ONLY = new Set(['tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'caption', 'col', 'colgroup']);
/** A table and the parts a parser puts between it and a cell. */
const TABLE_PARTS = new Set(['table', 'tbody', 'thead', 'tfoot', 'tr']);
/** Levels a parser may insert in a template's content: no tag has these names. */
const SOME_BODY = '#tbody';
const SOME_ROW = '#tr';
/** The same, a template, whose content may be read as a table's, and the levels counted in it. */
const TABLE_CONTEXTS = new Set([...TABLE_PARTS, 'template', SOME_BODY, SOME_ROW]);
/**
 * Start tags a parser ignores inside a <select> (so their content is not raw text there, nor SVG or
 * MathML: a <template> after an ignored <svg> is HTML's, and so is what it holds).
 */
const IGNORED_IN_SELECT = new Set([
  'svg',
  'math',
  'title',
  'style',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'noscript',
  'plaintext',
]);
/** The end tags a parser reads inside a <select>; it ignores the others. */
const SELECT_END = new Set(['select', 'option', 'optgroup', 'template']);
/** End tags that close a <select> in a table, and then themselves. */
const TABLE_END = new Set(['caption', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'td', 'th']);
/** Start tags that put a marker in the list of active formatting elements. */
const MARKERS = new Set(['td', 'th', 'caption', 'applet', 'marquee', 'object', 'template']);

const LI = new Set(['li']);
/** A new li, dd or dt closes the previous one down to any special element but address, div and p. */
const LIST_STOP = new Set([...SPECIAL].filter((n) => !['address', 'div', 'p', 'li'].includes(n)));
const DT_DD = new Set(['dt', 'dd']);
const DL_STOP = new Set([...SPECIAL].filter((n) => !['address', 'div', 'p', 'dd', 'dt'].includes(n)));
const CELL = new Set(['td', 'th']);
const ROW_STOP = new Set(['table', 'tr', 'tbody', 'thead', 'tfoot', 'html', 'template']);
const ROW = new Set(['tr']);
const SECTION_STOP = new Set(['table', 'tbody', 'thead', 'tfoot', 'html', 'template']);
const P = new Set(['p']);
/** Where closing a p stops; a select too (inside one, a parser ignores the tags that would close it). */
const P_STOP = new Set([...SCOPE, 'select']);

/** The deepest nesting of elements in `html` (html, head and body count, as a parser builds them). */
export function documentDepth(html: string): number {
  const open = new OpenElements();
  let i = 0;
  /** HTML's form element pointer: set by a form, cleared only by </form>. */
  let formOpened = false;
  for (;;) {
    if (open.reopened > REOPEN_BUDGET) return Number.POSITIVE_INFINITY;
    const lt = html.indexOf('<', i);
    if (lt !== i) reopenForText(open, html, i, lt === -1 ? html.length : lt);
    if (lt === -1) break;
    const next = html.charCodeAt(lt + 1);
    if (next === 0x21 /* ! */ && html.startsWith('<!--', lt)) {
      i = commentEnd(html, lt + 4);
      if (i === -1) break;
      continue;
    }
    const closing = next === 0x2f; /* / */
    if (next === 0x21 || next === 0x3f /* ? */ || (closing && !isLetter(html.charCodeAt(lt + 2)))) {
      // <!doctype>, <?xml?>, </ x>: bogus comments to the next >. (An empty </> is dropped alike.)
      const end = html.indexOf('>', lt + 2);
      if (end === -1) break;
      i = end + 1;
      continue;
    }
    if (!closing && !isLetter(next)) {
      i = lt + 1; // a < that starts no tag is text
      continue;
    }
    const nameStart = closing ? lt + 2 : lt + 1;
    let nameEnd = nameStart;
    while (nameEnd < html.length) {
      const c = html.charCodeAt(nameEnd);
      if (isSpace(c) || c === 0x2f || c === 0x3e) break;
      nameEnd++;
    }
    const tag = readTag(html, nameEnd);
    if (tag.end === -1) break;
    i = tag.end;
    const name = html.slice(nameStart, nameEnd).toLowerCase();
    if (closing) {
      // In SVG or MathML, </p> and </br> are HTML's: the foreign elements around them close first.
      if ((name === 'p' || name === 'br') && open.inForeign()) open.breakOut();
      if (open.openSince('select', 'template') && !SELECT_END.has(name)) {
        // Inside a <select> a parser ignores other end tags, but a table part's closes the select
        // (in a table) and then itself.
        if (!TABLE_END.has(name) || !open.hasInScope(name, 'table')) continue;
        open.close('select', 'table');
      }
      if (name === 'form') formOpened = false;
      if (name === 'br') {
        open.reconstruct(); // </br> is read as <br>
        open.leaf();
        continue;
      }
      // </p> with no p to close: a parser inserts an empty one.
      // A </frameset> closes the frameset a parser honoured, where nothing else stands above it; in
      // a body a parser ignores <frameset>, and its end tag closes nothing.
      if (name === 'frameset') {
        if (open.top() === 'frameset') open.close('frameset');
        continue;
      }
      if (name === 'p' && !open.hasInScope('p')) {
        open.leaf();
        continue;
      }
      if (FORMATTING.has(name)) open.endFormatting(name);
      else open.close(name);
      continue;
    }
    if (
      open.inForeign() &&
      (BREAK_OUT.has(name) ||
        (name === 'font' && /\b(?:color|face|size)\s*=/i.test(html.slice(nameEnd, tag.end))))
    )
      open.breakOut();
    const foreign = open.inForeign(); // there, `/>` self-closes
    // Counted once, below; in SVG or MathML they are elements like any other.
    if (!foreign && (name === 'html' || name === 'head' || name === 'body')) continue;
    // A form inside a form is ignored (until </form>, even when the first was closed otherwise),
    // before it would close a paragraph.
    if (!foreign && name === 'form') {
      if (formOpened && !open.isOpen('template')) continue;
      formOpened = true;
    }
    // Outside any table a parser ignores the parts of one, before they would close anything.
    if (!foreign && TABLE_ONLY.has(name) && !open.isOpen('table') && !open.isOpen('template')) continue;
    if (!foreign) {
      if (CLOSES_P.has(name)) open.closeNearest(P, P_STOP);
      if (name === 'li') open.closeNearest(LI, LIST_STOP);
      else if (name === 'dt' || name === 'dd') open.closeNearest(DT_DD, DL_STOP);
      else if (name === 'td' || name === 'th') {
        open.closeNearest(CELL, ROW_STOP);
        // A cell straight in a table gets the row (and body) a parser inserts around it.
        // (Whatever stands between them and the table, a parser would have moved out of it.)
        const section = open.nearest(TABLE_CONTEXTS);
        if (section === 'table') open.push('tbody');
        if (section === 'table' || section === 'tbody' || section === 'thead' || section === 'tfoot')
          open.push('tr');
        // In a template a parser inserts them or not, as the tags before took it: counted as if it
        // did, as levels no end tag closes.
        if (section === 'template') open.push(SOME_BODY);
        if (section === 'template' || section === SOME_BODY) open.push(SOME_ROW);
      } else if (name === 'tr') {
        open.closeNearest(CELL, ROW_STOP);
        open.closeNearest(ROW, SECTION_STOP);
        const section = open.nearest(TABLE_CONTEXTS);
        if (section === 'table') open.push('tbody');
        if (section === 'template') open.push(SOME_BODY);
      } else if ((name === 'option' || name === 'optgroup') && open.top() === 'option') open.close('option');
    }
    if (!foreign) {
      // A second <a>, or a <nobr> inside one, first closes the open one (the adoption agency).
      if (name === 'a' && open.listed('a')) open.endFormatting('a');
      if (name === 'nobr' && open.isOpen('nobr')) open.endFormatting('nobr');
      if (!NO_REOPEN.has(name)) open.reconstruct();
    }
    // In SVG and MathML, <input> or <img> nest like any other element; only `/>` closes at once.
    if ((VOID.has(name) && !foreign) || (foreign && tag.selfClosing)) {
      open.leaf();
      continue;
    }
    // Inside a <select> a parser ignores these start tags, and reads what follows as markup; a
    // <template> opened inside it is read as any template is.
    if (!foreign && open.openSince('select', 'template') && IGNORED_IN_SELECT.has(name)) continue;
    if (name === 'plaintext' && !foreign) {
      // Everything after it is its text, before which the formatting elements are reopened.
      open.push(name);
      if (i < html.length) open.reconstruct();
      break;
    }
    if (RAW_TEXT.has(name) && !foreign) {
      open.leaf();
      const end = rawTextEnd(html, name, i);
      if (end === -1) break;
      i = end;
      continue;
    }
    if (FORMATTING.has(name) && !foreign) open.pushFormatting(name, html.slice(nameEnd, tag.end - 1).trim());
    else if (MARKERS.has(name) && !foreign) open.pushMarker(name);
    else open.push(name);
  }
  // html > body (or head) hold everything: two more levels, and one for the text inside.
  return open.deepest + 3;
}

/**
 * Reopening formatting elements is at most quadratic (each text may reopen every listed one). A
 * document that makes a parser reopen this many builds millions of elements, whatever its depth:
 * it is counted as too deep (a quarter of a second's work on 1 MB, measured).
 */
const REOPEN_BUDGET = 4_000_000;

/** Start tags before which a parser does not reopen formatting elements (blocks, tables, head). */
const NO_REOPEN = new Set([
  ...CLOSES_P,
  ...'hr li dd dt listing form plaintext table caption colgroup col tbody thead tfoot tr td th'.split(' '),
  ...'html head body frameset template meta link base style script title textarea iframe noembed noscript'.split(
    ' ',
  ),
]);

/** Text between tags: a parser reopens the formatting elements before it (whitespace in a table aside). */
function reopenForText(open: OpenElements, html: string, from: number, to: number): void {
  if (!open.hasPopped()) return;
  if (TABLE_PARTS.has(open.top() ?? '') && /^[ \t\n\f\r]*$/.test(html.slice(from, to))) return;
  open.reconstruct();
}
