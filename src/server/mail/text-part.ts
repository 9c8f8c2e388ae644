import { compile, type DomNode, type FormatCallback } from 'html-to-text';

/**
 * The plain-text alternative of an HTML mail (docs/decisions/0053-text-part-rules.md): the words
 * and links of the email as a reader of the text part should see them, without the invisible
 * characters that pad a preheader in the HTML, and without the runs of blank lines that layout
 * tables leave behind.
 */

/**
 * A run of characters that pad without showing: spaces of every width (no-break, en and em to
 * hair, narrow, medium mathematical), soft hyphens, the combining grapheme joiner (&#847;),
 * zero-width spaces and joiners, direction marks (React Email pads its preview text with them),
 * word joiners, BOMs. A preheader is followed by dozens of them (`&zwnj;&nbsp;` …) to keep the body
 * out of the inbox snippet; MJML's templates fill spacer cells with a hair space (`&#8202;`). The
 * ideographic space stays: it indents a Japanese paragraph.
 */
const PAD = String.raw` \t\u00A0\u2000-\u200A\u202F\u205F\u00AD\u034F\u200B-\u200F\u2060\uFEFF`;
// eslint-disable-next-line no-misleading-character-class -- each invisible character is matched on its own, on purpose
const PAD_RUN = new RegExp(`[${PAD}]+`, 'g');
const PLAIN_SPACES = /^[ \t]+$/;
/**
 * Zero-width (non-)joiners between two letters are spelling (Persian, Indic scripts, emoji
 * sequences), and direction marks there set the order of mixed Hebrew or Arabic and Latin text.
 */
const JOINERS = /^[\u200C-\u200F]+$/;
const SPACE_LIKE = /[ \t\u00A0\u2000-\u200A\u202F\u205F]/;

function replacePad(run: string, offset: number, text: string): string {
  if (PLAIN_SPACES.test(run)) return run; // ordinary spacing and indentation stay as they are
  const before = offset === 0 ? '\n' : text[offset - 1]!;
  const after = text[offset + run.length] ?? '\n';
  const atLineEdge = before === '\n' || after === '\n';
  if (!atLineEdge && JOINERS.test(run)) return run;
  if (atLineEdge) return '';
  return SPACE_LIKE.test(run) ? ' ' : '';
}

/** Where a line ends, as `$` reads it in a multiline regular expression (no CR is left here). */
const LINE_END = new Set([undefined, '\n', '\u2028', '\u2029']);

/**
 * Drops invisible padding, trailing blanks and runs of blank lines (at most one blank line in a row).
 * In linear time: `/[ \t]+$/gm` and `/\n+$/` try every start inside a long run of blanks and took
 * 2 s on 40,000 spaces followed by a letter, so runs are matched whole and their ends looked at.
 */
export function cleanText(text: string): string {
  const cleaned = text
    .replace(/\r\n?/g, '\n')
    .replace(PAD_RUN, replacePad)
    .replace(/[ \t]+/g, (blank, offset: number, all: string) => {
      if (!LINE_END.has(all[offset + blank.length])) return blank;
      // "-- " alone on a line is the signature separator: keep its space.
      return all.slice(offset - 2, offset) === '--' && (offset === 2 || all[offset - 3] === '\n')
        ? blank
        : '';
    })
    .replace(/\n{3,}/g, '\n\n');
  let start = 0;
  let end = cleaned.length;
  while (start < end && cleaned[start] === '\n') start++;
  while (end > start && cleaned[end - 1] === '\n') end--;
  return cleaned.slice(start, end);
}

const WRAP_AT = 78;

/**
 * Wraps lines longer than 78 characters at spaces (RFC 5322's recommended line length), after the
 * padding is gone, so that invisible characters never push words onto a line of their own. A
 * continued line keeps the indentation of a list item and the `> ` of a quote. Words longer than a
 * line (links) are never cut.
 */
export function wrapText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.length <= WRAP_AT) return line;
      const prefix = /^(?:> )*\s*(?:\* |\d+\. )?/.exec(line)![0];
      const continuation = prefix.replace(/\* |\d+\. /, (bullet) => ' '.repeat(bullet.length));
      const words = line.slice(prefix.length).split(' ');
      const out: string[] = [];
      let current = prefix;
      let empty = true;
      for (const word of words) {
        if (!empty && current.length + 1 + word.length > WRAP_AT) {
          out.push(current);
          current = continuation + word;
        } else {
          current += (empty ? '' : ' ') + word;
        }
        empty = false;
      }
      out.push(current);
      return out.join('\n');
    })
    .join('\n');
}

const hrefOf = (link: DomNode) => String(link.attribs?.href ?? '').trim();

/**
 * The nearest link around a node that the text part shows an address for (html-to-text leaves out
 * an empty `href` and one to an anchor in the page, `#…`).
 */
