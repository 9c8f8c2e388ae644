import { imageDimensions, type ImageDimensions } from './image-dimensions.ts';

/**
 * A bound on the images a render decodes (docs/decisions/0120-renderer-as-the-preview-and-fair.md,
 * amended 2026-11-28: a bound on decoded images). Chromium decodes an image to about
 * width × height × 4 bytes, whatever its file's size: a 48 KB PNG of 20,000 × 20,000 pixels took
 * Chromium from 0.5 to 2.7 GB. An image whose header declares more than MAX_IMAGE_PIXELS is not
 * given to Chromium: an empty SVG of the same width and height takes its place (drawn at its
 * displayed size, it costs nothing, and the layout is the one the preview shows), and the render
 * counts it in `X-Render-Images-Failed`.
 *
 * Images fetched through the egress guard are read in render-page.ts (`handle`). `data:` URLs are
 * never requested, so they are found here in the text Chromium is given (the email, a fetched
 * style sheet, an SVG image): every `data:` URL, wherever it is (`src`, `srcset`, `background`,
 * `url()` in style attributes and `<style>`, `<image href>` in SVG), read by its bytes (Chromium
 * sniffs an image's format, whatever type the URL declares). An SVG's own text is read the same
 * way, to MAX_SVG_DEPTH levels. Only what Chromium draws changes: the email as stored and sent,
 * and its exports as HTML and EML, stay as they are.
 *
 * One pass over the text (a scan for `data:`, then a walk to the URL's end, which the next `data:`
 * bounds): linear in the text's length; no regular expression here takes more than linear time.
 */

/**
 * The most pixels an image of an email may declare: 25 megapixels (100 MB decoded). A 600 px
 * wide hero at twice the density is about 1 megapixel and a camera photograph 12 to 24; a render
 * is itself at most 16 megapixels (renderer.ts MAX_RENDER_PIXELS), so an image beyond this is
 * only ever shown shrunk.
 */
export const MAX_IMAGE_PIXELS = 25_000_000;

/** SVG in SVG in ... read this deep; an SVG deeper still is left out. */
const MAX_SVG_DEPTH = 4;

export const tooLarge = (d: ImageDimensions | undefined): d is ImageDimensions =>
  d !== undefined && d.width * d.height > MAX_IMAGE_PIXELS;

/** An empty SVG of the image's width and height: what Chromium draws instead of it. */
export function placeholderSvg(d?: { width: number; height: number }): string {
  const size = d ? ` width="${d.width}" height="${d.height}"` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg"${size}/>`;
}

const placeholderUrl = (d?: { width: number; height: number }) =>
  `data:image/svg+xml,${encodeURIComponent(placeholderSvg(d))}`;

export interface BoundedText {
  text: string;
  /** The `data:` URLs left out (each once): images over the limit, SVG nested too deep. */
  leftOut: string[];
}

const isBase64Char = (c: number) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 61;
const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
/** What may come before a URL's scheme: not part of a longer word (`metadata:`). */
const isSchemeChar = (c: number) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;

/** A srcset descriptor (`2x`, `600w`) at `at`, then its end: not more of a base64 payload. */
const DESCRIPTOR = /\d+(?:\.\d+)?[xwh](?=[\s,"']|$)/y;
function descriptorAt(text: string, at: number): boolean {
  DESCRIPTOR.lastIndex = at;
  return DESCRIPTOR.test(text);
}

/**
 * Where a base64 payload from `at` ends: its alphabet, %XX escapes, and, in a quoted URL (`wraps`),
 * spaces within it (base64 wrapped over lines). After a space, a srcset descriptor or a word ending
 * in `:` (the next URL's scheme) is not more of it; an unquoted URL ends at a space.
 */
function base64End(text: string, at: number, wraps: boolean): number {
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isBase64Char(c)) i++;
    else if (c === 37 && isHex(text.charCodeAt(i + 1)) && isHex(text.charCodeAt(i + 2))) i += 3;
    else if (wraps && isSpace(c)) {
      let j = i + 1;
      while (j < text.length && isSpace(text.charCodeAt(j))) j++;
      let k = j;
      while (k < text.length && isBase64Char(text.charCodeAt(k))) k++;
      if (k === j || text.charCodeAt(k) === 58 || descriptorAt(text, j)) break;
      i = k;
    } else break;
  }
  return i;
}

/**
 * Where any other payload from `at` ends (at `limit` at the latest), by what opened the URL: a
 * quote is closed by the same quote (an SVG written out in a quoted `url()` or attribute has
 * spaces and the other quote), an unquoted `url(` by `)`; anything else by a space or a delimiter.
 */
function textEnd(text: string, at: number, limit: number, opener: string): number {
  const stops =
    opener === '"' || opener === "'" ? opener : opener === '(' ? ')"\' \t\n\f\r' : ' \t\n\f\r"\'<>()&';
  let i = at;
  while (i < limit && !stops.includes(text[i]!)) i++;
  return i;
}

