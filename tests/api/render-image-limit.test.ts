import { deflateSync, crc32 } from 'node:zlib';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { createEgress } from '../../src/server/net/egress.ts';
import { createRenderer } from '../../src/server/render/renderer.ts';
import { selfSignedCert, startLoopbackServer, type LoopbackServer } from '../support/loopback-http.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * A render decodes no image too large to decode
 * (docs/decisions/0120-renderer-as-the-preview-and-fair.md, amended 2026-11-28: a bound on decoded
 * images). A 48 KB PNG of 20,000 × 20,000 pixels took Chromium 11 s and 2 GB per render; now it is
 * drawn as an empty image of its size, inline (`data:`) or fetched (from a loopback server, the
 * only kind ever contacted), and counted in `X-Render-Images-Failed`. An ordinary image is drawn.
 */

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A whole 1-bit greyscale PNG of `width` × `height` black pixels: rows of zeros, deflated. */
function blackPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([1, 0, 0, 0, 0], 8);
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(rows, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An ordinary photo-sized image, all blue. */
function bluePng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([0, 0, 255, 255], i);
  return PNG.sync.write(png);
}

const HUGE = blackPng(20_000, 20_000);
const ORDINARY = bluePng(1200, 800);
const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

/** An image shown at 600 × 600, then a green band: the rest of the email. */
const email = (src: string) =>
  '<!DOCTYPE html><html><body style="margin:0">' +
  `<img width="600" height="600" style="display:block" src="${src}">` +
  '<div style="height:100px;background:#00aa00">The rest of the email</div></body></html>';

const pixel = (body: Buffer, x: number, y: number) => {
  const image = PNG.sync.read(body);
  const at = (y * image.width + x) * 4;
  return [image.data[at], image.data[at + 1], image.data[at + 2]];
};

describe('images too large to decode', () => {
  let ctx: TestContext;
  let server: LoopbackServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(req.url === '/huge.png' ? HUGE : ORDINARY);
    });
    ctx = await createTestContext({
      env: { EGRESS_ALLOW_LOOPBACK: '1', NODE_ENV: 'test', RENDER_BUDGET_MS: '15000' },
    });
    user = await createUser(ctx.db);
    // Chromium is started by the first render: the timings below are the renders'.
    const warm = await get(`/api/email/${await store('<p>Warm</p>')}/export.png?width=600`);
    expect(warm.statusCode).toBe(200);
  });
  afterAll(async () => {
    await ctx?.close();
    await server?.close();
  });

  async function store(html: string): Promise<string> {
    const { id } = await insertEmail(ctx.db, {
      userId: user.user.id,
      to: 'client@example.com',
      subject: 'Images',
      html,
      inlineCss: false,
      createdAt: new Date(),
    });
    return id;
  }
  const get = (url: string) => ctx.app.inject({ method: 'GET', url, headers: user.headers });

  it.each([
    ['inline, as a data: URL', () => dataUrl(HUGE)],
    ['fetched through the egress guard', () => `${server.url}/huge.png`],
  ])(
    'a 48 KB PNG of 20,000 × 20,000 pixels %s: rendered at once without it, and counted',
    async (_name, src) => {
      expect(HUGE.length).toBeLessThan(50_000);
      const html = email(src());
      const id = await store(html);
      const started = Date.now();
      const res = await get(`/api/email/${id}/export.png?width=600`);
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(res.headers['x-render-images-failed']).toBe('1');
      // Its place is kept (600 × 600), and the rest of the email is there, below it.
      expect(res.headers['x-render-height']).toBe('800');
      expect(pixel(res.rawPayload, 300, 650)).toEqual([0, 170, 0]);
      expect(pixel(res.rawPayload, 300, 300)).not.toEqual([0, 0, 0]);
      // History's thumbnail renders it the same way.
      const thumbStarted = Date.now();
      expect((await get(`/api/email/${id}/thumbnail.png`)).statusCode).toBe(200);
      expect(Date.now() - thumbStarted).toBeLessThan(5_000);
      // Only what Chromium draws changed: the email as stored and exported is as it was sent.
      const exported = await get(`/api/email/${id}/export.html`);
      expect(exported.body).toContain(html);
    },
  );

  it.each([
    ['inline, as a data: URL', () => dataUrl(ORDINARY)],
    ['fetched through the egress guard', () => `${server.url}/ordinary.png`],
  ])('an ordinary 1200 × 800 image %s is drawn', async (_name, src) => {
    const id = await store(email(src()).replace('height="600"', 'height="400"'));
    const res = await get(`/api/email/${id}/export.png?width=600`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['x-render-images-failed']).toBe('0');
    expect(pixel(res.rawPayload, 300, 200)).toEqual([0, 0, 255]);
    expect(pixel(res.rawPayload, 300, 450)).toEqual([0, 170, 0]);
  });

  it('inline images over the limit in CSS, srcset and background attributes are each left out and counted', async () => {
    // Four different images: a distinct URL counts once.
    const [a, b, c, d] = [20_000, 19_999, 19_998, 19_997].map((h) => dataUrl(blackPng(20_000, h)));
    const id = await store(
      '<!DOCTYPE html><html><head><style>.c{background:url(' +
        c +
        ') no-repeat;width:600px;height:50px}</style></head><body style="margin:0">' +
        `<div style="background-image:url('${a}');width:600px;height:50px"></div>` +
        `<img srcset="${b} 1x, ${dataUrl(ORDINARY)} 2x" width="600" height="50" style="display:block">` +
        `<div class="c"></div><table background="${d}" width="600"><tr><td height="50">x</td></tr></table>` +
        '<div style="height:100px;background:#00aa00">The rest of the email</div></body></html>',
    );
    const started = Date.now();
    const res = await get(`/api/email/${id}/export.png?width=600`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.headers['x-render-images-failed']).toBe('4');
    expect(pixel(res.rawPayload, 300, 250)).toEqual([0, 170, 0]);
  });
});

