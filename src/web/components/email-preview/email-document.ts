import { leadingDoctypeEnd } from '../../../shared/preview/leading-markup.ts';
import type { PreviewMode } from './preview-view.ts';
import type { ViewTransforms } from './view-transforms.ts';

/**
 * The document of the preview frame (docs/architecture.md §1.7,
 * docs/decisions/0045-preview-frame-same-origin-without-scripts.md): the email as sent, after a
 * preamble that the email cannot undo, minus the few elements that make requests no CSP governs.
 *
 * The preamble, before the email's own markup:
 * - a Content-Security-Policy: no scripts, frames, plugins, media, fetches, forms or `<base
 *   href>`; images over http(s) and data (none with images off), inline styles and https style
 *   sheets, fonts over https, as a mail client loads them;
 * - `<meta name="referrer" content="no-referrer">`, so remote images and fonts never learn the
 *   page's URL (on /s/{slug} that URL is the share link);
 * - `<base target="_blank">`: the frame handles link clicks itself (frame-behaviour.ts); should a
 *   click slip past it, the sandbox blocks the popup instead of loading the page in the frame.
 */

export interface DocumentOptions {
  mode: PreviewMode;
  images: boolean;
}

function frameCsp(images: boolean): string {
  return [
    "default-src 'none'",
    images ? 'img-src data: http: https:' : "img-src 'none'",
    "style-src 'unsafe-inline' https:",
    'font-src data: https:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

function preamble(options: DocumentOptions): string {
  return (
    `<meta http-equiv="Content-Security-Policy" content="${frameCsp(options.images)}">` +
    '<meta name="referrer" content="no-referrer">' +
    '<base target="_blank">'
  );
}

// A doctype (after what may come before it: src/shared/preview/leading-markup.ts) must stay first
// to keep its meaning (a legacy doctype selects quirks mode, as in a mail client); the preamble goes after it.
function withPreamble(html: string, head: string): string {
  const end = leadingDoctypeEnd(html);
  return end === -1 ? head + html : html.slice(0, end) + head + html.slice(end);
}

function isHttpsUrl(raw: string): boolean {
  try {
    return new URL(raw.trim()).protocol === 'https:';
  } catch {
    return false; // relative or malformed
  }
}

/** `<link rel="stylesheet" href="https://…">`, the way emails load web fonts (as Apple Mail does). */
function isHttpsStylesheet(el: Element): boolean {
  const rel = (el.getAttribute('rel') ?? '').trim().toLowerCase().split(/\s+/);
  return rel.length === 1 && rel[0] === 'stylesheet' && isHttpsUrl(el.getAttribute('href') ?? '');
}

/**
 * Elements that make requests CSP does not govern in Chromium: resource hints (`<link
 * rel=prefetch>` reaches any server despite default-src 'none'; preconnect, dns-prefetch,
 * prerender, preload) and `<meta http-equiv=refresh>` (it navigates the frame). Every `<link>`
 * but an https style sheet goes; style sheets are governed by the CSP's style-src.
 */
function isUnwanted(el: Element): boolean {
  if (el.localName === 'link') return !isHttpsStylesheet(el);
  return el.localName === 'meta' && (el.getAttribute('http-equiv') ?? '').trim().toLowerCase() === 'refresh';
}

/**
 * Whether a `<style>` imports anything but an https style sheet. Chromium's preload scanner
 * fetches `@import`s before the frame's own CSP applies, under the page's policy alone, which
 * allows our own origin: such an import would reach the app. CSSOM reads the rules as the browser
 * does (escapes decoded), so `@\69mport` is caught too.
 */
function hasInsecureImport(style: Element): boolean {
  const sheet = (style as HTMLStyleElement).sheet;
  if (!sheet) return /@import|@\\/i.test(style.textContent ?? '');
  return Array.from(sheet.cssRules).some((rule) => rule instanceof CSSImportRule && !isHttpsUrl(rule.href));
}

// An @import rule as written plainly; escaped spellings are not matched (their <style> goes whole).
const IMPORT_RULE = /@import\s+(?:url\(\s*(["']?)([^"')]*)\1\s*\)|(["'])([^"']*)\3)[^;{}]*;?/gi;

/** Drops a style's insecure @import rules, or the whole style if they are not written plainly. */
function dropInsecureImports(style: Element): void {
  const css = style.textContent ?? '';
  const next = css.replace(IMPORT_RULE, (rule, _q: string, url?: string, _q2?: string, url2?: string) =>
    isHttpsUrl(url ?? url2 ?? '') ? rule : '',
  );
  if (next === css) style.remove();
  else style.textContent = next;
}

function serialize(doc: Document): string {
  const dt = doc.doctype;
  const doctype = dt
    ? `<!DOCTYPE ${dt.name}${dt.publicId ? ` PUBLIC "${dt.publicId}"` : ''}${dt.systemId ? `${dt.publicId ? '' : ' SYSTEM'} "${dt.systemId}"` : ''}>`
    : '';
  return doctype + doc.documentElement.outerHTML;
}

const parse = (html: string) => new DOMParser().parseFromString(html, 'text/html');

const UNSHOWABLE =
  '<p style="font:14px sans-serif;color:#555;padding:16px">This email cannot be previewed safely.</p>';

/**
 * Removes the unwanted elements and imports. DOMParser uses the same parser as the frame, with
 * scripting disabled as in the sandbox, and loads nothing. Documents without them pass through
 * untouched; the others are re-serialized and checked again until none is left (a re-parse can
 * in rare cases build a different tree).
 */
function removeUnwanted(doc: string, options: DocumentOptions): string {
  let current = doc;
  for (let round = 0; round < 4; round++) {
    const parsed = parse(current);
    const unwanted = Array.from(parsed.querySelectorAll('link, meta')).filter(isUnwanted);
    const imports = Array.from(parsed.querySelectorAll('style')).filter(hasInsecureImport);
    if (unwanted.length === 0 && imports.length === 0) return current;
    unwanted.forEach((el) => el.remove());
    imports.forEach(dropInsecureImports);
    current = serialize(parsed);
  }
  return preamble(options) + UNSHOWABLE;
}

/** Whether a view changes the email's markup (and so needs the transforms, loaded on demand). */
export function needsTransforms(options: DocumentOptions): boolean {
  return options.mode === 'forced-dark' || !options.images;
}

/**
 * The frame document for an email in a view. Light and Dark show the email's markup as sent
 * (Dark is the frame's color-scheme, not a change to the email); Forced dark and Images off
 * transform a parsed copy with `transforms`.
 */
export function emailDocument(html: string, options: DocumentOptions, transforms?: ViewTransforms): string {
  // Without a parser (no browser) nothing can be checked: show nothing rather than unchecked HTML.
  if (typeof DOMParser === 'undefined') return preamble(options) + UNSHOWABLE;
  let doc = withPreamble(html, preamble(options));
  if (needsTransforms(options)) {
    if (!transforms) throw new Error('emailDocument: this view needs the view transforms');
    const parsed = parse(doc);
    if (options.mode === 'forced-dark') transforms.forceDark(parsed);
    if (!options.images) transforms.blockImages(parsed);
    doc = serialize(parsed);
  }
  return removeUnwanted(doc, options);
}
