import { randomUUID } from 'node:crypto';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RENDER_MESSAGES } from '../../src/shared/contract/render.ts';
import { startMailDelivery, type MailDelivery } from '../../src/server/mail/mail-delivery.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-http.ts';
import { SmtpSink } from '../support/smtp-sink.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { rendersCharged } from '../support/render-limit.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * Exports and the pixel comparison (src/server/features/email/export.routes.ts) with the real
 * renderer (Debian's Chromium) and a real SMTP sink on loopback: the files are the bytes that were
 * sent, the renders have the asked size and mode, and the pixel diff reports exactly the known
 * changes.
 */

const png = (body: Buffer) => PNG.sync.read(body);
const pixel = (image: PNG, x: number, y: number) => {
  const at = (y * image.width + x) * 4;
  return [image.data[at], image.data[at + 1], image.data[at + 2]];
};

const page = (inner: string, head = '') =>
  `<!DOCTYPE html><html><head><meta charset="utf-8">${head}</head>` +
  `<body style="margin:0;font:16px/24px sans-serif;color:#222;background:#ffffff">${inner}</body></html>`;
const paragraphsOf = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => `<p style="margin:0 24px 16px">Paragraph ${i + 1}: the same words in every version.</p>`,
  ).join('');
const paragraphs = paragraphsOf(30);
const BOX = '<div style="margin:24px;width:200px;height:80px;background:#2a6ee8"></div>';
const BANNER = '<div style="height:120px;background:#ff8800;color:#fff;font-size:40px">SALE</div>';

