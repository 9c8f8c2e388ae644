import { Parser } from 'htmlparser2';
import { outlookReads } from './conditional-comments.ts';
import { lastValue, parseDeclarations, type Declaration } from './css-scan.ts';

/**
 * The HTML as sent, parsed once for every static check (htmlparser2, the same tokenizer rules as
 * the text part's html-to-text) into a small tree that knows, for each element, its line and which
 * clients see it (docs/decisions/0063-pre-send-checklist.md):
 * - inside `<!--[if …]>…<![endif]-->` whose condition classic Outlook for Windows reads as true
 *   (`mso`, `mso | IE`, `gte mso 9`; `outlookReads` in conditional-comments.ts): that client only.
 *   The comment's content is parsed as HTML where it stands;
 * - between `<!--[if …]><!-->` and `<!--<![endif]-->` whose condition it reads as false (`!mso`,
 *   MJML's `!mso | IE`): every client but classic Outlook;
 * - inside any other downlevel-hidden conditional (`<!--[if !mso]>…`, `<!--[if IE]>…`): nobody we
 *   score, so it is skipped.
 */

export type Audience = 'all' | 'outlook' | 'not-outlook';

export interface TextNode {
  kind: 'text';
  text: string;
  start: number;
}

export interface El {
  kind: 'element';
  name: string;
  attrs: Record<string, string>;
  parent: El | null;
  children: (El | TextNode)[];
  /** Offset of `<` in the HTML. */
  start: number;
  audience: Audience;
  /** The `style` attribute's declarations. */
  style: Declaration[];
  /** Whether it is hidden, once computed.ts's `isHidden` has asked. */
  hidden?: boolean;
  /** Its font size in px, once computed.ts's `fontSizePx` has asked. */
  fontPx?: number;
}

export interface StyleBlock {
  css: string;
  /** Offset of the CSS text in the HTML. */
  start: number;
  audience: Audience;
}

export interface HtmlDoc {
  html: string;
  root: El;
  /** Every element in document order (conditional content included, with its audience). */
  elements: El[];
  styles: StyleBlock[];
  /** The document has content only classic Outlook sees (mso conditionals, ghost tables, VML). */
  hasMsoContent: boolean;
  line(offset: number): number;
  /** The element's start tag, shortened. */
  excerpt(el: El): string;
}

/** `<!--[if !mso]><!-->`, and Stripo's and Litmus' `<!--[if !mso]><!-- -->`. */
const DOWNLEVEL_REVEALED_OPEN = /^\[if\s+([^\]]*)\]><!(?:--)?$/i;
const DOWNLEVEL_REVEALED_CLOSE = /^<!\[endif\]$/i;
const DOWNLEVEL_HIDDEN = /^\[if\s+([^\]]*)\]>/i;

