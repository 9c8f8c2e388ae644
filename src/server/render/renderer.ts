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
 * 0082-render-pool-sizing.md, 0120-renderer-as-the-preview-and-fair.md): one system Chromium driven
 * by playwright-core, started on the first render and again after a crash, closed with the app. At
 * most `pages` renders run at once, each in its own context; up to `maxQueue` more wait, and past
 * that a render is refused with 503. The queue is fair between users as the transform pool's is
 * (nextJob in src/server/prepare/transform-pool.ts): a free page takes the render of the user with
 * the fewest running, then served longest ago, then the oldest; a user may have at most
 * `maxQueuedPerOwner` waiting (429 beyond); and a full queue makes room for a user with fewer
 * waiting than another by turning away that other's newest with 503 (makeRoom). Each render has a
 * time budget, from when Chromium is up (its requests included, which must end `captureReserveMs`
 * before it), and a page budget (height and pixels). The event loop only awaits the DevTools
 * protocol: layout, painting and PNG/PDF encoding happen in Chromium's processes.
 */

export type RenderJob = Omit<RenderPageJob, 'maxHeight'> & { maxHeight?: number };

export interface Renderer {
  /**
   * False when no Chromium that runs was found, or when it stopped starting (LAUNCH_FAILURES_TO_OFF
   * in a row): every render then fails with 503 renderer_unavailable.
   */
  readonly available: boolean;
  /** Why the renderer is off (for the log line), null when it is on. */
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
  /** Renders of one user waiting for a page, at most (beyond: 429 too_many_renders). */
  maxQueuedPerOwner?: number;
  /** The tallest render, in CSS pixels. */
  maxHeight?: number;
  /** The most pixels one render may have (width × height × scale²). */
  maxPixels?: number;
  onRequest?: (event: RenderRequestEvent) => void;
  /**
   * Called once when Chromium stopped starting and the renderer turned itself off (not when it was
   * off from the start: `available` says so then), with the reason, for the log.
   */
  onOff?: (reason: string) => void;
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
const tooMany = () =>
  new AppError(
    429,
    'You have too many renders waiting at once. Wait for them to finish, then try again.',
    'too_many_renders',
    5,
  );
const overBudget = (ms: number) =>
  new AppError(
    422,
    // Slow images and fonts are left out before the budget ends (render-page.ts resourcesBy): what
    // is left is laying the email out and capturing it.
    `Rendering this email took longer than ${ms / 1000} seconds and was stopped. Try again in a moment, or at a smaller width.`,
    'render_timeout',
  );
const failed = (why: string) =>
  new AppError(503, `The renderer failed (${why}). Try again in a few seconds.`, 'render_failed', 5);

/**
 * Launches that fail in a row before the renderer turns itself off, until the process restarts
 * (docs/decisions/0080-renderer-locked-down.md, amended 2026-11-28): one may be passing (memory, a
 * full /dev/shm) and the next render tries again; three in a row is a Chromium that cannot start.
 */
export const LAUNCH_FAILURES_TO_OFF = 3;

/** Renders of one user that may wait: a pixel comparison is two, history asks for two thumbnails. */
export const MAX_QUEUED_PER_OWNER = 4;

/**
 * The part of a render's budget kept for laying out and capturing the page: the email's images,
 * style sheets and fonts have the rest (a quarter of the budget, from 0.5 to 3 s).
 */
export const captureReserveMs = (budgetMs: number) =>
  Math.min(3_000, Math.max(500, Math.round(budgetMs / 4)));

interface Waiting {
  owner: string;
  start: () => void;
  /** Fails the render with 503 render_busy, as a full queue does: it never had a page. */
  turnAway: () => void;
}

export function createRenderer(options: RendererOptions): Renderer {
  const lookup = findChromium(options);
  let executable = lookup.path;
  let offReason = lookup.path === null ? lookup.reason : null;
  let launchFailures = 0;
  const maxQueue = options.maxQueue ?? 16;
  const maxQueuedPerOwner = options.maxQueuedPerOwner ?? MAX_QUEUED_PER_OWNER;
  const maxHeightBudget = options.maxHeight ?? MAX_RENDER_HEIGHT;
  const maxPixels = options.maxPixels ?? MAX_RENDER_PIXELS;
  let browser: Promise<Browser> | undefined;
  let running = 0;
  const waiting: Waiting[] = [];
  /** Renders running per owner. */
  const runningOf = new Map<string, number>();
  /** When each owner with a render waiting or running last had one started (a count of starts). */
  const lastStart = new Map<string, number>();
  let starts = 0;
  const contexts = new Set<BrowserContext>();
  let closed = false;

  function launch(path: string): Promise<Browser> {
    if (browser) return browser;
    // playwright-core is loaded with the first render: it is a quarter of the server's import time
    // and memory, and many processes never render (a worker, an install without Chromium).
    const starting = import('playwright-core')
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
        launchFailures = 0;
        // A crashed or killed browser is started again by the next render.
        b.on('disconnected', () => {
          if (browser && !closed) browser = undefined;
        });
        return b;
      });
    // Counted once per launch, however many renders were waiting for it.
    starting.catch(() => {
      browser = undefined;
      launchFailures++;
    });
    browser = starting;
    return starting;
  }

  function begin(owner: string): () => void {
    running++;
    runningOf.set(owner, (runningOf.get(owner) ?? 0) + 1);
    lastStart.set(owner, ++starts);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      running--;
      const left = (runningOf.get(owner) ?? 1) - 1;
      if (left > 0) runningOf.set(owner, left);
      else runningOf.delete(owner);
      dispatch();
    };
  }

  /**
   * The waiting render a free page takes: its owner has the fewest renders running, then was
   * served longest ago, then it is the oldest (as nextJob in src/server/prepare/transform-pool.ts).
   */
  function nextWaiting(): number {
    // Owners with nothing waiting or running are served afresh: what they had is forgotten.
    for (const owner of lastStart.keys())
      if (!runningOf.has(owner) && !waiting.some((w) => w.owner === owner)) lastStart.delete(owner);
    let best = 0;
    let bestKey: [number, number] | undefined;
    for (const [i, w] of waiting.entries()) {
      const key: [number, number] = [runningOf.get(w.owner) ?? 0, lastStart.get(w.owner) ?? 0];
      if (!bestKey || key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = i;
        bestKey = key;
      }
    }
    return best;
  }

  function dispatch(): void {
    while (running < options.pages && waiting.length > 0) {
      const [next] = waiting.splice(nextWaiting(), 1) as [Waiting];
      next.start();
    }
  }

  /**
   * Room in the full queue for a render of `owner`, as makeRoom in
   * src/server/prepare/transform-pool.ts makes it: the newest waiting render of the user with the
   * most waiting is turned away (render_busy, which export.routes.ts gives back to the render limit
   * as it gives back every render_busy) when that user has more waiting than `owner` would have
   * with its render in; among users with as many, the newest render goes. False, and nothing turned
   * away, when no user has more: the arriving render is the one refused.
   */
  function makeRoom(owner: string): boolean {
    const waitingOf = new Map<string, number>();
    for (const w of waiting) waitingOf.set(w.owner, (waitingOf.get(w.owner) ?? 0) + 1);
    const arriving = (waitingOf.get(owner) ?? 0) + 1;
    let most = 0;
    let newest = -1;
    for (let i = waiting.length - 1; i >= 0; i--) {
      const count = waitingOf.get(waiting[i]!.owner)!;
      if (count > most) {
        most = count;
        newest = i;
      }
    }
    if (most <= arriving) return false;
    const [turnedAway] = waiting.splice(newest, 1) as [Waiting];
    turnedAway.turnAway();
    return true;
  }

  /** A page for `owner`'s render, now or when its turn comes; the returned function frees it. */
  async function slot(owner: string): Promise<() => void> {
    // Nobody overtakes a waiting render: a free page goes to the queue first.
    if (running < options.pages && waiting.length === 0) return begin(owner);
    if (waiting.filter((w) => w.owner === owner).length >= maxQueuedPerOwner) throw tooMany();
    if (waiting.length >= maxQueue && !makeRoom(owner)) throw busy();
    return new Promise<() => void>((resolve, reject) =>
      waiting.push({ owner, start: () => resolve(begin(owner)), turnAway: () => reject(busy()) }),
    );
  }

  /** A launch failed: after LAUNCH_FAILURES_TO_OFF in a row, Chromium is taken to be unable to start. */
  function launchFailed(message: string): AppError {
    if (executable === null) return unavailable();
    if (launchFailures < LAUNCH_FAILURES_TO_OFF) return failed(`Chromium did not start: ${message}`);
    offReason = `Chromium (${executable}) did not start ${LAUNCH_FAILURES_TO_OFF} times in a row: ${message}`;
    executable = null;
    options.onOff?.(offReason);
    return unavailable();
  }

  return {
    get available() {
      return executable !== null;
    },
    get unavailableReason() {
      return offReason;
    },
    async render(job) {
      if (executable === null) throw unavailable();
      if (closed) throw busy();
      const scale = job.scale ?? 1;
      const pixelCap = Math.floor(maxPixels / (job.width * scale * scale));
      const maxHeight = Math.min(job.maxHeight ?? maxHeightBudget, maxHeightBudget, pixelCap);
      const release = await slot(job.userId);
      if (closed) {
        release();
        throw busy();
      }
      // Starting Chromium (the first render's, or after a crash) is not the email's doing: the
      // budget starts once the browser is there.
      let b: Browser;
      try {
        if (executable === null) throw unavailable();
        b = await launch(executable);
      } catch (err) {
        release();
        if (err instanceof AppError) throw err;
        throw launchFailed(err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : String(err));
      }
      const controller = new AbortController();
      const deadline = Date.now() + options.budgetMs;
      const resourcesBy = deadline - captureReserveMs(options.budgetMs);
      let context: BrowserContext | undefined;
      const timer = setTimeout(() => {
        controller.abort();
        // Closing the context ends every pending call of this render at once.
        void context?.close().catch(() => undefined);
      }, options.budgetMs);
      try {
        return await renderInContext(
          b,
          { ...job, maxHeight },
          {
            egress: options.egress,
            onRequest: options.onRequest,
            signal: controller.signal,
            deadline,
            resourcesBy,
          },
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
      // Each waiting render starts, sees the renderer closed and answers busy.
      for (const w of waiting.splice(0)) w.start();
      const b = await browser?.catch(() => undefined);
      browser = undefined;
      await b?.close().catch(() => undefined);
    },
  };
}
