/**
 * How deeply an HTML document nests, measured by a single pass over its tags with an explicit
 * stack (no recursion, linear time), before any parser or inliner sees the document
 * (docs/decisions/0030-worker-pool-for-transforms.md).
 *
 * The count errs on the deep side: it never closes an element that an HTML parser would keep open,
 * because the inliner's native parser crashes the whole process on a document a few thousand
 * levels deep. It follows the parts of the HTML parsing rules that matter for depth: void elements,
 * raw-text elements, `/>` honoured only inside SVG and MathML, end tags closing what they enclose,
 * the implied closes of `p`, `li`, `dt`/`dd`, `td`/`th`, `tr` and `option`, and the `tbody` a parser
 * inserts between a table and its rows.
 */

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
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes']);
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
  'table',
  'ul',
]);
/** Where a search for an element to close implicitly stops (the parser's scope boundaries). */
const SCOPE = new Set([
  'applet',
  'caption',
  'html',
  'table',
  'td',
  'th',
  'marquee',
  'object',
  'template',
  'button',
  'svg',
  'math',
]);

/** Closes the nearest open `name` above every scope boundary in `stoppers`, if there is one. */
function closeNearest(stack: string[], names: Set<string>, stoppers: Set<string>): void {
  for (let i = stack.length - 1; i >= 0; i--) {
    const open = stack[i]!;
    if (names.has(open)) {
      stack.length = i;
      return;
    }
    if (stoppers.has(open)) return;
  }
}

const LI = new Set(['li']);
const LIST_STOP = new Set([...SCOPE, 'ul', 'ol']);
const DT_DD = new Set(['dt', 'dd']);
const DL_STOP = new Set([...SCOPE, 'dl']);
const CELL = new Set(['td', 'th']);
const ROW_STOP = new Set(['table', 'tr', 'tbody', 'thead', 'tfoot', 'html', 'template']);
const ROW = new Set(['tr']);
const SECTION_STOP = new Set(['table', 'tbody', 'thead', 'tfoot', 'html', 'template']);
const OPTION = new Set(['option']);
const P = new Set(['p']);

const TAG = /<(\/?)([a-zA-Z][^\s/>]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|<!--|<!|<\?/g;

/** The deepest nesting of elements in `html` (html, head and body count, as a parser builds them). */
export function documentDepth(html: string): number {
  const stack: string[] = [];
  let deepest = 0;
  let foreign = 0; // how many svg/math elements are open: `/>` self-closes inside them
  TAG.lastIndex = 0;
  for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
    if (m[0] === '<!--') {
      const end = html.indexOf('-->', m.index + 4);
      if (end === -1) break;
      TAG.lastIndex = end + 3;
      continue;
    }
    if (m[0] === '<!' || m[0] === '<?') {
      const end = html.indexOf('>', m.index + 2);
      if (end === -1) break;
      TAG.lastIndex = end + 1;
      continue;
    }
    const name = m[2]!.toLowerCase();
    if (m[1] === '/') {
      const at = stack.lastIndexOf(name);
      if (at !== -1) {
        for (let i = stack.length - 1; i >= at; i--) if (stack[i] === 'svg' || stack[i] === 'math') foreign--;
        stack.length = at;
      }
      continue;
    }
    if (name === 'html' || name === 'head' || name === 'body') continue; // counted once, below
    if (foreign === 0) {
      if (CLOSES_P.has(name)) closeNearest(stack, P, SCOPE);
      if (name === 'li') closeNearest(stack, LI, LIST_STOP);
      else if (name === 'dt' || name === 'dd') closeNearest(stack, DT_DD, DL_STOP);
      else if (name === 'td' || name === 'th') {
        closeNearest(stack, CELL, ROW_STOP);
        // A cell straight in a table gets the row (and body) a parser inserts around it.
        if (stack[stack.length - 1] === 'table') stack.push('tbody');
        if (/^(tbody|thead|tfoot)$/.test(stack[stack.length - 1] ?? '')) stack.push('tr');
      } else if (name === 'tr') {
        closeNearest(stack, CELL, ROW_STOP);
        closeNearest(stack, ROW, SECTION_STOP);
        if (stack[stack.length - 1] === 'table') stack.push('tbody');
      } else if (name === 'option') closeNearest(stack, OPTION, SCOPE);
    }
    const selfClosing = /\/\s*$/.test(m[3] ?? '');
    if (VOID.has(name) || (foreign > 0 && selfClosing)) continue;
    if (RAW_TEXT.has(name) && foreign === 0) {
      const close = new RegExp(`</${name}[\\s/>]`, 'ig');
      close.lastIndex = TAG.lastIndex;
      const end = close.exec(html);
      // The element opens and closes: it adds one level below the current one.
      deepest = Math.max(deepest, stack.length + 1);
      if (!end) break;
      TAG.lastIndex = end.index;
      continue;
    }
    if (name === 'svg' || name === 'math') foreign++;
    stack.push(name);
    deepest = Math.max(deepest, stack.length);
  }
  // html > body (or head) hold everything: two more levels, and one for the text inside.
  return deepest + 3;
}