function linkAround(node: DomNode): DomNode | undefined {
  for (let at = node.parent; at; at = at.parent) {
    if (at.name !== 'a') continue;
    const href = hrefOf(at);
    return href && !href.startsWith('#') ? at : undefined;
  }
  return undefined;
}

/** A character that shows: neither white space nor padding. */
// eslint-disable-next-line no-misleading-character-class -- as PAD_RUN
const VISIBLE = new RegExp(String.raw`[^\s${PAD}]`);

interface LinkContent {
  hasText: boolean;
  image?: DomNode;
}

/**
 * Whether a link shows words of its own, and the first image inside it with an alt text. Looked at
 * once per link (a link around thousands of images is looked at once, not once per image).
 */
const seenLinks = new WeakMap<DomNode, LinkContent>();
function linkContent(link: DomNode): LinkContent {
  const known = seenLinks.get(link);
  if (known) return known;
  let hasText = false;
  let image: DomNode | undefined;
  const visit = (nodes: DomNode[]) => {
    for (const node of nodes) {
      if (hasText) return;
      if (node.type === 'text') hasText = VISIBLE.test(node.data ?? '');
      else if (node.name === 'img') image ??= node.attribs?.alt?.trim() ? node : undefined;
      else if (node.children) visit(node.children);
    }
  };
  visit(link.children);
  const content = { hasText, image };
  seenLinks.set(link, content);
  return content;
}

/**
 * Images are left out of the text part, but for the one thing a link shows when it has no words
 * of its own (a linked logo, an image button, a row of social icons): its alt text stands for it,
 * so the reader sees "Acme [https://acme.example]" rather than a bare address. Only the first
 * image with an alt text counts (a logo is often there twice, for desktop and for phones).
 */
const altOfLinkedImage: FormatCallback = (elem, _walk, builder) => {
  const link = linkAround(elem);
  if (!link) return;
  const { hasText, image } = linkContent(link);
  if (!hasText && image === elem) builder.addInline(String(elem.attribs.alt).trim());
};

/** html-to-text's nodes are htmlparser2's (domhandler), which know their previous sibling. */
type Sibling = DomNode & { prev?: Sibling | null };

/** The node before this one among its parent's children, comments aside. */
function previousSibling(node: Sibling): Sibling | undefined {
  let at = node.prev;
  while (at?.type === 'comment') at = at.prev;
  return at ?? undefined;
}

/** Per document, the addresses of its links that show words or an image's alt text. */
const namedLinks = new WeakMap<DomNode, Set<string>>();
function addressesNamed(node: DomNode): Set<string> {
  let root = node;
  while (root.parent) root = root.parent;
  let named = namedLinks.get(root);
  if (!named) {
    const found = new Set<string>();
    const visit = (nodes: DomNode[]) => {
      for (const n of nodes) {
        if (n.type !== 'tag') continue;
        if (n.name === 'a') {
          const { hasText, image } = linkContent(n);
          if (hasText || image) found.add(hrefOf(n));
        }
        visit(n.children);
      }
    };
    visit(root.type === 'root' || !root.name ? root.children : [root]);
    named = found;
    namedLinks.set(root, named);
  }
  return named;
}

/**
 * A link written right after another (a menu, a row of icons, spaced by CSS padding in the HTML)
 * starts a new word: "Home New Women", "F [https://…] T [https://…]", never "HomeNewWomen". A link
 * that shows nothing a reader could name (an icon with `alt=""`) is left out where a link with
 * words goes to the same address (MJML's social buttons, a product's picture beside its name):
 * the address once, after the words, rather than alone on a line before them.
 */
const separateLinks: FormatCallback = (elem, walk, builder, formatOptions) => {
  const { hasText, image } = linkContent(elem);
  // (In a list item it stays: the item would be an empty bullet.)
  const dropped = !hasText && !image && elem.parent?.name !== 'li' && hrefOf(elem);
  if (dropped && addressesNamed(elem).has(dropped)) return;
  if (previousSibling(elem)?.name === 'a') builder.addInline(' ');
  builder.options.formatters!.anchor!(elem, walk, builder, formatOptions);
};

/** Elements that lay out as blocks of their own in the text part (html-to-text's block formats). */
const BLOCK_NAMES =
  'article aside blockquote br div footer form h1 h2 h3 h4 h5 h6 header hr main nav ol p pre section table ul';
const BLOCKS = new Set(BLOCK_NAMES.split(' '));

function holdsBlock(nodes: DomNode[]): boolean {
  for (const node of nodes) {
    if (node.type !== 'tag') continue;
    if (BLOCKS.has(node.name!) || holdsBlock(node.children)) return true;
  }
  return false;
}

const ROW_GROUPS = new Set(['thead', 'tbody', 'tfoot']);

