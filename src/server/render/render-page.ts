import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { PREVIEW_MIN_HEIGHT_PX } from '../../shared/plans.ts';
import { DARK_CANVAS, LIGHT_CANVAS } from '../../shared/preview/canvas.ts';
import { leadingDoctypeEnd } from '../../shared/preview/leading-markup.ts';
import type { RenderMode } from '../../shared/contract/render.ts';
import type { Egress } from '../net/egress.ts';
import { imageDimensions } from './image-dimensions.ts';
import {
  boundInlineImages,
  boundInlineImagesIn,
  MAX_IMAGE_PIXELS,
  placeholderSvg,
  tooLarge,
} from './image-limit.ts';
import {
  captureByWindows,
  heightInWindow,
  imagesIn,
  measureHeight,
  type WindowCapture,
} from './window-capture.ts';

/**
 * One render in its own browser context (docs/decisions/0080-renderer-locked-down.md). The page is
 * built like the preview's frame (src/web/components/email-preview/email-frame.tsx and
 * email-document.ts): an `<iframe sandbox="allow-same-origin">` whose `color-scheme` decides the
 * email's `prefers-color-scheme` (light for Light, dark for Dark) on the mode's canvas
 * (src/shared/preview/canvas.ts), with no colour-scheme emulation, so Chromium applies the same
 * rules as in the preview (docs/decisions/0047-forced-dark-approximation.md).
 *
 * The email is loaded the preview's way: the email as sent, after the preview's preamble (its
 * Content-Security-Policy, referrer policy and `<base target>`, placed after a leading doctype),
 * as a blob: URL in UTF-8 set as the frame's `src`. So its doctype selects quirks, limited-quirks
 * or standards mode as in the preview (a `srcdoc` document is always in standards mode), `<base
 * href>` is refused (`base-uri 'none'`), and relative URLs resolve to nothing, as in the preview.
 * Our page around it comes from an origin that never resolves, answered by `route` only
 * (RENDER_ORIGIN).
 *
 * Locked down: JavaScript is off in the context; every request goes through `route`: images over
 * http(s), style sheets and fonts over https (what the preview's frame CSP allows) are fetched by
 * the egress guard (src/server/net/egress.ts) and handed to the page, everything else (documents,
 * so no navigation, scripts, media, fetches, objects) is refused. Chromium itself never opens a
 * connection for the email: its proxy is a dead loopback port (renderer.ts).
 *
 * Images too large to decode are not given to Chromium (image-limit.ts): a fetched one whose header
 * declares more than MAX_IMAGE_PIXELS, and the `data:` images of the email and of its style sheets
 * and SVG images, are drawn as empty SVGs of their size and counted as not in the render.
 *
 * Like the preview's frame, ours is as tall as the email, unless the email's height depends on the
 * frame's (viewport units): it is then taken in an 800 px window, scrolled (window-capture.ts).
 */

export interface RenderPageJob {
  html: string;
  width: number;
  mode: RenderMode;
  format: 'png' | 'pdf';
  /** Whose render: the egress guard counts its rate and concurrency on this user. */
  userId: string;
  /** Image pixels per CSS pixel (thumbnails are smaller). */
  scale?: number;
  /** Cut the render here (CSS pixels); at most the renderer's page budget. */
  maxHeight: number;
}

export interface RenderedPage {
  body: Buffer;
  /** CSS pixels. */
  width: number;
  height: number;
  /** The email was taller than maxHeight and was cut there. */
  truncated: boolean;
  /**
   * How wide the email's content is (CSS pixels): more than `width` when it overflows the frame
   * sideways (the preview scrolls it; the render shows the first `width` pixels).
   */
  contentWidth: number;
  /**
   * Images (of `<img>` and CSS) that are not in the render: fetched through the egress guard and
   * refused, failed, answered with an error status, or not there within the render's time; or, at
   * a URL or inline (`data:`), over the decoded size limit (image-limit.ts MAX_IMAGE_PIXELS).
   */
  imagesFailed: number;
}

export type RequestOutcome = 'fetched' | 'refused' | 'blocked' | 'failed';

/** One request the email's page made and what became of it (tests count them). */
export interface RenderRequestEvent {
  url: string;
  resourceType: string;
  outcome: RequestOutcome;
  reason?: string;
}