describe('images too large to decode in a fetched style sheet or SVG image', () => {
  it('are left out and counted, and the rest of the style sheet applies', async () => {
    // Style sheets are fetched over https only: a loopback server with its own certificate, under
    // a name only the guard's resolver knows (Chromium resolves nothing; `route` answers it).
    const pair = selfSignedCert('assets.test');
    const [inCss, inSvg] = [20_000, 19_999].map((h) => dataUrl(blackPng(20_000, h)));
    const server = await startLoopbackServer((req, res) => {
      if (req.url === '/style.css') {
        res.writeHead(200, { 'content-type': 'text/css' });
        res.end(
          `.hero{background:url(${inCss});width:600px;height:300px}.band{height:100px;background:#00aa00}`,
        );
      } else {
        res.writeHead(200, { 'content-type': 'image/svg+xml' });
        res.end(
          `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><image href="${inSvg}" width="600" height="300"/></svg>`,
        );
      }
    }, pair);
    const renderer = createRenderer({
      chromiumPath: null,
      searchPath: process.env.PATH ?? '',
      egress: createEgress({
        allowLoopback: true,
        ca: pair.cert,
        resolver: async () => [{ address: '127.0.0.1', family: 4 }],
      }),
      pages: 1,
      budgetMs: 15_000,
    });
    try {
      const base = `https://assets.test:${server.port}`;
      const html =
        `<!DOCTYPE html><html><head><link rel="stylesheet" href="${base}/style.css"></head>` +
        `<body style="margin:0"><div class="hero"></div><img src="${base}/nested.svg" style="display:block">` +
        '<div class="band"></div></body></html>';
      await renderer.render({ html: '<p>Warm</p>', width: 600, mode: 'light', format: 'png', userId: 'css' });
      const started = Date.now();
      const out = await renderer.render({ html, width: 600, mode: 'light', format: 'png', userId: 'css' });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(server.requests.map((r) => r.path).sort()).toEqual(['/nested.svg', '/style.css']);
      expect(out.imagesFailed).toBe(2);
      expect(pixel(out.body, 300, 650)).toEqual([0, 170, 0]);
    } finally {
      await renderer.close();
      await server.close();
    }
  });
});