/** Whether a row is the first of its table (directly, or in its first row group). */
function isFirstRow(row: DomNode): boolean {
  const parent = row.parent;
  if (!parent) return true;
  const table = parent.name !== undefined && ROW_GROUPS.has(parent.name) ? parent.parent : parent;
  for (const child of table?.children ?? []) {
    if (child.type !== 'tag') continue;
    if (child.name === 'tr') return child === row;
    if (ROW_GROUPS.has(child.name!)) {
      const first = child.children.find((c) => c.type === 'tag' && c.name === 'tr');
      if (first) return first === row;
    }
  }
  return true;
}

/**
 * A table row of words only (a receipt's line, "Amount Due: $54.00") is a line of its own, its cells
 * apart by a space: html-to-text runs the cells of every row of a table together ("Item $24.00 Item
 * $24.00 Shipping $6.00"), and cells written with no space between them into one word. A row that
 * holds blocks (a layout row of nested tables and paragraphs) is left as the blocks lay it out.
 */
const rowAsLine: FormatCallback = (elem, walk, builder) => {
  if (holdsBlock(elem.children)) return walk(elem.children, builder);
  // A table's first row starts the table's block: the table's own space before it (a blank line)
  // stays, where html-to-text would give the block the row's (one line break) instead.
  builder.openBlock({ leadingLineBreaks: isFirstRow(elem) ? 2 : 1 });
  let cells = 0;
  for (const child of elem.children) {
    if (child.type === 'tag' && (child.name === 'td' || child.name === 'th') && cells++ > 0)
      builder.addInline(' ');
    walk([child], builder);
  }
  builder.closeBlock({ trailingLineBreaks: 1 });
};

/** Elements that hold no words a reader sees. */
const WORDLESS = new Set(['head', 'style', 'script', 'title', 'template']);

function hasVisibleText(nodes: DomNode[]): boolean {
  for (const node of nodes) {
    if (node.type === 'text' && VISIBLE.test(node.data ?? '')) return true;
    if (node.type === 'tag' && !WORDLESS.has(node.name!) && hasVisibleText(node.children)) return true;
  }
  return false;
}

/** Whether any words come before this node in the document. */
function textBefore(node: Sibling): boolean {
  for (let at: Sibling | undefined = node; at; at = at.parent ?? undefined) {
    for (let prev = at.prev; prev; prev = prev.prev) if (hasVisibleText([prev])) return true;
  }
  return false;
}

/** The conversions (one builder each) that have met a hidden element: only the first can be the preheader. */
const metHidden = new WeakSet<object>();

/**
 * An element its inline style hides (`display: none`) is left out, as a reader never sees it: the
 * phone-only copy of a responsive template, MJML's menu button (☰ ⊗), padding after a preheader.
 * The preheader itself, the first hidden element and before any words, stays as the first
 * paragraph: inboxes show it beside the subject, and so the text part opens with it as before.
 */
const hiddenUnlessPreheader: FormatCallback = (elem, walk, builder) => {
  if (metHidden.has(builder)) return;
  metHidden.add(builder);
  if (textBefore(elem)) return;
  builder.openBlock({ leadingLineBreaks: 2 });
  walk(elem.children, builder);
  builder.closeBlock({ trailingLineBreaks: 2 });
};

/** The ways inline styles write `display: none` (any case; `!important` after it or not). */
const HIDDEN = ['display:none', 'display: none', 'display :none', 'display : none'].map((style) => ({
  selector: `[style*="${style}" i]`,
  format: 'hiddenUnlessPreheader',
}));

/**
 * Compiled once: html-to-text's `convert` rebuilds its selectors and formatters on every call,
 * which cost three to four times the conversion itself (docs/decisions/0071-send-in-two-statements.md).
 */
const toText = compile({
  // Wrapped after cleaning (wrapText): padding must not count towards a line's length.
  wordwrap: false,
  // No-break and figure spaces join words in HTML; in a text part they are only spaces.
  whitespaceCharacters: ' \t\r\n\f\u200b\u00a0\u2007\u202f',
  formatters: { altOfLinkedImage, separateLinks, rowAsLine, hiddenUnlessPreheader },
  selectors: [
    { selector: 'img', format: 'altOfLinkedImage' },
    { selector: 'a', format: 'separateLinks', options: { hideLinkHrefIfSameAsText: true } },
    // What no reader sees wherever it stands: a fragment's <title> is not inside a <head>.
    ...['style', 'head', 'title', 'template', 'script'].map((selector) => ({ selector, format: 'skip' })),
    { selector: 'tr', format: 'rowAsLine' },
    // An attribute selector outranks a tag's: a hidden link or row is hidden, whatever its tag.
    ...HIDDEN,
    // What the author keeps out of the text part: React Email's <Preview> and anything marked so,
    // as React Email's own plain-text rendering leaves it out. Last, so it wins over the above.
    { selector: '[data-skip-in-text="true" i]', format: 'skip' },
  ],
});

export function textFromHtml(html: string): string {
  const text = toText(html);
  return wrapText(cleanText(text));
}