export interface RenderPageDeps {
  egress: Egress;
  onRequest?: (event: RenderRequestEvent) => void;
  /** Aborted when the render's time budget is spent. */
  signal: AbortSignal;
  deadline: number;
  /**
   * When the email's images, style sheets and fonts must have arrived: the deadline less the time
   * kept to lay out and capture (renderer.ts captureReserveMs). What is still loading then is left out.
   */
  resourcesBy: number;
}

/**
 * The screen a render is on (`device-width`, `device-height`, `screen.*`): a common desktop
 * monitor's, whatever the width asked, as the preview is seen on a desktop
 * (docs/decisions/0120-renderer-as-the-preview-and-fair.md, amended 2026-11-28: the preview's frame
 * cannot change the screen, so neither shows a phone's `max-device-width` layout).
 */
export const RENDER_SCREEN = { width: 1920, height: 1080 } as const;

const CANVAS: Record<RenderMode, string> = { light: LIGHT_CANVAS, dark: DARK_CANVAS };
/** Bytes one resource of the email may have. */
const MAX_RESOURCE_BYTES = 5 * 1024 * 1024;

/**
 * Where our page comes from: `.invalid` never resolves (and Chromium resolves nothing anyway,
 * renderer.ts LAUNCH_ARGS); only `route` answers it, once per render. Nothing of the email is
 * ever fetched from it.
 */
export const RENDER_ORIGIN = 'http://proofmail-render.invalid';

/**
 * The preview frame's Content-Security-Policy with images on (`frameCsp` in
 * src/web/components/email-preview/email-document.ts): what the email may load, and no `<base
 * href>`. tests/api/render-fidelity.test.ts checks it is the preview's.
 */