describe('exports and pixel comparison', () => {
  let ctx: TestContext;
  let sink: SmtpSink;
  let delivery: MailDelivery;
  let user: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    ctx = await createTestContext({
      env: {
        SMTP_URL: sink.url,
        FREE_SENDS_PER_MINUTE: '100',
        FREE_MONTHLY_LIMIT: '1000',
      },
    });
    delivery = await startMailDelivery({
      config: ctx.config,
      db: ctx.db,
      connectionString: ctx.databaseUrl,
      concurrency: 2,
      worker: { pollIntervalMs: 200 },
    });
    user = await createUser(ctx.db);
    other = await createUser(ctx.db);
  });
  afterAll(async () => {
    await delivery?.stop({ deadlineMs: 2_000 });
    await ctx?.close();
    await sink?.stop();
  });

  async function send(html: string, who = user): Promise<string> {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: who.headers,
      payload: { to: 'client@example.com', subject: 'Round', html },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().id;
  }

  const get = (url: string, headers: Record<string, string> = user.headers) =>
    ctx.app.inject({ method: 'GET', url, headers });

  it('export.html and export.eml are the bytes that were sent', async () => {
    const html = page(`<h1>Grüße ✓</h1>${paragraphs}`, '<style>h1{color:#c00}</style>');
    const id = await send(html);
    const row = await ctx.db
      .selectFrom('mail_outbox')
      .select('message_id')
      .where('email_id', '=', id)
      .executeTakeFirstOrThrow();
    await sink.waitUntil(() => sink.byMessageId(row.message_id).length > 0, 20_000, 'the mail at the sink');
    const received = sink.byMessageId(row.message_id)[0]!;
    const parsed = await sink.parse(received);

    const eml = await get(`/api/email/${id}/export.eml`);
    expect(eml.statusCode).toBe(200);
    expect(eml.headers['content-type']).toBe('message/rfc822');
    expect(eml.headers['content-disposition']).toBe(`attachment; filename="email-${id}.eml"`);
    expect(eml.rawPayload.equals(received.raw)).toBe(true);
    // The alias answers what message.eml answers.
    expect(eml.rawPayload.equals((await get(`/api/email/${id}/message.eml`)).rawPayload)).toBe(true);

    const file = await get(`/api/email/${id}/export.html`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="email-${id}.html"`);
    const detail = (await get(`/api/email/${id}`)).json();
    expect(file.body).toBe(detail.html);
    // The HTML part the recipient's mail program decodes (MIME carries CRLF line ends).
    expect(file.rawPayload.equals(Buffer.from((parsed.html as string).replace(/\r\n/g, '\n')))).toBe(true);
  });

  it('export.html of an email declaring another charset starts with a byte order mark, so it opens as sent', async () => {
    const latin = `<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"></head><body><p>Café € “quotes”</p></body></html>`;
    const id = await send(latin);
    const detail = (await get(`/api/email/${id}`)).json();
    const file = await get(`/api/email/${id}/export.html`);
    expect(file.statusCode).toBe(200);
    // The MIME header said UTF-8; on disk only a BOM can say it, and it overrides the <meta>.
    expect([...file.rawPayload.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(file.rawPayload.subarray(3).toString('utf8')).toBe(detail.html);
    // A declaration in a comment does not count, as for the browser.
    const commented = await send(latin.replace('<head>', '<head><!-- old: <meta charset="utf-8"> -->'));
    expect([...(await get(`/api/email/${commented}/export.html`)).rawPayload.subarray(0, 3)]).toEqual([
      0xef, 0xbb, 0xbf,
    ]);
    // Plain ASCII needs no mark whatever it declares.
    const ascii = await send(latin.replace('Café € “quotes”', 'Cafe'));
    const plain = await get(`/api/email/${ascii}/export.html`);
    expect(plain.rawPayload[0]).toBe(0x3c);
  });

  it('renders a PNG at the asked width and the full height, and a PDF', async () => {
    const id = await send(page(`<div style="height:3000px;background:#eef">tall</div>`));
    const res = await get(`/api/email/${id}/export.png?width=600`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="email-${id}-600-light.png"`);
    const image = png(res.rawPayload);
    expect(image.width).toBe(600);
    expect(image.height).toBe(3000);
    expect(res.headers['x-render-height']).toBe('3000');

    const narrow = png((await get(`/api/email/${id}/export.png?width=375&mode=light`)).rawPayload);
    expect([narrow.width, narrow.height]).toEqual([375, 3000]);

    const pdf = await get(`/api/email/${id}/export.pdf?width=600&mode=dark`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('says how wide the content is when it overflows the asked width, and that no image failed', async () => {
    const wide = await send(
      page(
        '<table width="1000" cellpadding="0" cellspacing="0"><tr><td style="height:40px">Wide</td></tr></table>',
      ),
    );
    for (const format of ['png', 'pdf']) {
      const res = await get(`/api/email/${wide}/export.${format}?width=600`);
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['x-render-content-width'], format).toBe('1000');
      expect(res.headers['x-render-images-failed'], format).toBe('0');
    }
    // The render keeps the asked width: the preview scrolls to the rest.
    expect(png((await get(`/api/email/${wide}/export.png?width=600`)).rawPayload).width).toBe(600);
    const fits = await send(page('<p>Fits</p>'));
    const res = await get(`/api/email/${fits}/export.png?width=600`);
    expect(res.headers['x-render-content-width']).toBe('600');
  });

  it('renders Dark with the email’s own dark styles, as the preview does', async () => {
    const id = await send(
      page(
        '<p style="margin:0;padding:24px">Hello</p>',
        '<meta name="color-scheme" content="light dark"><style>@media (prefers-color-scheme: dark){body{background:#000033 !important;color:#fff !important}}</style>',
      ),
    );
    const light = png((await get(`/api/email/${id}/export.png?width=400&mode=light`)).rawPayload);
    const dark = png((await get(`/api/email/${id}/export.png?width=400&mode=dark`)).rawPayload);
    expect(pixel(light, 390, 5)).toEqual([255, 255, 255]);
    expect(pixel(dark, 390, 5)).toEqual([0, 0, 51]);
    // An email that declares no dark support keeps its light canvas in Dark (as Apple Mail does).
    const plain = await send('<p>No colour scheme</p>');
    const plainDark = png((await get(`/api/email/${plain}/export.png?width=400&mode=dark`)).rawPayload);
    expect(pixel(plainDark, 390, 5)).toEqual([255, 255, 255]);
  });

  describe('pixel diff of known changes', () => {
    async function compare(before: string, after: string) {
      const [left, right] = [await send(before), await send(after)];
      const res = await get(`/api/email/${left}/compare/${right}/pixels?width=600&mode=light`);
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const body = res.json();
      expect(body.image).toMatch(/^data:image\/png;base64,/);
      const highlight = png(Buffer.from(body.image.split(',')[1], 'base64'));
      expect([highlight.width, highlight.height]).toEqual([600, body.rightHeight]);
      return body;
    }

    it('a changed word: one small region around it', async () => {
      const lead = (word: string) =>
        `<p style="margin:0 24px 16px;padding-top:200px">The ${word} offer ends on Friday.</p>`;
      const body = await compare(page(lead('spring') + paragraphs), page(lead('summer') + paragraphs));
      expect(body.leftHeight).toBe(body.rightHeight);
      expect(body.regions).toHaveLength(1);
      const [region] = body.regions;
      expect(region.side).toBe('both');
      expect(region.top).toBeGreaterThanOrEqual(200);
      expect(region.top + region.height).toBeLessThanOrEqual(224);
      // From the word to the end of its line (the words after it moved), nothing else.
      expect(region.left).toBeGreaterThanOrEqual(24);
      expect(region.left).toBeLessThan(80);
      expect(region.width).toBeLessThan(300);
    });

    it('an inserted banner that shifts the rest: only the banner’s rows', async () => {
      const header = '<p style="margin:0;padding:16px 24px">Header</p>';
      const body = await compare(page(header + paragraphs), page(header + BANNER + paragraphs));
      expect(body.rightHeight - body.leftHeight).toBe(120);
      expect(body.regions).toHaveLength(1);
      const [region] = body.regions;
      expect(region.side).toBe('right');
      expect(region.height).toBe(120);
      // Header is 56 px tall; rows identical to the header's last rows may pair either way.
      expect(region.top).toBeGreaterThanOrEqual(40);
      expect(region.top).toBeLessThanOrEqual(56);
    });

    it('a banner inserted at the top of an email shorter than the frame: only the banner', async () => {
      // Eight paragraphs: about 320 px.
      const short = paragraphsOf(8);
      const body = await compare(page(short), page(BANNER + short));
      // Both renders fill the frame's 800 px; the canvas the banner took is not a removal.
      expect([body.leftHeight, body.rightHeight]).toEqual([800, 800]);
      expect(body.regions).toEqual([{ side: 'right', top: 0, height: 120, left: 0, width: 600 }]);
    });

    it('a colour change: that box only', async () => {
      const before = page(paragraphs.slice(0, 400) + BOX + paragraphs);
      const after = page(paragraphs.slice(0, 400) + BOX.replace('#2a6ee8', '#e82a6e') + paragraphs);
      const body = await compare(before, after);
      expect(body.regions).toHaveLength(1);
      const [region] = body.regions;
      expect(region.side).toBe('both');
      expect([region.left, region.width, region.height]).toEqual([24, 200, 80]);
    });

    it('identical emails: no region', async () => {
      const body = await compare(page(paragraphs), page(paragraphs));
      expect(body.regions).toEqual([]);
    });
  });

  it('answers a thumbnail, small, stored with the email: again costs no render and nothing from the limit', async () => {
    const id = await send(page(paragraphs));
    const renders = () => rendersCharged(ctx.db);
    const first = await get(`/api/email/${id}/thumbnail.png`);
    expect(first.statusCode).toBe(200);
    const image = png(first.rawPayload);
    expect(image.width).toBe(300);
    expect(image.height).toBeLessThanOrEqual(400);
    const stored = await ctx.db
      .selectFrom('email_thumbnails')
      .select(['mode', 'png'])
      .where('email_id', '=', id)
      .execute();
    expect(stored.map((t) => t.mode)).toEqual(['light']);
    expect(stored[0]!.png.equals(first.rawPayload)).toBe(true);

    const before = await renders();
    const again = await get(`/api/email/${id}/thumbnail.png`);
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(await renders()).toBe(before);
    const dark = await get(`/api/email/${id}/thumbnail.png?mode=dark`);
    expect(dark.statusCode).toBe(200);
    expect(await renders()).toBe(before + 1);
    expect((await get(`/api/email/${id}/thumbnail.png`, other.headers)).statusCode).toBe(404);

    // Deleting the email takes its thumbnails with it, whether its row goes now or is only hidden
    // while a delivery still reads it.
    const deleted = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/email/${id}`,
      headers: user.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await get(`/api/email/${id}/thumbnail.png`)).statusCode).toBe(404);
    const hiddenId = await send(page('<p>Hidden</p>'));
    expect((await get(`/api/email/${hiddenId}/thumbnail.png`)).statusCode).toBe(200);
    await ctx.db.updateTable('emails').set({ deleted_at: new Date() }).where('id', '=', hiddenId).execute();
    const left = await ctx.db
      .selectFrom('email_thumbnails')
      .select('email_id')
      .where('email_id', 'in', [id, hiddenId])
      .execute();
    expect(left).toEqual([]);
  });

  describe('validation, authentication and ownership', () => {
    let id: string;
    let otherId: string;
    beforeAll(async () => {
      id = await send(page('<p>Mine</p>'));
      otherId = await send(page('<p>Theirs</p>'), other);
    });

    it.each([
      ['width=abc', `width: ${RENDER_MESSAGES.width}`],
      ['width=100', `width: ${RENDER_MESSAGES.width}`],
      ['width=1601', `width: ${RENDER_MESSAGES.width}`],
      ['width=600.5', `width: ${RENDER_MESSAGES.width}`],
      ['mode=blue', `mode: ${RENDER_MESSAGES.mode}`],
      ['mode=forced-dark', `mode: ${RENDER_MESSAGES.mode}`],
    ])('%s → 400 naming the parameter', async (query, message) => {
      for (const url of [
        `/api/email/${id}/export.png?${query}`,
        `/api/email/${id}/export.pdf?${query}`,
        `/api/email/${id}/compare/${id}/pixels?${query}`,
      ]) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().error, url).toBe(message);
      }
    });

    it('ignores a parameter it does not know, and still checks those it takes (decision 0114)', async () => {
      const res = await get(`/api/email/${id}/export.png?height=5&width=320`);
      expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
      expect(png(res.rawPayload).width).toBe(320);
      expect((await get(`/api/email/${id}/export.png?height=5&width=abc`)).statusCode).toBe(400);
    });

    it('401 without a session, before validation', async () => {
      for (const url of [
        `/api/email/${id}/export.png?width=abc`,
        `/api/email/${id}/export.pdf`,
        `/api/email/${id}/export.html`,
        `/api/email/${id}/export.eml`,
        `/api/email/${id}/thumbnail.png`,
        `/api/email/${id}/compare/${id}/pixels`,
      ]) {
        expect((await ctx.app.inject({ method: 'GET', url })).statusCode, url).toBe(401);
      }
    });

    it('404 for another user’s email and a missing one, as for any email', async () => {
      for (const missing of [otherId, randomUUID(), 'not-a-uuid']) {
        for (const url of [
          `/api/email/${missing}/export.png`,
          `/api/email/${missing}/export.pdf`,
          `/api/email/${missing}/export.html`,
          `/api/email/${missing}/export.eml`,
          `/api/email/${missing}/thumbnail.png`,
          `/api/email/${missing}/compare/${id}/pixels`,
          `/api/email/${id}/compare/${missing}/pixels`,
        ]) {
          const res = await get(url);
          expect(res.statusCode, url).toBe(404);
          expect(res.json().error, url).toBe('Email not found');
        }
      }
    });

    it('opens to a personal API key, like the other email reads', async () => {
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/api/keys',
        headers: user.headers,
        payload: { name: 'export' },
      });
      expect(created.statusCode, created.body).toBe(200);
      const key = { authorization: `Bearer ${created.json().key}` };
      expect((await get(`/api/email/${id}/export.html`, key)).statusCode).toBe(200);
      expect((await get(`/api/email/${id}/export.png?width=320`, key)).statusCode).toBe(200);
    });
  });
});

