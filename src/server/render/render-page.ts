import type { Browser, BrowserContext, Route } from 'playwright-core';
import { PREVIEW_MIN_HEIGHT_PX } from '../../shared/plans.ts';
import { DARK_CANVAS, LIGHT_CANVAS } from '../../shared/preview/canvas.ts';
import type { RenderMode } from '../../shared/contract/render.ts';
import type { Egress } from '../net/egress.ts';

/**
 * One render in its own browser context (docs/decisions/0080-renderer-locked-down.md). The page is
 * built like the preview's frame (src/web/components/email-preview/email-frame.tsx): the email as
 * sent, byte for byte, in an `<iframe sandbox="allow-same-origin">` whose `color-scheme` decides
 * the email's `prefers-color-scheme` (light for Light, dark for Dark) on the mode's canvas
 * (src/shared/preview/canvas.ts), with no colour-scheme emulation, so Chromium applies the same
 * rules as in the preview (docs/decisions/0047-forced-dark-approximation.md).
 *
 * Locked down: JavaScript is off in the context; every request goes through `route`: images over
 * http(s), style sheets and fonts over https (what the preview's frame CSP allows) are fetched by
 * the egress guard (src/server/net/egress.ts) and handed to the page, everything else (documents,
 * so no navigation, scripts, media, fetches, objects) is refused. Chromium itself never opens a
 * connection for the email: its proxy is a dead loopback port (renderer.ts).
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
}

const CANVAS: Record<RenderMode, string> = { light: LIGHT_CANVAS, dark: DARK_CANVAS };
/** Bytes one resource of the email may have. */
const MAX_RESOURCE_BYTES = 5 * 1024 * 1024;

const escapeAttribute = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;');

/** Our page around the email: only an iframe, as the preview shows it. */
export function framePage(html: string, width: number, mode: RenderMode, height: number): string {
  return (
    '<!DOCTYPE html><html style="color-scheme:light"><head><meta charset="utf-8"></head>' +
    `<body style="margin:0;background:${CANVAS[mode]}">` +
    `<iframe sandbox="allow-same-origin" referrerpolicy="no-referrer" title="email" ` +
    `style="display:block;border:0;width:${width}px;height:${height}px;` +
    `color-scheme:${mode === 'dark' ? 'dark' : 'light'};background-color:${CANVAS[mode]}" ` +
    `srcdoc="${escapeAttribute(html)}"></iframe></body></html>`
  );
}

/** What the preview's frame lets load (src/web/components/email-preview/email-document.ts frameCsp). */
function allowedKind(resourceType: string, url: URL): boolean {
  if (resourceType === 'image') return url.protocol === 'http:' || url.protocol === 'https:';
  if (resourceType === 'stylesheet' || resourceType === 'font') return url.protocol === 'https:';
  return false;
}

async function handle(route: Route, deps: RenderPageDeps, userId: string): Promise<void> {
  const request = route.request();
  const resourceType = request.resourceType();
  const report = (outcome: RequestOutcome, reason?: string) =>
    deps.onRequest?.({ url: request.url(), resourceType, outcome, ...(reason ? { reason } : {}) });
  let url: URL;
  try {
    url = new URL(request.url());
  } catch {
    report('blocked', 'invalid URL');
    return route.abort('blockedbyclient').catch(() => undefined);
  }
  if (request.method() !== 'GET' || !allowedKind(resourceType, url)) {
    report('blocked', `${resourceType} requests are not made`);
    return route.abort('blockedbyclient').catch(() => undefined);
  }
  try {
    const res = await deps.egress.fetch(url.href, {
      userId,
      signal: deps.signal,
      maxBytes: MAX_RESOURCE_BYTES,
      totalTimeoutMs: Math.max(100, Math.min(8_000, deps.deadline - Date.now())),
    });
    report('fetched');
    const contentType = res.headers['content-type'];
    await route.fulfill({
      status: res.status,
      headers: contentType ? { 'content-type': contentType } : {},
      body: res.body,
    });
  } catch (err) {
    const kind = (err as { kind?: string }).kind ?? '';
    report(
      kind.startsWith('refused') ? 'refused' : 'failed',
      err instanceof Error ? err.message : String(err),
    );
    await route.abort(kind.startsWith('refused') ? 'accessdenied' : 'failed').catch(() => undefined);
  }
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
    deviceScaleFactor: job.scale ?? 1,
    // No emulation: the iframe's color-scheme decides, as in the preview.
    colorScheme: null,
    acceptDownloads: false,
    serviceWorkers: 'block',
  });
  onContext(context);
  try {
    await context.route('**/*', (route) => handle(route, deps, job.userId));
    const page = await context.newPage();
    const timeout = () => Math.max(1, deps.deadline - Date.now());
    await page.setContent(framePage(job.html, job.width, job.mode, PREVIEW_MIN_HEIGHT_PX), {
      waitUntil: 'load',
      timeout: timeout(),
    });
    const frame = await (await page.$('iframe'))?.contentFrame();
    if (!frame) throw new Error('the email frame did not load');
    // Evaluated over the DevTools protocol: the page's own scripts stay off.
    const measured = await frame.evaluate(() =>
      Math.ceil(Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0)),
    );
    const height = Math.max(1, Math.min(measured, job.maxHeight));
    await page.evaluate((h) => {
      document.querySelector('iframe')!.style.height = `${h}px`;
    }, height);
    await page.setViewportSize({ width: job.width, height });
    // Images the taller viewport brought into view (loading=lazy) get the rest of the budget.
    await frame
      .waitForFunction(() => Array.from(document.images).every((img) => img.complete), undefined, {
        timeout: Math.min(3_000, timeout()),
        polling: 50,
      })
      .catch(() => undefined);
    if (job.format === 'pdf') {
      await page.emulateMedia({ media: 'screen' });
      const body = await page.pdf({
        width: `${job.width}px`,
        height: `${height}px`,
        printBackground: true,
        margin: { top: '0', right: '0', bottom: '0', left: '0' },
        pageRanges: '1',
      });
      return { body, width: job.width, height, truncated: measured > job.maxHeight };
    }
    const body = await page.screenshot({
      type: 'png',
      clip: { x: 0, y: 0, width: job.width, height },
      animations: 'disabled',
      caret: 'hide',
      timeout: timeout(),
    });
    return { body, width: job.width, height, truncated: measured > job.maxHeight };
  } finally {
    await context.close().catch(() => undefined);
  }
}
