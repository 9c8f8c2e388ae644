/**
 * What HTML's tokenizer decides, for the one-pass readers of raw HTML (document-depth.ts,
 * style-attributes.ts): which elements hold raw text, where a comment ends, and how a start tag's
 * attributes are read (a quote opens a value only right after `=`; an unquoted value ends only at
 * a space or `>`; `/>` is self-closing only as those two characters).
 */

/** Raw text to their end tag; `noscript` too, as parsers with scripting on (html5ever, parse5) read it. */
export const RAW_TEXT = new Set([
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

const COMMENT_END = /--!?>/g;

/** HTML's whitespace between attributes (CR included). */
export function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
}

export function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** An attribute as written: its name's span, and its value's (without quotes) when it has one. */
export interface AttributeSpan {
  nameStart: number;
  nameEnd: number;
  value?: { start: number; end: number };
  /** Just past the attribute (its closing quote, when quoted). */
  end: number;
}

/**
 * From just after a tag's name to just after its `>`, reading attributes as the tokenizer does,
 * each handed to `onAttribute` in order. -1 when the input ends inside the tag (a parser then
 * drops it).
 */
export function readTag(
  html: string,
  from: number,
  onAttribute?: (attribute: AttributeSpan) => void,
): { end: number; selfClosing: boolean } {
  let k = from;
  let selfClosing = false;
  while (k < html.length) {
    const code = html.charCodeAt(k);
    if (code === 0x3e /* > */) return { end: k + 1, selfClosing };
    if (isSpace(code)) {
      k++;
      continue;
    }
    if (code === 0x2f /* / */) {
      selfClosing = html.charCodeAt(k + 1) === 0x3e;
      k++;
      continue;
    }
    // An attribute name: its first character may be anything (even = or a quote).
    selfClosing = false;
    const nameStart = k;
    k++;
    while (k < html.length) {
      const c = html.charCodeAt(k);
      if (isSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d /* = */) break;
      k++;
    }
    const nameEnd = k;
    while (k < html.length && isSpace(html.charCodeAt(k))) k++;
    if (html.charCodeAt(k) !== 0x3d) {
      onAttribute?.({ nameStart, nameEnd, end: nameEnd });
      continue;
    }
    k++;
    while (k < html.length && isSpace(html.charCodeAt(k))) k++;
    const quote = html[k];
    let value: { start: number; end: number };
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, k + 1);
      if (close === -1) break;
      value = { start: k + 1, end: close };
      k = close + 1;
    } else {
      const start = k;
      while (k < html.length && !isSpace(html.charCodeAt(k)) && html.charCodeAt(k) !== 0x3e) k++;
      value = { start, end: k };
    }
    onAttribute?.({ nameStart, nameEnd, value, end: k });
  }
  return { end: -1, selfClosing: false };
}

/** From just after `<!--`: just after the comment, which ends as a parser ends it; -1 if it never does. */
export function commentEnd(html: string, from: number): number {
  if (html.startsWith('>', from)) return from + 1; // <!-->
  if (html.startsWith('->', from)) return from + 2; // <!--->
  COMMENT_END.lastIndex = from;
  const end = COMMENT_END.exec(html);
  return end ? end.index + end[0].length : -1;
}

const END_TAGS = new Map<string, RegExp>();

/** Where the text of raw-text element `name` ends from `from`: at its end tag, or -1. */
export function rawTextEnd(html: string, name: string, from: number): number {
  let close = END_TAGS.get(name);
  if (!close) END_TAGS.set(name, (close = new RegExp(`</${name}[\\s/>]`, 'ig')));
  close.lastIndex = from;
  return close.exec(html)?.index ?? -1;
}
