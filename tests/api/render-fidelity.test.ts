import path from 'node:path';
import { buildSync } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress } from '../../src/server/net/egress.ts';
import { FRAME_PREAMBLE } from '../../src/server/render/render-page.ts';
import {
  captureReserveMs,
  createRenderer,
  LAUNCH_ARGS,
  type Renderer,
} from '../../src/server/render/renderer.ts';
import { emailDocument } from '../../src/web/components/email-preview/email-document.ts';
import { CHROMIUM_PATH } from '../support/chromium.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-http.ts';

/**
 * The renderer shows the email as the preview does
 * (docs/decisions/0120-renderer-as-the-preview-and-fair.md). The reference is Chromium
 * loading the email the preview's way: the preview's own frame document (emailDocument of
 * src/web/components/email-preview/email-document.ts, bundled) as a blob: URL in an `<iframe
 * sandbox="allow-same-origin">` (email-frame.tsx). Both browsers reach loopback servers only: the
 * reference's requests are all answered by `route` (recorded, never sent), and it runs with the
 * renderer's launch flags (a dead loopback proxy, no name resolves).
 */

const PREVIEW_ORIGIN = 'http://preview.invalid';
type EmailDocument = typeof emailDocument;
const WIDTH = 600;

/** What the reference measured in the preview's frame. */
interface Shown {
  compatMode: string;
  height: number;
  contentWidth: number;
}

const ONE_BLUE_PIXEL = (() => {
  const png = new PNG({ width: 1, height: 1 });
  png.data.set([0, 0, 255, 255]);
  return PNG.sync.write(png);
})();