describe('renders with images that never answer', () => {
  // A short budget: each render of such an email holds its page for most of it.
  const BUDGET_MS = 4_000;
  let ctx: TestContext;
  let server: LoopbackServer;
  let flood: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    // Images on a loopback server that never answers (only loopback is ever contacted).
    server = await startLoopbackServer(() => undefined);
    ctx = await createTestContext({
      env: {
        FREE_SENDS_PER_MINUTE: '100',
        FREE_MONTHLY_LIMIT: '1000',
        RENDER_BUDGET_MS: String(BUDGET_MS),
        EGRESS_ALLOW_LOOPBACK: '1',
        NODE_ENV: 'test',
      },
    });
    flood = await createUser(ctx.db);
    other = await createUser(ctx.db);
  });
  afterAll(async () => {
    await ctx?.close();
    await server?.close();
  });

  async function send(html: string, who: TestUser): Promise<string> {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: who.headers,
      payload: { to: 'client@example.com', subject: 'Round', html },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().id;
  }
  const exportPng = (id: string, who: TestUser) =>
    ctx.app.inject({ method: 'GET', url: `/api/email/${id}/export.png?width=400`, headers: who.headers });
  const stuck = (n: number) =>
    page(
      `<img src="${server.url}/never-${n}.png" width="200" height="200" style="display:block"><p>Email ${n}</p>`,
    );

  it('answers within the budget, without the image, and says one image did not load', async () => {
    const id = await send(stuck(0), flood);
    const started = Date.now();
    const res = await exportPng(id, flood);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(Date.now() - started).toBeLessThan(BUDGET_MS + 1_000);
    expect(res.headers['x-render-images-failed']).toBe('1');
    expect(server.requests.map((r) => r.path)).toContain('/never-0.png');
  });

  it('a flood of one user’s renders neither blocks another user nor fills the queue: beyond its share, 429', async () => {
    // Sent one after another: the transform queue has a share per user too.
    const ids: string[] = [];
    for (let i = 1; i <= 12; i++) ids.push(await send(stuck(i), flood));
    const mine = await send(page('<p>One line</p>'), other);
    const charged = await rendersCharged(ctx.db);
    server.requests.length = 0;
    const floods = ids.map((id) => exportPng(id, flood));
    // Both pages are taken by the flood.
    for (const started = Date.now(); server.requests.length < 2;) {
      if (Date.now() - started > 10_000) throw new Error('the flood’s renders did not start');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const started = Date.now();
    const res = await exportPng(mine, other);
    const waited = Date.now() - started;
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    // At most one of the flood's renders before it: never the whole flood.
    expect(waited).toBeLessThan(2 * BUDGET_MS);

    const answers = await Promise.all(floods);
    const refused = answers.filter((a) => a.statusCode === 429);
    // Two running and four waiting; the rest turned away at once.
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(6);
    expect(refused).toHaveLength(6);
    for (const answer of refused) {
      expect(answer.json()).toEqual({
        error: 'You have too many renders waiting at once. Wait for them to finish, then try again.',
        code: 'too_many_renders',
      });
      expect(answer.headers['retry-after']).toBe('5');
    }
    // The turned-away renders cost nothing from the render limit.
    expect(await rendersCharged(ctx.db)).toBe(charged + 7);
  }, 60_000);
});

