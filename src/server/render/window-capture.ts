import type { BrowserContext, Frame, Page } from 'playwright-core';

/**
 * The picture of an email whose layout depends on the height of its window
 * (docs/decisions/0120-renderer-as-the-preview-and-fair.md, amended 2026-11-28: viewport units).
 *
 * `100vh`, `height: 100%` on `html, body`, a `<table height="100%">`: these size the email by its
 * frame's viewport. A mail client shows such an email in a window of fixed height and scrolls it,
 * and so does the preview (src/web/components/email-preview/frame-behaviour.ts); growing the frame to
 * the email's height would grow the email with it and push its end out of the picture. So the
 * render keeps the frame one window tall (PREVIEW_MIN_HEIGHT_PX, the height it measured at),
 * scrolls the email's document a window at a time, captures each window, and puts the captures
 * together in a second page of the same context (data: images, never fetched), which Chromium
 * encodes: a PNG, or a PDF of that picture (an image, not text).
 *
 * Everything here is done over the DevTools protocol: the email's scripts stay off.
 */

/** The email's height in its frame (CSS pixels), read through the prototypes (named elements). */
export function measureHeight(frame: Frame): Promise<number> {
  return frame.evaluate(() => {
    const own = Object.getOwnPropertyDescriptor;
    const root = own(Document.prototype, 'documentElement')!.get!.call(document) as Element | null;
    const body = own(Document.prototype, 'body')!.get!.call(document) as Element | null;
    const scrollHeight = own(Element.prototype, 'scrollHeight')!.get!;
    return Math.ceil(Math.max(root ? scrollHeight.call(root) : 0, body ? scrollHeight.call(body) : 0));
  });
}

/** Scrolls the email's document to `y` at once (whatever its `scroll-behavior`); answers where it is. */
function scrollTo(frame: Frame, y: number): Promise<number> {
  return frame.evaluate((top) => {
    // Own properties of every window: the email's named elements cannot shadow them.
    window.scrollTo({ top, left: 0, behavior: 'instant' });
    return window.scrollY;
  }, y);
}

/** Waits, at most until `by`, for the images the scroll brought into view (lazy ones). */
export async function imagesIn(frame: Frame, by: number): Promise<void> {
  await frame
    .waitForFunction(
      () => {
        const own = Object.getOwnPropertyDescriptor;
        const list = own(Document.prototype, 'images')!.get!.call(document) as HTMLCollection;
        const complete = own(HTMLImageElement.prototype, 'complete')!.get!;
        return Array.from(list).every((img) => complete.call(img));
      },
      undefined,
      { timeout: Math.max(1, by - Date.now()), polling: 50 },
    )
    .catch(() => undefined);
}

export interface WindowCapture {
  context: BrowserContext;
  page: Page;
  frame: Frame;
  width: number;
  /** The window's height (CSS pixels): the frame's, and the page's viewport. */
  window: number;
  maxHeight: number;
  canvas: string;
  format: 'png' | 'pdf';
  resourcesBy: number;
  timeout: () => number;
}

/** The email's height in the window (at most `maxHeight`), after its lazy images had their time. */
export async function heightInWindow(c: WindowCapture): Promise<number> {
  let height = await measureHeight(c.frame);
  for (let y = c.window; y < Math.min(height, c.maxHeight); y += c.window) {
    await scrollTo(c.frame, y);
    await imagesIn(c.frame, c.resourcesBy);
    height = await measureHeight(c.frame);
  }
  await scrollTo(c.frame, 0);
  return height;
}

/** Captures the first `height` CSS pixels of the email, a window at a time, as one PNG or PDF. */
export async function captureByWindows(c: WindowCapture, height: number): Promise<Buffer> {
  const slices: Array<{ png: string; height: number }> = [];
  for (let y = 0; y < height; y += c.window) {
    const sliceHeight = Math.min(c.window, height - y);
    // The last window cannot scroll past the document's end: its slice is lower in the window.
    const at = await scrollTo(c.frame, y);
    const png = await c.page.screenshot({
      type: 'png',
      clip: { x: 0, y: y - at, width: c.width, height: sliceHeight },
      animations: 'disabled',
      caret: 'hide',
      timeout: c.timeout(),
    });
    slices.push({ png: png.toString('base64'), height: sliceHeight });
  }
  const picture = await c.context.newPage();
  await picture.setViewportSize({ width: c.width, height: c.window });
  await picture.setContent(
    '<!DOCTYPE html><html><head><meta charset="utf-8"></head>' +
      `<body style="margin:0;background:${c.canvas}">` +
      slices
        .map(
          (s) =>
            `<img alt="" style="display:block;width:${c.width}px;height:${s.height}px" src="data:image/png;base64,${s.png}">`,
        )
        .join('') +
      '</body></html>',
    { waitUntil: 'load', timeout: c.timeout() },
  );
  if (c.format === 'pdf') {
    await picture.emulateMedia({ media: 'screen' });
    return picture.pdf({
      width: `${c.width}px`,
      height: `${height}px`,
      printBackground: true,
      margin: { top: '0', right: '0', bottom: '0', left: '0' },
      pageRanges: '1',
    });
  }
  return picture.screenshot({
    type: 'png',
    fullPage: true,
    animations: 'disabled',
    caret: 'hide',
    timeout: c.timeout(),
  });
}
