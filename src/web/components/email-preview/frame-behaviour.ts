/**
 * What the app does for the email inside the preview frame
 * (docs/decisions/0045-preview-frame-same-origin-without-scripts.md). The frame is sandboxed with
 * `allow-same-origin` and nothing else: the email runs no script and can open, submit or navigate
 * nothing, while this page can read its layout. So this page:
 * - measures the email's full height, for a frame without an inner scrollbar;
 * - opens the links a reader clicks, itself, in a new tab with no opener and no referrer, and only
 *   for http(s) and mailto URLs (never javascript:, data: or anything else);
 * - stops form submissions (the sandbox would block them with a console error).
 *
 * Nothing here moves a node out of the email's document or runs anything it contains.
 */

export interface FrameHandlers {
  /** The height the frame needs to show the whole email (CSS pixels of the frame). */
  onHeight: (height: number) => void;
  /** A link the reader clicked, already checked (http, https or mailto). */
  openLink: (url: string) => void;
}

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);
const XLINK = 'http://www.w3.org/1999/xlink';
/** Past this the email keeps its height: a frame cannot usefully grow forever. */
const MAX_HEIGHT = 100_000;

/** The URL a link click may open, or null (unsafe scheme, no href, or unparsable). */
export function safeLinkUrl(href: string | null, base: string): string | null {
  if (href === null) return null;
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return null;
  }
  return SAFE_PROTOCOLS.has(url.protocol) ? url.href : null;
}

/** The target a link opens in: its own, else the document's `<base target>` (ours comes first). */
function targetOf(link: Element, doc: Document): string {
  const own = link.getAttribute('target');
  if (own !== null) return own.trim().toLowerCase();
  return (doc.querySelector('base[target]')?.getAttribute('target') ?? '').trim().toLowerCase();
}

function onLinkClick(event: MouseEvent, doc: Document, handlers: FrameHandlers): void {
  if (event.type === 'auxclick' && event.button !== 1) return;
  const target = event.target as Element | null;
  const link = typeof target?.closest === 'function' ? target.closest('a, area') : null;
  if (!link) {
    // A submit button: the sandbox has no allow-forms; stop it before Chromium logs the block.
    if (target?.closest?.('button, input[type="submit" i], input[type="image" i]')?.closest('form')) {
      event.preventDefault();
    }
    return;
  }
  event.preventDefault();
  const href = link.getAttribute('href') ?? link.getAttributeNS(XLINK, 'href');
  if (href !== null && href.trim().startsWith('#')) {
    // An in-email anchor: the frame does not scroll, so the page does.
    const id = decodeURIComponent(href.trim().slice(1));
    (doc.getElementById(id) ?? doc.getElementsByName(id)[0])?.scrollIntoView({ block: 'start' });
    return;
  }
  // As the sandbox did before: a link may not aim at the page that shows it.
  const targetName = targetOf(link, doc);
  if (targetName === '_top' || targetName === '_parent') return;
  const url = safeLinkUrl(href, doc.baseURI);
  if (url) handlers.openLink(url);
}

/**
 * Starts measuring and handling one parsed document of the frame; returns the function that
 * stops.
 */
function watchDocument(doc: Document, handlers: FrameHandlers): () => void {
  const win = doc.defaultView;
  let frame = 0;
  let lastOverflow = -1;
  let runaway = 0;

  const measure = () => {
    frame = 0;
    const root = doc.documentElement;
    const scroller = doc.scrollingElement ?? root;
    if (!win || !root) return;
    const viewport = win.innerHeight;
    // A horizontal scrollbar (an email wider than the frame) takes height from the viewport.
    const bar = Math.max(0, viewport - scroller.clientHeight);
    const content =
      scroller.scrollHeight > scroller.clientHeight
        ? scroller.scrollHeight
        : Math.ceil(root.getBoundingClientRect().height);
    const needed = Math.min(MAX_HEIGHT, content + bar);
    const overflow = needed - viewport;
    if (overflow > 0) {
      // Content sized by the viewport (min-height: 100vh plus a margin) grows with the frame:
      // the same overflow after each growth means chasing it would never end.
      runaway = overflow === lastOverflow ? runaway + 1 : 0;
      lastOverflow = overflow;
      if (runaway >= 3) return;
    } else {
      runaway = 0;
      lastOverflow = -1;
    }
    handlers.onHeight(needed);
  };
  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(measure);
  };

  const resize = new ResizeObserver(schedule);
  resize.observe(doc.documentElement);
  if (doc.body) resize.observe(doc.body);
  const onClick = (e: MouseEvent) => onLinkClick(e, doc, handlers);
  const onSubmit = (e: Event) => e.preventDefault();
  doc.addEventListener('click', onClick);
  doc.addEventListener('auxclick', onClick);
  doc.addEventListener('submit', onSubmit, true);
  // Images and fonts change the height when they arrive.
  doc.addEventListener('load', schedule, true);
  doc.addEventListener('error', schedule, true);
  doc.fonts?.addEventListener('loadingdone', schedule);
  schedule();

  return () => {
    cancelAnimationFrame(frame);
    resize.disconnect();
    doc.removeEventListener('click', onClick);
    doc.removeEventListener('auxclick', onClick);
    doc.removeEventListener('submit', onSubmit, true);
    doc.removeEventListener('load', schedule, true);
    doc.removeEventListener('error', schedule, true);
    doc.fonts?.removeEventListener('loadingdone', schedule);
  };
}

/**
 * Shows `url` (a blob: URL of the frame document) in `iframe` and watches it: as soon as it is
 * parsed (its load event comes only after its images) it is measured and its links handled.
 * `location.replace` adds no history entry, so Back still leaves the page however often the
 * preview changes. Returns the function that stops.
 */
export function showInFrame(iframe: HTMLIFrameElement, url: string, handlers: FrameHandlers): () => void {
  const started = performance.now();
  let stopDocument: (() => void) | null = null;
  let poll = 0;

  const check = () => {
    poll = 0;
    if (stopDocument) return;
    const doc = iframe.contentDocument;
    if (doc && doc.URL === url && doc.readyState !== 'loading') {
      stopDocument = watchDocument(doc, handlers);
      return;
    }
    // Bounded: the load listener catches a document that takes longer, and a background tab
    // runs no animation frames.
    if (performance.now() - started < 10_000) poll = requestAnimationFrame(check);
  };
  const onLoad = () => {
    if (!poll) check();
  };
  iframe.addEventListener('load', onLoad);
  iframe.contentWindow?.location.replace(url);
  check();
  return () => {
    cancelAnimationFrame(poll);
    iframe.removeEventListener('load', onLoad);
    stopDocument?.();
  };
}