describe('renderer off', () => {
  let ctx: TestContext;
  let user: TestUser;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CHROMIUM_PATH: '/nonexistent/chromium' } });
    user = await createUser(ctx.db);
  });
  afterAll(() => ctx?.close());

  it('answers 503 renderer_unavailable with the way to turn it on, says so at start and in /api/config', async () => {
    const sent = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: user.headers,
      payload: { to: 'client@example.com', html: '<p>Hi</p>' },
    });
    const id: string = sent.json().id;
    for (const url of [
      `/api/email/${id}/export.png`,
      `/api/email/${id}/export.pdf?width=800&mode=dark`,
      `/api/email/${id}/thumbnail.png`,
      `/api/email/${id}/compare/${id}/pixels`,
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: user.headers });
      expect(res.statusCode, url).toBe(503);
      expect(res.json(), url).toEqual({ error: RENDER_MESSAGES.unavailable, code: 'renderer_unavailable' });
    }
    // The files that need no renderer still work.
    const html = await ctx.app.inject({
      method: 'GET',
      url: `/api/email/${id}/export.html`,
      headers: user.headers,
    });
    expect(html.statusCode).toBe(200);
    expect(ctx.logs()).toMatch(
      /Renderer off .*CHROMIUM_PATH \(\/nonexistent\/chromium\) is not an executable file/,
    );
    expect((await ctx.app.inject({ method: 'GET', url: '/api/config' })).json().renderer).toBe(false);
  });
});
