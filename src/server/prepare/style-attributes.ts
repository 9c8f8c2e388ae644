import { commentEnd, isLetter, isSpace, RAW_TEXT, rawTextEnd, readTag } from './html-tokens.ts';

/**
 * The `style` attributes of an HTML document's start tags, found as the HTML tokenizer finds them
 * (html-tokens.ts), in one pass: what is a comment, a bogus comment (`<!x …>`, `<?…>`), a CDATA
 * section or the text of a raw-text element (`<script>`, `<style>`, `<textarea>`, `<title>`, …)
 * holds no tag, a value ends where the tokenizer ends it (an unquoted one only at a space or `>`),
 * the first `style` of a tag counts, and a tag the input ends inside is no tag. Used to rewrite
 * those attributes and nothing else (src/server/prepare/inline-css.ts).
 */

/** A `style` attribute as written: its offsets in the document and its value, references and all. */
export interface StyleAttribute {
  start: number;
  end: number;
  value: string;
}

/** Every `style` attribute of the document's start tags, in order. */
export function styleAttributes(html: string): StyleAttribute[] {
  const found: StyleAttribute[] = [];
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    const next = html.charCodeAt(lt + 1);
    const closing = next === 0x2f; /* / */
    if (html.startsWith('<!--', lt)) {
      const end = commentEnd(html, lt + 4);
      i = end === -1 ? n : end;
    } else if (html.startsWith('<![CDATA[', lt)) {
      // Text in <svg> and <math>, a bogus comment elsewhere: no tag either way up to its end.
      const end = html.indexOf(']]>', lt);
      i = end === -1 ? n : end + 3;
    } else if (
      next === 0x21 /* ! */ ||
      next === 0x3f /* ? */ ||
      (closing && !isLetter(html.charCodeAt(lt + 2)))
    ) {
      const end = html.indexOf('>', lt);
      i = end === -1 ? n : end + 1;
    } else if (isLetter(next) || closing) {
      let k = lt + (closing ? 2 : 1);
      while (k < n && !isSpace(html.charCodeAt(k)) && html[k] !== '/' && html[k] !== '>') k++;
      const name = html.slice(lt + (closing ? 2 : 1), k).toLowerCase();
      let style: StyleAttribute | undefined;
      const tag = readTag(html, k, ({ nameStart, nameEnd, value, end }) => {
        if (style || !value || html.slice(nameStart, nameEnd).toLowerCase() !== 'style') return;
        style = { start: nameStart, end, value: html.slice(value.start, value.end) };
      });
      if (tag.end === -1) break; // the input ends inside the tag: no tag
      if (!closing && style) found.push(style);
      if (!closing && name === 'plaintext') break;
      const rawEnd = !closing && RAW_TEXT.has(name) ? rawTextEnd(html, name, tag.end) : tag.end;
      i = rawEnd === -1 ? n : rawEnd;
    } else {
      i = lt + 1;
    }
  }
  return found;
}