function lineIndex(html: string): (offset: number) => number {
  const starts = [0];
  for (let i = html.indexOf('\n'); i !== -1; i = html.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const MAX_EXCERPT = 160;

/**
 * How deep conditional comments are read inside each other. Each level is parsed from a copy of the
 * rest of its comment, so an unclosed `<!--[if mso]>` repeated 70,000 times (900 KB) took seconds
 * and 2,000 of them overflowed the stack. Emails nest them one or two deep; deeper ones are read
 * as the plain comments a client that reads none shows nothing of.
 */
const MAX_CONDITIONAL_DEPTH = 4;

/**
 * Parses `html` (or a fragment at `offset` of the document, seen by `audience`, inside `depth`
 * conditional comments) into `into`.
 */
function parseInto(
  doc: HtmlDoc,
  into: El,
  html: string,
  offset: number,
  audience: Audience,
  depth = 0,
): void {
  let current = into;
  let revealed = false; // between <!--[if !mso]><!--> (or another condition Outlook reads as false) and <!--<![endif]-->
  const audienceNow = (): Audience => (audience === 'all' && revealed ? 'not-outlook' : audience);
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const el: El = {
          kind: 'element',
          name,
          attrs: attribs,
          parent: current,
          children: [],
          start: offset + parser.startIndex,
          audience: audienceNow(),
          style: attribs.style ? parseDeclarations(attribs.style) : [],
          // Present from the start, so that every element keeps one shape when computed.ts sets it.
          hidden: undefined,
          fontPx: undefined,
        };
        current.children.push(el);
        doc.elements.push(el);
        current = el;
      },
      onclosetag() {
        if (current !== into && current.parent) current = current.parent;
      },
      ontext(text) {
        if (current.name === 'style') {
          doc.styles.push({ css: text, start: offset + parser.startIndex, audience: current.audience });
          return;
        }
        if (current.name === 'script') return;
        current.children.push({ kind: 'text', text, start: offset + parser.startIndex });
      },
      oncomment(data) {
        const at = offset + parser.startIndex;
        const revealedOpen = DOWNLEVEL_REVEALED_OPEN.exec(data.trim());
        if (revealedOpen) {
          revealed = !outlookReads(revealedOpen[1]!);
          return;
        }
        if (DOWNLEVEL_REVEALED_CLOSE.test(data.trim())) {
          revealed = false;
          return;
        }
        const open = DOWNLEVEL_HIDDEN.exec(data);
        if (open && outlookReads(open[1]!) && audience !== 'not-outlook' && depth < MAX_CONDITIONAL_DEPTH) {
          doc.hasMsoContent = true;
          const end = data.lastIndexOf('<![endif]');
          const inner = data.slice(open[0].length, end === -1 ? undefined : end);
          // "<!--" precedes the comment's data.
          parseInto(doc, current, inner, at + 4 + open[0].length, 'outlook', depth + 1);
          return;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
}

export function parseHtml(html: string): HtmlDoc {
  const root: El = {
    kind: 'element',
    name: '#document',
    attrs: {},
    parent: null,
    children: [],
    start: 0,
    audience: 'all',
    style: [],
  };
  const line = lineIndex(html);
  const doc: HtmlDoc = {
    html,
    root,
    elements: [],
    styles: [],
    hasMsoContent: false,
    line,
    excerpt(el) {
      if (el.start >= html.length || html[el.start] !== '<') return `<${el.name}>`;
      const end = html.indexOf('>', el.start);
      const tag = html.slice(el.start, end === -1 ? undefined : end + 1).replace(/\s+/g, ' ');
      return tag.length > MAX_EXCERPT ? `${tag.slice(0, MAX_EXCERPT - 1)}…` : tag;
    },
  };
  parseInto(doc, root, html, 0, 'all');
  return doc;
}

/** The element's whole text, as a reader sees it (whitespace collapsed). */
export function textOf(el: El): string {
  const parts: string[] = [];
  const walk = (node: El | TextNode) => {
    if (node.kind === 'text') parts.push(node.text);
    else if (node.name !== 'style' && node.name !== 'script') node.children.forEach(walk);
  };
  walk(el);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/** Elements every client but classic Outlook sees: what a reader of most inboxes gets. */
export function mainElements(doc: HtmlDoc): El[] {
  return doc.elements.filter((el) => el.audience !== 'outlook');
}

/** The last value of an inline style property, lower-cased, or undefined. */
export function styleValue(el: El, property: string): string | undefined {
  return lastValue(el.style, property);
}

/** The element itself or its nearest ancestor that passes `test`, or null. */
export function closest(el: El | null, test: (e: El) => boolean): El | null {
  for (let e = el; e; e = e.parent) if (test(e)) return e;
  return null;
}

/** Whether the element is in `<head>` (its title and styles are not the email's text). */
export function insideHead(el: El): boolean {
  return closest(el, (e) => e.name === 'head') !== null;
}

export function findingAt(doc: HtmlDoc, el: El): { element: string; line: number } {
  return { element: doc.excerpt(el), line: doc.line(el.start) };
}