describe('the renderer loads the email as the preview does', () => {
  let reference: Browser;
  let page: Page;
  /** Every URL the reference's frame asked for (none was fetched). */
  const asked: string[] = [];
  let renderer: Renderer;
  let server: LoopbackServer;

  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(ONE_BLUE_PIXEL);
    });
    const bundle = buildSync({
      entryPoints: [
        path.resolve(import.meta.dirname, '../../src/web/components/email-preview/email-document.ts'),
      ],
      bundle: true,
      format: 'iife',
      globalName: 'PreviewDocument',
      platform: 'browser',
      write: false,
    }).outputFiles[0]!.text;
    reference = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: LAUNCH_ARGS });
    const context = await reference.newContext({ viewport: { width: 1000, height: 900 }, colorScheme: null });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url === `${PREVIEW_ORIGIN}/`) {
        return route.fulfill({
          contentType: 'text/html; charset=utf-8',
          body:
            '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">' +
            `<iframe sandbox="allow-same-origin" referrerpolicy="no-referrer" style="display:block;border:0;width:${WIDTH}px;height:800px"></iframe>` +
            `<script>${bundle}</script></body></html>`,
        });
      }
      asked.push(url);
      return route.abort();
    });
    page = await context.newPage();
    await page.goto(`${PREVIEW_ORIGIN}/`);
    renderer = createRenderer({
      chromiumPath: null,
      searchPath: process.env.PATH ?? '',
      egress: createEgress({ allowLoopback: true }),
      pages: 2,
      budgetMs: 20_000,
    });
  });
  afterAll(async () => {
    await renderer?.close();
    await reference?.close();
    await server?.close();
  });

  /** The email in the preview's frame, as email-frame.tsx shows it (Light, images on). */
  async function preview(html: string): Promise<Shown> {
    asked.length = 0;
    return page.evaluate(async (html) => {
      const bundled = (window as unknown as { PreviewDocument: { emailDocument: EmailDocument } })
        .PreviewDocument;
      const doc = bundled.emailDocument(html, { mode: 'light', images: true });
      const frame = document.querySelector('iframe')!;
      const url = URL.createObjectURL(new Blob([doc], { type: 'text/html;charset=utf-8' }));
      await new Promise((resolve) => {
        frame.addEventListener('load', resolve, { once: true });
        frame.src = url;
      });
      // Through the prototypes, as frame-behaviour.ts reads the frame: the email's named elements
      // shadow the document's own properties (docs/decisions/0119-preview-frame-utf-8-and-unshadowed.md).
      const d = frame.contentDocument!;
      const own = Object.getOwnPropertyDescriptor;
      const root = own(Document.prototype, 'documentElement')!.get!.call(d) as Element;
      const body = own(Document.prototype, 'body')!.get!.call(d) as Element | null;
      const size = (name: 'scrollHeight' | 'scrollWidth') => {
        const get = own(Element.prototype, name)!.get!;
        return Math.ceil(Math.max(get.call(root) as number, body ? (get.call(body) as number) : 0));
      };
      return {
        compatMode: own(Document.prototype, 'compatMode')!.get!.call(d) as string,
        height: size('scrollHeight'),
        contentWidth: size('scrollWidth'),
      };
    }, html);
  }

  const render = (html: string) =>
    renderer.render({ html, width: WIDTH, mode: 'light', format: 'png', userId: 'fidelity' });

  it('puts the preview’s own preamble before the email', () => {
    // Without a DOM, emailDocument answers its preamble and a placeholder: the preamble is ours.
    expect(
      emailDocument('<p>x</p>', { mode: 'light', images: true }).startsWith(`${FRAME_PREAMBLE}<p `),
    ).toBe(true);
  });

  // A 300-unit height without a unit (honoured in quirks mode only), three rows of images in table
  // cells (no gap below them in quirks and limited-quirks modes, a gap in standards mode), then
  // 1,000 px: the email's height says its mode.
  const GIF = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
  const BODY =
    '<body style="margin:0"><div style="height:300;background:#0a0"></div>' +
    '<table cellpadding="0" cellspacing="0" border="0">' +
    `<tr><td><img src="${GIF}" width="100" height="100"></td></tr>`.repeat(3) +
    '</table><div style="height:1000px;background:#eee"></div></body>';
  const HTML401 = '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN"';
  const XHTML10 =
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">';

  it.each([
    ['no doctype', `<html>${BODY}</html>`, 'BackCompat', 1600],
    ['HTML 4.01 Transitional', `${HTML401}><html>${BODY}</html>`, 'BackCompat', 1600],
    [
      'HTML 4.01 Transitional with its system identifier (limited quirks)',
      `${HTML401} "http://www.w3.org/TR/html4/loose.dtd"><html>${BODY}</html>`,
      'CSS1Compat',
      1300,
    ],
    [
      'XHTML 1.0 Transitional (limited quirks)',
      `${XHTML10}<html xmlns="http://www.w3.org/1999/xhtml">${BODY}</html>`,
      'CSS1Compat',
      1300,
    ],
    [
      '<!DOCTYPE html> (standards: a gap under each image)',
      `<!DOCTYPE html><html>${BODY}</html>`,
      'CSS1Compat',
      null,
    ],
  ])('%s: the mode and geometry of the preview', async (_name, html, compatMode, height) => {
    const shown = await preview(html);
    expect(shown.compatMode).toBe(compatMode);
    if (height === null) expect(shown.height).toBeGreaterThan(1300);
    else expect(shown.height).toBe(height);
    const rendered = await render(html);
    expect(rendered.height).toBe(shown.height);
    // The unitless height is painted only in quirks mode.
    const image = PNG.sync.read(rendered.body);
    const at = (150 * image.width + 300) * 4;
    const green = [image.data[at], image.data[at + 1], image.data[at + 2]];
    expect(green).toEqual(compatMode === 'BackCompat' ? [0, 170, 0] : [255, 255, 255]);
  });

  it('ignores <base href> as the preview does: relative URLs load nothing', async () => {
    const html =
      `<!DOCTYPE html><html><head><base href="${server.url}/assets/"></head><body style="margin:0">` +
      `<img src="logo.png" width="10" height="10"><img src="${server.url}/direct.png" width="10" height="10">` +
      '<div style="height:900px"></div></body></html>';
    await preview(html);
    expect(asked).toEqual([`${server.url}/direct.png`]);
    server.requests.length = 0;
    const rendered = await render(html);
    expect(server.requests.map((r) => r.path)).toEqual(['/direct.png']);
    expect(rendered.imagesFailed).toBe(0);
  });

  it('puts the preamble where the parser keeps it in the head, whatever comes before the doctype', async () => {
    // What a regular expression took for leading markup and the parser does not: a no-break space or
    // a vertical tab (text), comments closed by `<!-->`, `<!--->` or `--!>`, then body content.
    const prefixes = [
      '\u00a0<!doctype html>',
      '\u000b<!doctype html>',
      '<!--><p>x</p><!-- --><!doctype html>',
      '<!---><title>--><!doctype html></title>',
      '<!-- a --!><p>y</p><!-- --><!doctype html>',
      `${'<!----><?x>'.repeat(30)}<!doctype html>`,
    ];
    for (const [i, prefix] of prefixes.entries()) {
      server.requests.length = 0;
      const html =
        `${prefix}<base href="${server.url}/base-${i}/"><img src="rel.png" width="10" height="10">` +
        '<div style="height:900px"></div>';
      await render(html);
      expect(
        server.requests.map((r) => r.path),
        prefix,
      ).toEqual([]);
    }
  });

  it('reads the email as UTF-8, as it is sent, whatever charset it declares', async () => {
    // 100 euro signs in a row: 100 monospace characters in UTF-8, 300 read as windows-1252 ("â‚¬").
    const html =
      '<!DOCTYPE html><html><head><meta charset="windows-1252"></head><body style="margin:0">' +
      `<p style="margin:0;white-space:nowrap;font:10px monospace">${'€'.repeat(100)}</p></body></html>`;
    const shown = await preview(html);
    const rendered = await renderer.render({
      html,
      width: 320,
      mode: 'light',
      format: 'png',
      userId: 'utf8',
    });
    expect(rendered.contentWidth).toBe(shown.contentWidth);
    expect(rendered.contentWidth).toBeLessThan(1000);
  });

  it('measures the email whatever its elements are named (named elements shadow the document’s properties)', async () => {
    const html =
      '<!DOCTYPE html><html><body style="margin:0"><img name="body" width="1" height="1">' +
      '<form name="documentElement"></form><img name="images" width="1" height="1">' +
      '<div style="height:1200px;background:#eee"></div></body></html>';
    const rendered = await render(html);
    expect(rendered.height).toBe((await preview(html)).height);
    expect(rendered.height).toBeGreaterThanOrEqual(1200);
  });

  it.each([
    [
      'min-height: 100vh, then a footer',
      '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">' +
        '<div style="min-height:100vh;background:#fde;font:24px Arial">Hero section</div>' +
        '<div style="background:#333;color:#fff;padding:20px;font:14px Arial">FOOTER after hero</div></body></html>',
      856,
    ],
    [
      'html, body { height: 100% } and a <table height="100%">, then a footer table',
      '<!DOCTYPE html><html><head><style>html,body{height:100%;margin:0}</style></head><body>' +
        '<table height="100%" width="100%" cellpadding="0" cellspacing="0" style="background:#fde"><tr><td>Main</td></tr></table>' +
        '<table width="100%" cellpadding="0" cellspacing="0" style="background:#333"><tr><td style="height:60px">Footer</td></tr></table></body></html>',
      860,
    ],
    [
      '100vh, then 50vh',
      '<style>html,body{margin:0}.h{min-height:100vh;background:#fde}.half{height:50vh;background:#333}</style>' +
        '<div class="h">100vh</div><div class="half">50vh</div>',
      1200,
    ],
  ])('%s: the whole email as it is in an 800 px window, its end included', async (_name, html, height) => {
    // The preview's frame is that window (frame-behaviour.ts): the email scrolls in it.
    expect((await preview(html)).height).toBe(height);
    const rendered = await render(html);
    expect([rendered.height, rendered.truncated]).toEqual([height, false]);
    const image = PNG.sync.read(rendered.body);
    expect(image.height).toBe(height);
    const at = (y: number) => {
      const i = (y * image.width + 300) * 4;
      return [image.data[i], image.data[i + 1], image.data[i + 2]];
    };
    // The window tall hero, then the footer to the picture's end.
    expect(at(795)).toEqual([255, 221, 238]);
    expect(at(805)).toEqual([51, 51, 51]);
    expect(at(height - 2)).toEqual([51, 51, 51]);
    const pdf = await renderer.render({
      html,
      width: WIDTH,
      mode: 'light',
      format: 'pdf',
      userId: 'fidelity',
    });
    expect([pdf.height, pdf.body.subarray(0, 5).toString()]).toEqual([height, '%PDF-']);
  });

  it('is on a desktop’s screen, as the preview is seen: max-device-width rules do not apply, whatever the width', async () => {
    const html =
      '<style>body{margin:0}.c{background:#0a0;width:560px;height:100px}' +
      '@media only screen and (max-device-width:640px){.c{background:#c00;width:auto}}</style><div class="c">x</div>';
    for (const width of [600, 375]) {
      const image = PNG.sync.read(
        (await renderer.render({ html, width, mode: 'light', format: 'png', userId: 'fidelity' })).body,
      );
      const i = (50 * image.width + 200) * 4;
      expect([image.data[i], image.data[i + 1], image.data[i + 2]], `${width}`).toEqual([0, 170, 0]);
    }
  });

  it('says how wide content that overflows the frame is, as the preview can scroll to it', async () => {
    const html =
      '<!DOCTYPE html><html><body style="margin:0"><table width="1000" cellpadding="0" cellspacing="0">' +
      '<tr><td style="height:40px;background:#ccc">Wide</td></tr></table></body></html>';
    const shown = await preview(html);
    expect(shown.contentWidth).toBe(1000);
    const rendered = await render(html);
    expect([rendered.width, rendered.contentWidth]).toEqual([WIDTH, 1000]);
    const narrow = await render('<!DOCTYPE html><html><body><p>Fits</p></body></html>');
    expect(narrow.contentWidth).toBe(WIDTH);
  });
});

