/**
 * The `style` attributes of an HTML document's start tags, found as the HTML tokenizer finds them,
 * in one pass: what is a comment, a bogus comment (`<!x …>`, `<?…>`), a CDATA section or the
 * text of a raw-text element (`<script>`, `<style>`, `<textarea>`, `<title>`, …) holds no tag, a
 * value ends where the tokenizer ends it (an unquoted one only at a space or `>`), the first
 * `style` of a tag counts, and a tag the input ends inside is no tag. Used to rewrite those
 * attributes and nothing else (src/server/prepare/inline-css.ts).
 */

/** Elements whose content the tokenizer reads as text up to their end tag (html5ever, scripting on). */
const RAW_TEXT = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'noscript',
]);
const SPACE = new Set(['\t', '\n', '\f', '\r', ' ']);
const isLetter = (c: string | undefined) => c !== undefined && /[a-zA-Z]/.test(c);

/** A `style` attribute as written: its offsets in the document and its value, references and all. */
export interface StyleAttribute {
  start: number;
  end: number;
  value: string;
}

/** Where the text of a raw-text element ends: at its end tag, or the end of the input. */
const endTags = new Map<string, RegExp>();
function rawTextEnd(html: string, name: string, from: number): number {
  let end = endTags.get(name);
  if (!end) endTags.set(name, (end = new RegExp(`</${name}[\\t\\n\\f\\r />]`, 'gi')));
  end.lastIndex = from;
  return end.exec(html)?.index ?? html.length;
}

/** Past a comment starting at `at` (`<!--`), as the tokenizer ends one: `-->`, `--!>`, `<!-->`, `<!--->`. */
function commentEnd(html: string, at: number): number {
  if (html.startsWith('>', at + 4)) return at + 5;
  if (html.startsWith('->', at + 4)) return at + 6;
  for (let i = at + 4; ;) {
    const dashes = html.indexOf('--', i);
    if (dashes === -1) return html.length;
    if (html[dashes + 2] === '>') return dashes + 3;
    if (html[dashes + 2] === '!' && html[dashes + 3] === '>') return dashes + 4;
    i = dashes + 1;
  }
}

/**
 * A tag's attributes from `i` (after its name) to its `>`: the first `style`, and where the tag
 * ends (past `>`), or -1 when the input ends inside it.
 */
function readAttributes(html: string, i: number): { end: number; style?: StyleAttribute } {
  let style: StyleAttribute | undefined;
  const n = html.length;
  for (;;) {
    while (i < n && (SPACE.has(html[i]!) || html[i] === '/')) i++;
    if (i >= n) return { end: -1 };
    if (html[i] === '>') return { end: i + 1, style };
    const nameStart = i;
    i++; // a first `=` belongs to the name
    while (i < n && !SPACE.has(html[i]!) && html[i] !== '/' && html[i] !== '>' && html[i] !== '=') i++;
    const name = html.slice(nameStart, i);
    let j = i;
    while (j < n && SPACE.has(html[j]!)) j++;
    let value: string | undefined;
    if (html[j] === '=') {
      j++;
      while (j < n && SPACE.has(html[j]!)) j++;
      const quote = html[j];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, j + 1);
        if (close === -1) return { end: -1 };
        value = html.slice(j + 1, close);
        i = close + 1;
      } else {
        let k = j;
        while (k < n && !SPACE.has(html[k]!) && html[k] !== '>') k++;
        value = html.slice(j, k);
        i = k;
      }
    }
    if (!style && name.toLowerCase() === 'style' && value !== undefined)
      style = { start: nameStart, end: i, value };
  }
}

/** Every `style` attribute of the document's start tags, in order. */
export function styleAttributes(html: string): StyleAttribute[] {
  const found: StyleAttribute[] = [];
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    const next = html[lt + 1];
    if (html.startsWith('<!--', lt)) {
      i = commentEnd(html, lt);
    } else if (html.startsWith('<![CDATA[', lt)) {
      // Text in <svg> and <math>, a bogus comment elsewhere: no tag either way up to its end.
      const end = html.indexOf(']]>', lt);
      i = end === -1 ? n : end + 3;
    } else if (next === '!' || next === '?' || (next === '/' && !isLetter(html[lt + 2]))) {
      const end = html.indexOf('>', lt);
      i = end === -1 ? n : end + 1;
    } else if (isLetter(next) || (next === '/' && isLetter(html[lt + 2]))) {
      const closing = next === '/';
      let k = lt + (closing ? 2 : 1);
      while (k < n && !SPACE.has(html[k]!) && html[k] !== '/' && html[k] !== '>') k++;
      const name = html.slice(lt + (closing ? 2 : 1), k).toLowerCase();
      const tag = readAttributes(html, k);
      if (tag.end === -1) break; // the input ends inside the tag: no tag
      if (!closing && tag.style) found.push(tag.style);
      i = !closing && RAW_TEXT.has(name) ? rawTextEnd(html, name, tag.end) : tag.end;
      if (!closing && name === 'plaintext') break;
    } else {
      i = lt + 1;
    }
  }
  return found;
}
