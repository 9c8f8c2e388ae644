import { PREVIEW_MIN_HEIGHT_PX } from '../../../shared/plans.ts';

/**
 * What the app does for the email inside the preview frame
 * (docs/decisions/0045-preview-frame-same-origin-without-scripts.md). The frame is sandboxed with
 * `allow-same-origin` and nothing else: the email runs no script and can open, submit or navigate
 * nothing, while this page can read its layout. So this page:
 * - measures the email's full height, for a frame without an inner scrollbar (unless the email's
 *   height depends on the frame's: it then scrolls in a window, see watchDocument);
 * - opens the links a reader clicks, itself, in a new tab with no opener and no referrer, and only
 *   for http(s) and mailto URLs (never javascript:, data: or anything else);
 * - stops form submissions (the sandbox would block them with a console error).
 *
 * Nothing here moves a node out of the email's document or runs anything it contains.
 *
 * Nor does anything here read a property of the email's document, or of its elements, directly:
 * the email's markup names them. `<img name="addEventListener">` (or a form's `<input
 * name="closest">`) shadows the built-in on that document (or form) with an element, so every
 * method and property is taken from the prototypes and called on the node (`dom` below,
 * docs/decisions/0119-preview-frame-utf-8-and-unshadowed.md).
 */

export interface FrameHandlers {
  /** The height the frame needs to show the whole email (CSS pixels of the frame). */
  onHeight: (height: number) => void;
  /** A link the reader clicked, already checked (http, https or mailto). */
  openLink: (url: string) => void;
}

/** The built-in getter of `name` on `proto`, to call on a node whose own names may shadow it. */
function getter<T>(proto: object, name: string): (this: object) => T {
  const get = Object.getOwnPropertyDescriptor(proto, name)?.get;
  if (!get) throw new Error(`${name} has no getter`);
  return get as (this: object) => T;
}

/**
 * The built-ins used on the email's nodes, taken from this page's prototypes: the frame shares
 * the page's origin, so they work on its nodes, and the email's names cannot reach them. Built on
 * first use (this module is imported where there is no DOM too).
 */
function builtIns() {
  const D = Document.prototype;
  const E = Element.prototype;
  const N = Node.prototype;
  const T = EventTarget.prototype;
  return {
    URL: getter<string>(D, 'URL'),
    readyState: getter<DocumentReadyState>(D, 'readyState'),
    defaultView: getter<Window | null>(D, 'defaultView'),
    documentElement: getter<Element | null>(D, 'documentElement'),
    scrollingElement: getter<Element | null>(D, 'scrollingElement'),
    body: getter<HTMLElement | null>(D, 'body'),
    fonts: getter<FontFaceSet>(D, 'fonts'),
    baseURI: getter<string>(N, 'baseURI'),
    nodeType: getter<number>(N, 'nodeType'),
    scrollHeight: getter<number>(E, 'scrollHeight'),
    clientHeight: getter<number>(E, 'clientHeight'),
    querySelector: D.querySelector as (this: Document, selectors: string) => Element | null,
    getElementById: D.getElementById,
    getElementsByName: D.getElementsByName,
    closest: E.closest as (this: Element, selectors: string) => Element | null,
    getAttribute: E.getAttribute,
    getAttributeNS: E.getAttributeNS,
    getBoundingClientRect: E.getBoundingClientRect,
    scrollIntoView: E.scrollIntoView,
    addEventListener: T.addEventListener,
    removeEventListener: T.removeEventListener,
  };
}
let cachedDom: ReturnType<typeof builtIns> | null = null;
const dom = () => (cachedDom ??= builtIns());

/** The window's innerHeight: an own property of every window, which named elements cannot shadow. */
const innerHeightOf = (win: Window) => win.innerHeight;

/** `closest(selector)` of a clicked element of the email; null for anything that is not an element. */
function closestOf(target: EventTarget | null, selector: string): Element | null {
  if (target === null) return null;
  const b = dom();
  try {
    if (b.nodeType.call(target) !== Node.ELEMENT_NODE) return null;
  } catch {
    return null; // not a node
  }
  return b.closest.call(target as Element, selector);
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
  const b = dom();
  const own = b.getAttribute.call(link, 'target');
  if (own !== null) return own.trim().toLowerCase();
  const base = b.querySelector.call(doc, 'base[target]');
  return ((base && b.getAttribute.call(base, 'target')) ?? '').trim().toLowerCase();
}

