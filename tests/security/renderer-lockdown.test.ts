import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress, type DialEvent } from '../../src/server/net/egress.ts';
import type { RenderRequestEvent } from '../../src/server/render/render-page.ts';
import { createRenderer, type Renderer } from '../../src/server/render/renderer.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-http.ts';

/**
 * The renderer is locked down (docs/decisions/0080-renderer-locked-down.md): it runs no script of
 * the email, navigates nowhere, and makes no request but through the egress guard, which refuses
 * every non-loopback-public address before a socket opens. Only loopback servers are contacted;
 * the non-loopback address is proved refused by the guard's classification and by the dial log,
 * never by sending traffic.
 */

const ONE_PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

describe('renderer lock-down', () => {
  let server: LoopbackServer;
  const dials: DialEvent[] = [];
  const events: RenderRequestEvent[] = [];
  let allowed: Renderer;
  let strict: Renderer;

  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.url?.endsWith('.png')) {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(ONE_PIXEL);
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<p>should never be loaded</p>');
      }
    });
    const base = { chromiumPath: null, searchPath: process.env.PATH ?? '', pages: 2, budgetMs: 20_000 };
    allowed = createRenderer({
      ...base,
      egress: createEgress({ allowLoopback: true, onDial: (e) => dials.push(e) }),
      onRequest: (e) => events.push(e),
    });
    strict = createRenderer({
      ...base,
      egress: createEgress({ onDial: (e) => dials.push(e) }),
      onRequest: (e) => events.push(e),
    });
  });
  afterAll(async () => {
    await allowed?.close();
    await strict?.close();
    await server?.close();
  });

  const hostile = () =>
    `<!DOCTYPE html><html><head>
<meta http-equiv="refresh" content="0;url=${server.url}/navigated">
<link rel="prefetch" href="${server.url}/prefetch">
<link rel="preconnect" href="http://203.0.113.5/">
<script src="${server.url}/script.js"></script>
</head><body style="margin:0;background:#fff">
<img src="http://203.0.113.5/x.png" width="10" height="10">
<img src="${server.url}/local.png" width="10" height="10">
<iframe src="${server.url}/frame"></iframe>
<video src="${server.url}/video.mp4"></video>
<p style="margin:0;height:400px">Hello</p>
</body></html>`;

  it('with loopback allowed (the test switch): fetches the loopback image through the guard, refuses the rest', async () => {
    dials.length = 0;
    events.length = 0;
    server.requests.length = 0;
    const out = await allowed.render({
      html: hostile(),
      width: 400,
      mode: 'light',
      format: 'png',
      userId: 'u1',
    });
    // As in the preview, the frame is at least 800 px tall.
    expect(out.height).toBe(800);
    expect(server.requests.map((r) => r.path)).toEqual(['/local.png']);
    // The only socket the guard opened went to loopback.
    expect(dials.length).toBeGreaterThan(0);
    expect(dials.every((d) => d.address === '127.0.0.1')).toBe(true);
    const documentation = events.filter((e) => e.url.startsWith('http://203.0.113.5/'));
    expect(documentation.length).toBeGreaterThan(0);
    expect(documentation.every((e) => e.outcome === 'refused')).toBe(true);
    expect(events.find((e) => e.url.endsWith('/local.png'))?.outcome).toBe('fetched');
    for (const path of ['/frame', '/video.mp4', '/navigated']) {
      const seen = events.filter((e) => e.url === `${server.url}${path}`);
      expect(
        seen.every((e) => e.outcome === 'blocked'),
        path,
      ).toBe(true);
    }
  });

  it('without the switch: nothing at all is contacted', async () => {
    dials.length = 0;
    events.length = 0;
    server.requests.length = 0;
    await strict.render({ html: hostile(), width: 400, mode: 'light', format: 'png', userId: 'u2' });
    expect(server.requests).toEqual([]);
    expect(server.connections).toBeGreaterThanOrEqual(0);
    expect(dials).toEqual([]);
    expect(events.filter((e) => e.outcome === 'fetched')).toEqual([]);
    expect(events.find((e) => e.url.endsWith('/local.png'))?.outcome).toBe('refused');
  });

  it('runs no script of the email: no inline script, no handler, no document.write', async () => {
    const scripted = `<!DOCTYPE html><html><head><title>Original</title>
<script>document.documentElement.style.background='rgb(255,0,0)';document.title='Changed';
document.write('<div style="height:2000px;background:red"></div>');</script></head>
<body style="margin:0;background:#ffffff" onload="document.body.style.background='rgb(0,255,0)'">
<img src="data:," onerror="document.body.style.background='rgb(0,0,255)'">
<p style="margin:0;height:1000px">Hello</p></body></html>`;
    const out = await allowed.render({
      html: scripted,
      width: 400,
      mode: 'light',
      format: 'png',
      userId: 'u3',
    });
    // document.write would have made it 3,000 px tall and red.
    expect(out.height).toBeGreaterThanOrEqual(1000);
    expect(out.height).toBeLessThan(1100);
    const image = PNG.sync.read(out.body);
    for (const [x, y] of [
      [5, 5],
      [390, 990],
    ]) {
      const at = (y! * image.width + x!) * 4;
      expect([image.data[at], image.data[at + 1], image.data[at + 2]]).toEqual([255, 255, 255]);
    }
  });

  it('cuts a very tall email at the page budget', async () => {
    const tall = '<body style="margin:0"><div style="height:50000px;background:#eee"></div></body>';
    const out = await allowed.render({ html: tall, width: 320, mode: 'light', format: 'png', userId: 'u4' });
    expect(out.truncated).toBe(true);
    expect(out.height).toBe(20_000);
  });
});
