import { useMemo } from 'react';
import { cx } from './cx.ts';

/**
 * The ONE way the app shows user HTML (docs/architecture.md §1.7, §6): a sandboxed srcdoc frame without
 * allow-scripts or allow-same-origin, so the email runs no script and gets an opaque origin (it
 * can never read our localStorage session token, cookies or DOM, nor navigate this page). Links
 * may open in a new tab (allow-popups; the new tab leaves the sandbox so sites work normally).
 *
 * The document also gets, before the email's own markup:
 * - its own Content-Security-Policy (defence in depth; the frame already inherits the page's):
 *   no scripts, frames, plugins, media, forms, fetches or <base href>; images, inline styles and
 *   web fonts over https load as in a mail client;
 * - `<meta name="referrer" content="no-referrer">`, so remote images don't learn the page's URL
 *   (on /s/{slug} that URL is the share link);
 * - `<base target="_blank">`, so links open in a new tab instead of inside the frame.
 * And it loses the few elements that make requests the CSP does not stop (see removeUnwanted).
 */

const FRAME_CSP = [
  "default-src 'none'",
  'img-src data: http: https:',
  "style-src 'unsafe-inline'",
  'font-src data: https:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const PREAMBLE =
  `<meta http-equiv="Content-Security-Policy" content="${FRAME_CSP}">` +
  '<meta name="referrer" content="no-referrer">' +
  '<base target="_blank">';

// A doctype (after an optional BOM, comments or XML declaration) must stay first to keep its
// meaning (a legacy doctype selects quirks mode, as in a mail client); the preamble goes after it.
const LEADING_DOCTYPE = /^(\uFEFF?(?:\s|<!--[\s\S]*?-->|<\?[^>]*>)*<!doctype[^>]*>)/i;

function withPreamble(html: string): string {
  const match = LEADING_DOCTYPE.exec(html);
  if (!match) return PREAMBLE + html;
  const doctype = match[1]!;
  return doctype + PREAMBLE + html.slice(doctype.length);
}

/**
 * Elements that make requests CSP does not govern in Chromium: resource hints (`<link
 * rel=prefetch>` reaches any server despite default-src 'none'; preconnect, dns-prefetch) and
 * `<meta http-equiv=refresh>` (the frame's own navigation is judged by the parent's frame-src,
 * which a dev server may not send). No email needs them; every `<link>` goes (stylesheets are
 * blocked by the CSP anyway).
 */
function isUnwanted(el: Element): boolean {
  if (el.localName === 'link') return true;
  return el.localName === 'meta' && (el.getAttribute('http-equiv') ?? '').trim().toLowerCase() === 'refresh';
}

function serialize(doc: Document): string {
  const dt = doc.doctype;
  const doctype = dt
    ? `<!DOCTYPE ${dt.name}${dt.publicId ? ` PUBLIC "${dt.publicId}"` : ''}${dt.systemId ? `${dt.publicId ? '' : ' SYSTEM'} "${dt.systemId}"` : ''}>`
    : '';
  return doctype + doc.documentElement.outerHTML;
}

const UNSHOWABLE =
  '<p style="font:14px sans-serif;color:#555;padding:16px">This email cannot be previewed safely.</p>';

/**
 * Removes the unwanted elements. DOMParser uses the same parser as the frame, with scripting
 * disabled as in the sandbox, and loads nothing. Emails without such elements pass through
 * untouched; the others are re-serialized and checked again until none is left (a re-parse can
 * in rare cases build a different tree).
 */
function removeUnwanted(doc: string): string {
  if (typeof DOMParser === 'undefined') return doc;
  let current = doc;
  for (let round = 0; round < 4; round++) {
    const parsed = new DOMParser().parseFromString(current, 'text/html');
    const unwanted = Array.from(parsed.querySelectorAll('link, meta')).filter(isUnwanted);
    if (unwanted.length === 0) return current;
    unwanted.forEach((el) => el.remove());
    current = serialize(parsed);
  }
  return PREAMBLE + UNSHOWABLE;
}

/** The srcdoc document for an email: the preamble above, then the email as sent (minus the above). */
export function emailDocument(html: string): string {
  return removeUnwanted(withPreamble(html));
}

export interface EmailFrameProps {
  html: string;
  /** Accessible name of the frame, e.g. "Email preview: {subject}". */
  title: string;
  className?: string;
  /** Links open in a new tab (default); false makes them inert (sandbox="" allows nothing at all). */
  allowPopups?: boolean;
  'data-testid'?: string;
}

export function EmailFrame({
  html,
  title,
  className,
  allowPopups = true,
  'data-testid': testId,
}: EmailFrameProps) {
  const doc = useMemo(() => emailDocument(html), [html]);
  return (
    <iframe
      sandbox={allowPopups ? 'allow-popups allow-popups-to-escape-sandbox' : ''}
      srcDoc={doc}
      referrerPolicy="no-referrer"
      title={title}
      data-testid={testId ?? 'email-frame'}
      // Emails are designed on white: a light, opaque canvas in both app themes.
      className={cx('block w-full border-0 bg-white [color-scheme:light]', className)}
    />
  );
}