function onLinkClick(event: MouseEvent, doc: Document, handlers: FrameHandlers): void {
  if (event.type === 'auxclick' && event.button !== 1) return;
  const b = dom();
  const link = closestOf(event.target, 'a, area');
  if (!link) {
    // A submit button: the sandbox has no allow-forms; stop it before Chromium logs the block.
    const submit = closestOf(event.target, 'button, input[type="submit" i], input[type="image" i]');
    if (submit && b.closest.call(submit, 'form')) event.preventDefault();
    return;
  }
  event.preventDefault();
  const href = b.getAttribute.call(link, 'href') ?? b.getAttributeNS.call(link, XLINK, 'href');
  if (href !== null && href.trim().startsWith('#')) {
    // An in-email anchor: the frame does not scroll, so the page does.
    const id = decodeURIComponent(href.trim().slice(1));
    const anchor = b.getElementById.call(doc, id) ?? b.getElementsByName.call(doc, id)[0];
    if (anchor) b.scrollIntoView.call(anchor, { block: 'start' });
    return;
  }
  // As the sandbox did before: a link may not aim at the page that shows it.
  const targetName = targetOf(link, doc);
  if (targetName === '_top' || targetName === '_parent') return;
  const url = safeLinkUrl(href, b.baseURI.call(doc));
  if (url) handlers.openLink(url);
}

/**
 * Starts measuring and handling one parsed document of the frame; returns the function that
 * stops.
 *
 * The frame is as tall as the email, unless the email's height depends on the frame's: viewport
 * units (`min-height: 100vh`), `height: 100%` on `html, body` and a `<table height="100%">` size it
 * by the viewport, so a frame grown to the email grows the email with it and leaves its end below
 * the frame (and chasing it runs to MAX_HEIGHT). Such an email is shown in a window of the spec's
 * 800 px (PREVIEW_MIN_HEIGHT_PX) and scrolls in it, as a mail client's window scrolls it, and as the
 * renderer takes it (src/server/render/window-capture.ts): viewport units always mean that window
 * (docs/decisions/0045-preview-frame-same-origin-without-scripts.md, amended 2026-11-28).
 */
function watchDocument(doc: Document, iframe: HTMLIFrameElement, handlers: FrameHandlers): () => void {
  const b = dom();
  const win = b.defaultView.call(doc);
  let frame = 0;

  /**
   * The height the email needs in a frame `height` CSS pixels tall. The frame is set to that height
   * for the reading (reading the email's layout lays both documents out at once; nothing is
   * painted in between), and the caller puts it back.
   */
  const neededAt = (height: number): number | null => {
    iframe.style.height = `${height}px`;
    const root = b.documentElement.call(doc);
    const scroller = b.scrollingElement.call(doc) ?? root;
    if (!win || !root || !scroller) return null;
    const scrollHeight = b.scrollHeight.call(scroller);
    const clientHeight = b.clientHeight.call(scroller);
    // A horizontal scrollbar (an email wider than the frame) takes height from the viewport.
    const bar = Math.max(0, innerHeightOf(win) - clientHeight);
    const content =
      scrollHeight > clientHeight ? scrollHeight : Math.ceil(b.getBoundingClientRect.call(root).height);
    return content + bar;
  };

  const measure = () => {
    frame = 0;
    const shown = iframe.style.height;
    let height: number | null;
    try {
      const inWindow = neededAt(PREVIEW_MIN_HEIGHT_PX);
      if (inWindow === null || inWindow <= PREVIEW_MIN_HEIGHT_PX) height = inWindow;
      else {
        // Grown to the email's height, the email must keep that height: else it grows with the frame.
        const grown = neededAt(Math.min(MAX_HEIGHT, inWindow));
        height = grown !== null && Math.abs(grown - inWindow) <= 1 ? inWindow : PREVIEW_MIN_HEIGHT_PX;
      }
    } finally {
      iframe.style.height = shown;
    }
    if (height !== null) handlers.onHeight(Math.min(MAX_HEIGHT, height));
  };
  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(measure);
  };

  const resize = new ResizeObserver(schedule);
  const root = b.documentElement.call(doc);
  const body = b.body.call(doc);
  if (root) resize.observe(root);
  if (body) resize.observe(body);
  const onClick = (e: MouseEvent) => onLinkClick(e, doc, handlers);
  const onSubmit = (e: Event) => e.preventDefault();
  // [type, listener, capture]: images and fonts change the height when they arrive.
  const listeners: Array<[string, (e: never) => void, boolean]> = [
    ['click', onClick, false],
    ['auxclick', onClick, false],
    ['submit', onSubmit, true],
    ['load', schedule, true],
    ['error', schedule, true],
  ];
  for (const [type, listener, capture] of listeners)
    b.addEventListener.call(doc, type, listener as EventListener, capture);
  const fonts = b.fonts.call(doc);
  fonts.addEventListener('loadingdone', schedule);
  schedule();

  return () => {
    cancelAnimationFrame(frame);
    resize.disconnect();
    for (const [type, listener, capture] of listeners)
      b.removeEventListener.call(doc, type, listener as EventListener, capture);
    fonts.removeEventListener('loadingdone', schedule);
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
    const b = dom();
    if (doc && b.URL.call(doc) === url && b.readyState.call(doc) !== 'loading') {
      stopDocument = watchDocument(doc, iframe, handlers);
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
