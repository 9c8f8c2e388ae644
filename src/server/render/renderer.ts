import type { Browser, BrowserContext } from 'playwright-core';
import { RENDER_MESSAGES } from '../../shared/contract/render.ts';
import { AppError } from '../http/errors.ts';
import type { Egress } from '../net/egress.ts';
import { findChromium } from './find-chromium.ts';
import {
  renderInContext,
  type RenderedPage,
  type RenderPageJob,
  type RenderRequestEvent,
} from './render-page.ts';

/**
 * The renderer (docs/architecture.md "The renderer", docs/decisions/0080-renderer-locked-down.md,
 * 0082-render-pool-sizing.md): one system Chromium driven by playwright-core, started on the first
 * render and again after a crash, closed with the app. At most `pages` renders run at once, each in
 * its own context; up to `maxQueue` more wait, and past that a render is refused with 503. Each
 * render has a time budget (its requests included) and a page budget (height and pixels).
 * The event loop only awaits the DevTools protocol: layout, painting and PNG/PDF encoding happen in
 * Chromium's processes.
 */

export type RenderJob = Omit<RenderPageJob, 'maxHeight'> & { maxHeight?: number };

export interface Renderer {
  /** False when no Chromium was found: every render then fails with 503 renderer_unavailable. */
  readonly available: boolean;
  /** Why the renderer is off (for the start-up log line), null when it is on. */
  readonly unavailableReason: string | null;
  render(job: RenderJob): Promise<RenderedPage>;
  close(): Promise<void>;
}

export interface RendererOptions {
  chromiumPath: string | null;
  searchPath: string;
  egress: Egress;
  /** Renders at once (browser contexts open together). */
  pages: number;
  budgetMs: number;
  /** Renders waiting for a page, at most. */
  maxQueue?: number;
  /** The tallest render, in CSS pixels. */
  maxHeight?: number;
  /** The most pixels one render may have (width × height × scale²). */
  maxPixels?: number;
  onRequest?: (event: RenderRequestEvent) => void;
}

export const MAX_RENDER_HEIGHT = 20_000;
export const MAX_RENDER_PIXELS = 16_000_000;

/**
 * Chromium's own flags: headless, no GPU, none of its background traffic, and a proxy on a dead
 * loopback port for every connection it would open itself (preconnect hints, anything not routed),
 * so the egress guard is the only way out. The renderer's page is routed before anything loads.
 */
export const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--host-resolver-rules=MAP * ~NOTFOUND',
];

export const unavailable = () => new AppError(503, RENDER_MESSAGES.unavailable, 'renderer_unavailable');
const busy = () =>
  new AppError(503, 'The renderer is busy with other renders. Try again in a few seconds.', 'render_busy', 5);
const overBudget = (ms: number) =>
  new AppError(
    422,
    `Rendering this email took longer than ${ms / 1000} seconds and was stopped. Its images or fonts may be slow to load.`,
    'render_timeout',
  );
const failed = (why: string) =>
  new AppError(503, `The renderer failed (${why}). Try again in a few seconds.`, 'render_failed', 5);

export function createRenderer(options: RendererOptions): Renderer {
  const lookup = findChromium(options);
  const maxQueue = options.maxQueue ?? 16;
  const maxHeightBudget = options.maxHeight ?? MAX_RENDER_HEIGHT;
  const maxPixels = options.maxPixels ?? MAX_RENDER_PIXELS;
  let browser: Promise<Browser> | undefined;
  let running = 0;
  const waiting: (() => void)[] = [];
  const contexts = new Set<BrowserContext>();
  let closed = false;

  function launch(path: string): Promise<Browser> {
    // playwright-core is loaded with the first render: it is a quarter of the server's import time
    // and memory, and many processes never render (a worker, an install without Chromium).
    browser ??= import('playwright-core')
      .then(({ chromium }) =>
        chromium.launch({
          executablePath: path,
          headless: true,
          args: LAUNCH_ARGS,
          handleSIGINT: false,
          handleSIGTERM: false,
        }),
      )
      .then((b) => {
        // A crashed or killed browser is started again by the next render.
        b.on('disconnected', () => {
          if (browser && !closed) browser = undefined;
        });
        return b;
      });
    browser.catch(() => (browser = undefined));
    return browser;
  }

  async function slot(): Promise<() => void> {
    if (running >= options.pages) {
      if (waiting.length >= maxQueue) throw busy();
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    running++;
    return () => {
      running--;
      waiting.shift()?.();
    };
  }

  return {
    available: lookup.path !== null,
    unavailableReason: lookup.path === null ? lookup.reason : null,
    async render(job) {
      if (lookup.path === null) throw unavailable();
      if (closed) throw busy();
      const scale = job.scale ?? 1;
      const pixelCap = Math.floor(maxPixels / (job.width * scale * scale));
      const maxHeight = Math.min(job.maxHeight ?? maxHeightBudget, maxHeightBudget, pixelCap);
      const release = await slot();
      if (closed) {
        release();
        throw busy();
      }
      const controller = new AbortController();
      const deadline = Date.now() + options.budgetMs;
      let context: BrowserContext | undefined;
      const timer = setTimeout(() => {
        controller.abort();
        // Closing the context ends every pending call of this render at once.
        void context?.close().catch(() => undefined);
      }, options.budgetMs);
      try {
        const b = await launch(lookup.path).catch((err: unknown) => {
          throw failed(
            `Chromium did not start: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
          );
        });
        return await renderInContext(
          b,
          { ...job, maxHeight },
          { egress: options.egress, onRequest: options.onRequest, signal: controller.signal, deadline },
          (c) => {
            context = c;
            contexts.add(c);
            if (controller.signal.aborted) void c.close().catch(() => undefined);
          },
        );
      } catch (err) {
        if (controller.signal.aborted) throw overBudget(options.budgetMs);
        if (err instanceof AppError) throw err;
        throw failed(err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : String(err));
      } finally {
        clearTimeout(timer);
        if (context) contexts.delete(context);
        release();
      }
    },
    async close() {
      closed = true;
      for (const resolve of waiting.splice(0)) resolve();
      const b = await browser?.catch(() => undefined);
      browser = undefined;
      await b?.close().catch(() => undefined);
    },
  };
}
