/**
 * How deeply an HTML document nests, measured by a single pass over its tags with an explicit
 * stack (no recursion, linear time), before any parser or inliner sees the document
 * (docs/decisions/0050-transform-process-pool.md).
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

/** How far down an implied close looks; deeper, the element stays open (the count errs on the deep side). */
const IMPLIED_CLOSE_REACH = 64;

/** The open elements, with a count per name so that looking for one that is not open costs nothing. */
class OpenElements {
  readonly stack: string[] = [];
  private readonly open = new Map<string, number>();

  get depth(): number {
    return this.stack.length;
  }

  top(): string | undefined {
    return this.stack[this.stack.length - 1];
  }

  isOpen(name: string): boolean {
    return (this.open.get(name) ?? 0) > 0;
  }

  push(name: string): void {
    this.stack.push(name);
    this.open.set(name, (this.open.get(name) ?? 0) + 1);
  }

  /** Pops everything from `index` up. */
  truncate(index: number): void {
    for (let i = this.stack.length - 1; i >= index; i--) {
      const name = this.stack[i]!;
      this.open.set(name, this.open.get(name)! - 1);
    }
    this.stack.length = index;
  }

  /** Closes the nearest open element named in `names` above every boundary in `stoppers`, if any. */
  closeNearest(names: Set<string>, stoppers: Set<string>): void {
    let any = false;
    for (const n of names) any ||= this.isOpen(n);
    if (!any) return;
    const floor = Math.max(0, this.stack.length - IMPLIED_CLOSE_REACH);
    for (let i = this.stack.length - 1; i >= floor; i--) {
      const open = this.stack[i]!;
      if (names.has(open)) return this.truncate(i);
      if (stoppers.has(open)) return;
    }
  }

  /** An end tag: closes the nearest open element of that name and everything inside it. */
  close(name: string): void {
    if (this.isOpen(name)) this.truncate(this.stack.lastIndexOf(name));
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
const COMMENT_END = /--!?>/g;

/** The deepest nesting of elements in `html` (html, head and body count, as a parser builds them). */
export function documentDepth(html: string): number {
  const open = new OpenElements();
  let deepest = 0;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
    if (m[0] === '<!--') {
      // A comment ends as a parser ends it: at once as <!--> or <!--->, else at --> or --!>.
      const start = m.index + 4;
      const abrupt = html.startsWith('>', start) ? 1 : html.startsWith('->', start) ? 2 : 0;
      if (abrupt) {
        TAG.lastIndex = start + abrupt;
        continue;
      }
      COMMENT_END.lastIndex = start;
      const end = COMMENT_END.exec(html);
      if (!end) break;
      TAG.lastIndex = end.index + end[0].length;
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
      open.close(name);
      continue;
    }
    if (name === 'html' || name === 'head' || name === 'body') continue; // counted once, below
    const foreign = open.isOpen('svg') || open.isOpen('math'); // there, `/>` self-closes
    if (!foreign) {
      if (CLOSES_P.has(name)) open.closeNearest(P, SCOPE);
      if (name === 'li') open.closeNearest(LI, LIST_STOP);
      else if (name === 'dt' || name === 'dd') open.closeNearest(DT_DD, DL_STOP);
      else if (name === 'td' || name === 'th') {
        open.closeNearest(CELL, ROW_STOP);
        // A cell straight in a table gets the row (and body) a parser inserts around it.
        if (open.top() === 'table') open.push('tbody');
        if (/^(tbody|thead|tfoot)$/.test(open.top() ?? '')) open.push('tr');
      } else if (name === 'tr') {
        open.closeNearest(CELL, ROW_STOP);
        open.closeNearest(ROW, SECTION_STOP);
        if (open.top() === 'table') open.push('tbody');
      } else if (name === 'option') open.closeNearest(OPTION, SCOPE);
    }
    // An element that opens and closes at once still adds one level below the current one.
    const leaf = () => (deepest = Math.max(deepest, open.depth + 1));
    if (VOID.has(name) || (foreign && /\/\s*$/.test(m[3] ?? ''))) {
      leaf();
      continue;
    }
    if (RAW_TEXT.has(name) && !foreign) {
      leaf();
      const close = new RegExp(`</${name}[\\s/>]`, 'ig');
      close.lastIndex = TAG.lastIndex;
      const end = close.exec(html);
      if (!end) break;
      TAG.lastIndex = end.index;
      continue;
    }
    open.push(name);
    deepest = Math.max(deepest, open.depth);
  }
  // html > body (or head) hold everything: two more levels, and one for the text inside.
  return deepest + 3;
}