export const FRAME_CSP = [
  "default-src 'none'",
  'img-src data: http: https:',
  "style-src 'unsafe-inline' https:",
  'font-src data: https:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The preview's preamble (`preamble` in email-document.ts), before the email's own markup. */
export const FRAME_PREAMBLE =
  `<meta http-equiv="Content-Security-Policy" content="${FRAME_CSP}">` +
  '<meta name="referrer" content="no-referrer">' +
  '<base target="_blank">';

/**
 * The frame's document: the email as sent with the preview's preamble after its doctype, as
 * email-document.ts places it (a doctype must stay first to keep its meaning: a legacy one selects
 * quirks mode; src/shared/preview/leading-markup.ts reads what may come before it).
 */
export function frameDocument(html: string): string {
  const end = leadingDoctypeEnd(html);
  return end === -1 ? FRAME_PREAMBLE + html : html.slice(0, end) + FRAME_PREAMBLE + html.slice(end);
}

/** Our page around the email: only an empty iframe, as the preview shows it; the email comes after. */
export function framePage(width: number, mode: RenderMode, height: number): string {
  return (
    '<!DOCTYPE html><html style="color-scheme:light"><head><meta charset="utf-8"></head>' +
    `<body style="margin:0;background:${CANVAS[mode]}">` +
    `<iframe sandbox="allow-same-origin" referrerpolicy="no-referrer" title="email" ` +
    `style="display:block;border:0;width:${width}px;height:${height}px;` +
    `color-scheme:${mode === 'dark' ? 'dark' : 'light'};background-color:${CANVAS[mode]}"></iframe>` +
    '</body></html>'
  );
}

/** What the preview's frame lets load (src/web/components/email-preview/email-document.ts frameCsp). */
function allowedKind(resourceType: string, url: URL): boolean {
  if (resourceType === 'image') return url.protocol === 'http:' || url.protocol === 'https:';
  if (resourceType === 'stylesheet' || resourceType === 'font') return url.protocol === 'https:';
  return false;
}

/** The images of one render: each URL, and whether it arrived (a `data:` URL left out did not). */
type ImageLedger = Map<string, boolean>;

async function refuse(route: Route, resourceType: string): Promise<void> {
  // A navigation answered "204 No Content" goes nowhere: the page and the email stay as they are
  // (an aborted one would put Chromium's error page in their place).
  if (resourceType === 'document') return route.fulfill({ status: 204 }).catch(() => undefined);
  return route.abort('blockedbyclient').catch(() => undefined);
}

async function handle(
  route: Route,
  deps: RenderPageDeps,
  userId: string,
  images: ImageLedger,
): Promise<void> {
  const request = route.request();
  const resourceType = request.resourceType();
  const report = (outcome: RequestOutcome, reason?: string) =>
    deps.onRequest?.({ url: request.url(), resourceType, outcome, ...(reason ? { reason } : {}) });
  let url: URL;
  try {
    url = new URL(request.url());
  } catch {
    report('blocked', 'invalid URL');
    return refuse(route, resourceType);
  }
  if (url.origin === RENDER_ORIGIN) {
    report('blocked', 'the render’s own origin serves nothing else');
    return refuse(route, resourceType);
  }
  if (request.method() !== 'GET' || !allowedKind(resourceType, url)) {
    report('blocked', `${resourceType} requests are not made`);
    return refuse(route, resourceType);
  }
  const isImage = resourceType === 'image';
  if (isImage && !images.has(url.href)) images.set(url.href, false);
  const remaining = deps.resourcesBy - Date.now();
  if (remaining <= 0) {
    report('failed', 'the render’s time for images and fonts was spent');
    return route.abort('timedout').catch(() => undefined);
  }
  try {
    const res = await deps.egress.fetch(url.href, {
      userId,
      // Waiting for the guard's per-user slots counts too: everything ends by resourcesBy.
      signal: AbortSignal.any([deps.signal, AbortSignal.timeout(remaining)]),
      maxBytes: MAX_RESOURCE_BYTES,
      totalTimeoutMs: remaining,
    });
    const contentType = res.headers['content-type'];
    const ok = res.status >= 200 && res.status < 300;
    // Too large to decode: an empty SVG of its size takes its place (image-limit.ts); the image stays
    // counted as not arrived.
    const declared = ok && isImage ? imageDimensions(res.body) : undefined;
    if (tooLarge(declared)) {
      report(
        'failed',
        `an image of ${declared.width} × ${declared.height} pixels, more than ${MAX_IMAGE_PIXELS / 1e6} million`,
      );
      await route.fulfill({ status: 200, contentType: 'image/svg+xml', body: placeholderSvg(declared) });
      return;
    }
    report('fetched');
    // A style sheet's or an SVG image's own `data:` images are bounded alike.
    const bounded =
      ok && (resourceType === 'stylesheet' || (isImage && !declared && /svg/i.test(contentType ?? '')))
        ? boundInlineImagesIn(res.body)
        : { body: res.body, leftOut: [] };
    for (const inline of bounded.leftOut) images.set(inline, false);
    await route.fulfill({
      status: res.status,
      headers: contentType ? { 'content-type': contentType } : {},
      body: bounded.body,
    });
    if (isImage && ok) images.set(url.href, true);
  } catch (err) {
    const kind = (err as { kind?: string }).kind ?? '';
    report(
      kind.startsWith('refused') ? 'refused' : 'failed',
      err instanceof Error ? err.message : String(err),
    );
    await route.abort(kind.startsWith('refused') ? 'accessdenied' : 'failed').catch(() => undefined);
  }
}

/** Our frame and the page's viewport, `height` CSS pixels tall. */
async function sizeFrame(page: Page, width: number, height: number): Promise<void> {
  await page.evaluate((h) => {
    document.querySelector('iframe')!.style.height = `${h}px`;
  }, height);
  await page.setViewportSize({ width, height });
}

export async function renderInContext(
  browser: Browser,
  job: RenderPageJob,
  deps: RenderPageDeps,
  onContext: (context: BrowserContext) => void,
): Promise<RenderedPage> {
  const context = await browser.newContext({
    javaScriptEnabled: false,
    viewport: { width: job.width, height: PREVIEW_MIN_HEIGHT_PX },
    // A desktop's screen, as the preview's frame has its reader's: without it the screen is the
    // viewport, and `max-device-width` rules took every export for a phone's.
    screen: RENDER_SCREEN,
    deviceScaleFactor: job.scale ?? 1,
    // No emulation: the iframe's color-scheme decides, as in the preview.
    colorScheme: null,
    acceptDownloads: false,
    serviceWorkers: 'block',
  });
  onContext(context);
  try {
    const pageUrl = `${RENDER_ORIGIN}/${randomUUID()}/`;
    let pageServed = false;
    const images: ImageLedger = new Map();
    // The email's `data:` images too large to decode are drawn as empty SVGs of their size.
    const inline = boundInlineImages(job.html);
    for (const url of inline.leftOut) images.set(url, false);
    await context.route('**/*', (route) => {
      const request = route.request();
      if (!pageServed && request.url() === pageUrl && request.resourceType() === 'document') {
        pageServed = true;
        return route.fulfill({
          status: 200,
          contentType: 'text/html; charset=utf-8',
          body: framePage(job.width, job.mode, PREVIEW_MIN_HEIGHT_PX),
        });
      }
      return handle(route, deps, job.userId, images);
    });
    const page = await context.newPage();
    const timeout = () => Math.max(1, deps.deadline - Date.now());
    await page.goto(pageUrl, { waitUntil: 'load', timeout: timeout() });
    const frame = await (await page.$('iframe'))?.contentFrame();
    if (!frame) throw new Error('the email frame did not load');
    // Evaluated over the DevTools protocol, in our page: the email's scripts stay off.
    await page.evaluate((doc) => {
      const url = URL.createObjectURL(new Blob([doc], { type: 'text/html;charset=utf-8' }));
      document.querySelector('iframe')!.src = url;
    }, frameDocument(inline.text));
    await frame.waitForURL((url) => url.protocol === 'blob:', { waitUntil: 'commit', timeout: timeout() });
    // Its load event comes after its images, style sheets and fonts, each of which arrives or is
    // given up by resourcesBy; should it not come, what has arrived is rendered.
    await frame
      .waitForLoadState('load', {
        timeout: Math.max(1, Math.min(deps.deadline, deps.resourcesBy + 250) - Date.now()),
      })
      .catch(() => undefined);
    // Measured with the built-in getters (measureHeight): the email's markup can name an element
    // `documentElement` or `images` (`<form name>`, `<img name>`), which shadows the document's own
    // properties. The frame is one window tall (PREVIEW_MIN_HEIGHT_PX), as the preview's frame starts.
    const measured = await measureHeight(frame);
    let height = Math.max(1, Math.min(measured, job.maxHeight));
    const capture: WindowCapture = {
      context,
      page,
      frame,
      width: job.width,
      window: PREVIEW_MIN_HEIGHT_PX,
      maxHeight: job.maxHeight,
      canvas: CANVAS[job.mode],
      format: job.format,
      resourcesBy: deps.resourcesBy,
      timeout,
    };
    // Grown to the email's height, as the preview's frame grows, unless the email grows with it:
    // its height then depends on the window's (viewport units, `height: 100%` on the root), and it
    // is taken in a window of fixed height, scrolled (window-capture.ts), as the preview shows it.
    let inWindow = false;
    if (height > PREVIEW_MIN_HEIGHT_PX) {
      await sizeFrame(page, job.width, height);
      inWindow = Math.abs((await measureHeight(frame)) - measured) > 1;
      if (inWindow) await sizeFrame(page, job.width, PREVIEW_MIN_HEIGHT_PX);
    }
    let truncated = measured > job.maxHeight;
    if (inWindow) {
      const full = await heightInWindow(capture);
      height = Math.max(1, Math.min(full, job.maxHeight));
      truncated = full > job.maxHeight;
    } else {
      // Images the taller viewport brought into view get the rest of the time for resources.
      await imagesIn(frame, deps.resourcesBy);
    }
    const contentWidth = await frame.evaluate(() => {
      const own = Object.getOwnPropertyDescriptor;
      const root = own(Document.prototype, 'documentElement')!.get!.call(document) as Element | null;
      const body = own(Document.prototype, 'body')!.get!.call(document) as Element | null;
      const scrollWidth = own(Element.prototype, 'scrollWidth')!.get!;
      return Math.ceil(Math.max(root ? scrollWidth.call(root) : 0, body ? scrollWidth.call(body) : 0));
    });
    const shown = {
      width: job.width,
      height,
      truncated,
      contentWidth: Math.max(job.width, contentWidth),
      // Counted before the capture: an image that arrives during it may not be in it.
      imagesFailed: [...images.values()].filter((arrived) => !arrived).length,
    };
    if (inWindow) return { body: await captureByWindows(capture, height), ...shown };
    if (job.format === 'pdf') {
      await page.emulateMedia({ media: 'screen' });
      const body = await page.pdf({
        width: `${job.width}px`,
        height: `${height}px`,
        printBackground: true,
        margin: { top: '0', right: '0', bottom: '0', left: '0' },
        pageRanges: '1',
      });
      return { body, ...shown };
    }
    const body = await page.screenshot({
      type: 'png',
      clip: { x: 0, y: 0, width: job.width, height },
      animations: 'disabled',
      caret: 'hide',
      timeout: timeout(),
    });
    return { body, ...shown };
  } finally {
    await context.close().catch(() => undefined);
  }
}