describe('the email’s images have the render’s budget', () => {
  let server: LoopbackServer;
  const renderers: Renderer[] = [];
  const renderer = (budgetMs: number) => {
    const r = createRenderer({
      chromiumPath: null,
      searchPath: process.env.PATH ?? '',
      egress: createEgress({ allowLoopback: true }),
      pages: 1,
      budgetMs,
    });
    renderers.push(r);
    return r;
  };

  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.url === '/never.png') return; // never answers
      const delay = req.url === '/slow.png' ? 9_000 : 0;
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(ONE_BLUE_PIXEL);
      }, delay);
    });
  });
  afterAll(async () => {
    for (const r of renderers) await r.close();
    await server?.close();
  });

  const withImage = (name: string) =>
    `<!DOCTYPE html><html><body style="margin:0"><img src="${server.url}/${name}" width="200" height="200" style="display:block"></body></html>`;
  const pixel = (body: Buffer, x: number, y: number) => {
    const image = PNG.sync.read(body);
    const at = (y * image.width + x) * 4;
    return [image.data[at], image.data[at + 1], image.data[at + 2]];
  };

  it('an image that takes 9 s arrives within the default 15 s budget', async () => {
    const started = Date.now();
    const out = await renderer(15_000).render({
      html: withImage('slow.png'),
      width: 400,
      mode: 'light',
      format: 'png',
      userId: 'slow',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
    expect(pixel(out.body, 100, 100)).toEqual([0, 0, 255]);
    expect(out.imagesFailed).toBe(0);
  }, 30_000);

  it('an image that never answers is given up in time to capture, and counted', async () => {
    const budgetMs = 4_000;
    const started = Date.now();
    const out = await renderer(budgetMs).render({
      html: withImage('never.png') + `<img src="${server.url}/fast.png" width="10" height="10">`,
      width: 400,
      mode: 'light',
      format: 'png',
      userId: 'never',
    });
    // Not 422: the image was given up when its share of the budget was spent, not after it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(budgetMs - captureReserveMs(budgetMs));
    expect(out.imagesFailed).toBe(1);
    expect(pixel(out.body, 100, 100)).not.toEqual([0, 0, 255]);
  });
});