/** The bytes of a payload: %XX escapes decoded, the rest as UTF-8 (as the URL parser has it). */
function percentDecoded(payload: string): Buffer {
  const bytes = Buffer.from(payload, 'utf8');
  if (!payload.includes('%')) return bytes;
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 37 && isHex(bytes[i + 1] ?? 0) && isHex(bytes[i + 2] ?? 0)) {
      bytes[n++] = parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16);
      i += 2;
    } else bytes[n++] = bytes[i]!;
  }
  return bytes.subarray(0, n);
}

/** A media type and its parameters longer than this are not read (none is near it). */
const MAX_HEAD = 256;
const BASE64_FLAG = /;[ \t\n\r\f]*base64[ \t\n\r\f]*$/i;

interface DataUrl {
  start: number;
  end: number;
  mediaType: string;
  base64: boolean;
  payload: string;
}

/** Finds `data:` URLs in `text` in order, each from where the one before it ended. */
class DataUrls {
  private readonly scheme = /data:/gi;
  /** The next `data:` that starts a URL (not the end of a longer scheme), or text.length. */
  private next: number;
  /** The first comma at or after the last place asked (nextComma), or text.length. */
  private comma = -1;

  constructor(private readonly text: string) {
    this.next = this.find(0);
  }

  private find(from: number): number {
    this.scheme.lastIndex = from;
    for (let m = this.scheme.exec(this.text); m; m = this.scheme.exec(this.text)) {
      if (m.index === 0 || !isSchemeChar(this.text.charCodeAt(m.index - 1))) return m.index;
    }
    return this.text.length;
  }

  /** Asked at places that only move forward: each comma is looked for once. */
  private nextComma(from: number): number {
    if (this.comma < from) {
      const i = this.text.indexOf(',', from);
      this.comma = i === -1 ? this.text.length : i;
    }
    return this.comma;
  }

  /** The next URL, at or after `from`. */
  take(from: number): DataUrl | undefined {
    const text = this.text;
    if (this.next < from) this.next = this.find(from);
    while (this.next < text.length) {
      const start = this.next;
      const at = start + 5;
      // The next one bounds this one's text: a walk never passes it, so the scan stays linear.
      this.next = this.find(at);
      const comma = this.nextComma(at);
      if (comma === text.length || comma - at > MAX_HEAD) continue;
      const head = text.slice(at, comma);
      if (/["'()<>]/.test(head)) continue;
      const base64 = BASE64_FLAG.test(head);
      const opener = start > 0 ? text[start - 1]! : '';
      const end = base64
        ? base64End(text, comma + 1, opener === '"' || opener === "'")
        : textEnd(text, comma + 1, this.next, opener);
      if (end > this.next) this.next = this.find(end);
      const mediaType = head.split(';')[0]!.trim().toLowerCase();
      return { start, end, mediaType, base64, payload: text.slice(comma + 1, end) };
    }
    return undefined;
  }
}

/**
 * `text` (an email, a style sheet, an SVG) with its `data:` images over the limit replaced by
 * placeholders, and SVG images' own text bounded alike.
 */
export function boundInlineImages(text: string, depth = 0): BoundedText {
  const leftOut = new Set<string>();
  const urls = new DataUrls(text);
  let out = '';
  let copied = 0;
  for (let url = urls.take(0); url; url = urls.take(url.end)) {
    const bytes = url.base64
      ? Buffer.from(percentDecoded(url.payload).toString('latin1'), 'base64')
      : percentDecoded(url.payload);
    let replacement: string | undefined;
    if (url.mediaType === 'image/svg+xml') {
      if (depth >= MAX_SVG_DEPTH) {
        replacement = placeholderUrl();
        leftOut.add(text.slice(url.start, url.end));
      } else {
        // Bytes as latin1 characters, one for one, so the SVG's own bytes come back unchanged.
        const inner = boundInlineImages(bytes.toString('latin1'), depth + 1);
        if (inner.leftOut.length > 0) {
          replacement = `data:image/svg+xml;base64,${Buffer.from(inner.text, 'latin1').toString('base64')}`;
          for (const u of inner.leftOut) leftOut.add(u);
        }
      }
    } else {
      const declared = imageDimensions(bytes);
      if (tooLarge(declared)) {
        replacement = placeholderUrl(declared);
        leftOut.add(text.slice(url.start, url.end));
      }
    }
    if (replacement === undefined) continue;
    out += text.slice(copied, url.start) + replacement;
    copied = url.end;
  }
  return { text: out === '' ? text : out + text.slice(copied), leftOut: [...leftOut] };
}

/**
 * A fetched style sheet's or SVG image's body with its `data:` images bounded, byte for byte the
 * same where nothing was left out (read as latin1: one character per byte).
 */
export function boundInlineImagesIn(body: Buffer): { body: Buffer; leftOut: string[] } {
  const bounded = boundInlineImages(body.toString('latin1'));
  return bounded.leftOut.length === 0
    ? { body, leftOut: [] }
    : { body: Buffer.from(bounded.text, 'latin1'), leftOut: bounded.leftOut };
}
