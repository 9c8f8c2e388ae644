import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

const MISSING = 'Missing required fields: Please fill in recipient email and HTML content';
const TOO_MANY = 'Too many recipients: Maximum 5 recipient email addresses allowed';

/** POST /api/email/preview: what a send of the same body would deliver, without sending. */
describe('POST /api/email/preview', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: { MAIL_FROM: 'Proofmail <no-reply@proofmail.test>', PREVIEWS_PER_MINUTE: '1000' },
    });
    ctx.clock.set(new Date('2026-03-15T12:00:00Z'));
  });
  afterAll(async () => ctx?.close());

  let alice: TestUser;
  beforeEach(async () => {
    alice = await createUser(ctx.db, {
      email: `alice-${Math.random().toString(36).slice(2, 8)}@studio.example`,
    });
  });

  const preview = (u: TestUser | undefined, body: unknown) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/email/preview',
      headers: u?.headers,
      payload: body as object,
    });
  const counts = async (userId: string) => {
    const emails = await ctx.db
      .selectFrom('emails')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    const usage = await ctx.db
      .selectFrom('usage_counters')
      .select('count')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    const rate = await ctx.db
      .selectFrom('send_rate')
      .select('count')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return { emails: Number(emails.n), month: usage?.count ?? 0, minute: rate?.count ?? 0 };
  };

  it('answers the HTML, text part, subject, sizes and notes, and spends nothing', async () => {
    const html =
      '<html><head><style>.cta { color: #ff0000 } a:hover { color: blue }</style></head>' +
      '<body><p>Hello <a class="cta" href="https://example.com/x">the link</a>.</p></body></html>';
    const res = await preview(alice, {
      to: 'client@example.com',
      subject: ' Spring\r\nsale ',
      html,
      inlineCss: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['bytes', 'checks', 'html', 'notes', 'subject', 'text']);
    expect(body.html).toMatch(/<a class="cta" href="https:\/\/example.com\/x" style="color: #ff0000;?">/);
    expect(body.html).toContain('a:hover { color: blue }');
    expect(body.text).toBe('Hello the link [https://example.com/x].');
    expect(body.subject).toBe('Spring sale');
    expect(body.notes).toEqual({ inlined: true, keptInStyle: 1 });
    expect(body.bytes.source).toBe(Buffer.byteLength(html));
    expect(body.bytes.html).toBe(Buffer.byteLength(body.html));
    // The whole message: headers, both parts, boundaries, encoding.
    expect(body.bytes.message).toBeGreaterThan(body.bytes.html + body.text.length + 300);
    expect(await counts(alice.user.id)).toEqual({ emails: 0, month: 0, minute: 0 });
  });

  it('leaves the HTML as written without Inline CSS', async () => {
    const html = '<style>p { color: red }</style><p>x</p>';
    const res = await preview(alice, { html });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      html,
      subject: 'Test Email',
      notes: { inlined: false, keptInStyle: 0 },
    });
    expect(res.json().bytes.html).toBe(res.json().bytes.source);
  });

  it('measures the message for the first recipient, or the sender without one', async () => {
    const html = '<p>x</p>';
    const short = (await preview(alice, { to: 'a@b.co, someone.much.longer@example.org', html })).json();
    const long = (await preview(alice, { to: 'someone.much.longer@example.org', html })).json();
    expect(long.bytes.message - short.bytes.message).toBe(
      'someone.much.longer@example.org'.length - 'a@b.co'.length,
    );
    const self = (await preview(alice, { html })).json();
    expect(self.bytes.message - short.bytes.message).toBe(alice.user.email.length - 'a@b.co'.length);
  });

  it("takes the user's own text part instead of the generated one", async () => {
    const res = await preview(alice, { html: '<p>Generated</p>', text: 'My own\r\ntext part' });
    expect(res.json().text).toBe('My own\ntext part');
    const blank = await preview(alice, { html: '<p>Generated</p>', text: '  \n ' });
    expect(blank.json().text).toBe('Generated');
  });

  it('lets an unverified user preview (nothing leaves the server)', async () => {
    const bob = await createUser(ctx.db, { verified: false });
    const res = await preview(bob, { html: '<p>x</p>' });
    expect(res.statusCode).toBe(200);
  });

  it('answers 401 without a session', async () => {
    const res = await preview(undefined, { html: '<p>x</p>' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Not authenticated', code: 'unauthenticated' });
  });

  it.each([[{ html: '' }], [{ to: 'a@example.com', html: '  ' }]])(
    'rejects missing HTML %j with the spec message',
    async (body) => {
      const res = await preview(alice, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: MISSING, code: 'missing_fields' });
    },
  );

  it('checks recipients when given, with the send messages', async () => {
    const six = Array.from({ length: 6 }, (_, i) => `u${i}@example.com`).join(',');
    const many = await preview(alice, { to: six, html: '<p>x</p>' });
    expect(many.statusCode).toBe(400);
    expect(many.json()).toEqual({ error: TOO_MANY, code: 'too_many_recipients' });
    const bad = await preview(alice, { to: 'Alice <a@example.com>', html: '<p>x</p>' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('invalid_recipient');
    const blank = await preview(alice, { to: ' , ', html: '<p>x</p>' });
    expect(blank.statusCode).toBe(200);
  });

  it('caps the HTML and the text part at 1 MB with a clear 413', async () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    const html = await preview(alice, { html: big });
    expect(html.statusCode).toBe(413);
    expect(html.json()).toEqual({
      error: 'HTML content is too large: the limit is 1 MB',
      code: 'html_too_large',
    });
    const text = await preview(alice, { html: '<p>x</p>', text: big });
    expect(text.statusCode).toBe(413);
    expect(text.json()).toEqual({
      error: 'Plain-text part is too large: the limit is 1 MB',
      code: 'text_too_large',
    });
  });

  it('rejects unknown fields and wrong types', async () => {
    expect((await preview(alice, { html: '<p>x</p>', userId: 'x' })).statusCode).toBe(400);
    const wrong = await preview(alice, { html: '<p>x</p>', inlineCss: 'yes' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatch(/^inlineCss: /);
  });

  it('refuses a document nested deeper than browsers nest with a 422 that names the problem', async () => {
    const html = `<style>div { color: red }</style>${'<div>'.repeat(5000)}x${'</div>'.repeat(5000)}`;
    const res = await preview(alice, { html, inlineCss: true });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('document_too_deep');
    expect(res.json().error).toMatch(/nests elements 5003 levels deep; the limit is 512/);
    // A deep but reasonable email is fine.
    const fine = `${'<table><tr><td>'.repeat(60)}x${'</td></tr></table>'.repeat(60)}`;
    expect((await preview(alice, { html: fine, inlineCss: true })).statusCode).toBe(200);
  });

  it('counts the formatting a parser reopens: 2,000 paragraphs of <b id=…> are 2,004 levels deep', async () => {
    // Each paragraph reopens every earlier <b> inside it (2,000 alike would be capped at three):
    // the inliner built 2 million elements from these 40 KB, for 5 s and 1 GB, before this was counted.
    const html = Array.from({ length: 2000 }, (_, n) => `<p><b id=${n}>x</p>`).join('');
    const res = await preview(alice, { html, inlineCss: true });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('document_too_deep');
    expect(res.json().error).toMatch(/nests elements 2004 levels deep/);
  });

  it('sees the nesting after an abrupt comment (<!-->), where the inliner’s parser sees it too', async () => {
    // 20,000 levels crash the inliner's native parser; the depth check must not be led past them.
    const html = `<style>div { color: red }</style><!-->${'<div>'.repeat(20_000)}x<!-- end -->`;
    const res = await preview(alice, { html, inlineCss: true });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('document_too_deep');
  });
});

describe('preview throttle', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { PREVIEWS_PER_MINUTE: '3' } });
    ctx.clock.set(new Date('2026-03-15T12:00:15Z'));
  });
  afterAll(async () => ctx?.close());

  it('answers 429 with Retry-After past the per-minute cap, per user', async () => {
    const u = await createUser(ctx.db);
    const other = await createUser(ctx.db);
    const preview = (who: TestUser) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/email/preview',
        headers: who.headers,
        payload: { html: '<p>x</p>' },
      });
    for (let i = 0; i < 3; i++) expect((await preview(u)).statusCode).toBe(200);
    const limited = await preview(u);
    expect(limited.statusCode).toBe(429);
    // The message and the header say the same wait.
    expect(limited.headers['retry-after']).toBe('45');
    expect(limited.json().error).toBe('Too many previews: at most 3 a minute. Try again in 45 seconds.');
    ctx.clock.advance(44_000);
    const last = await preview(u);
    expect(last.headers['retry-after']).toBe('1');
    expect(last.json().error).toBe('Too many previews: at most 3 a minute. Try again in 1 second.');
    ctx.clock.advance(1_000);
    expect((await preview(other)).statusCode).toBe(200);
    expect((await preview(u)).statusCode).toBe(200);
  });
});

describe('preview time budget', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { PREPARE_BUDGET_MS: '1500' } });
  });
  afterAll(async () => ctx?.close());

  it('stops a job over its budget with a 422, and the next job runs in a fresh process', async () => {
    const u = await createUser(ctx.db);
    // 330 KB: every rule matches every cell through the table's classes, minutes of inlining.
    const rules = Array.from(
      { length: 3000 },
      (_, i) => `.c${i} td { color: #${(i % 4096).toString(16).padStart(3, '0')} }`,
    );
    const cells = Array.from({ length: 6000 }, (_, i) => `<tr><td class="c${i % 3000}">cell ${i}</td></tr>`);
    const html = `<style>${rules.join('\n')}</style><table class="${Array.from({ length: 3000 }, (_, i) => `c${i}`).join(' ')}">${cells.join('')}</table>`;
    const slow = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/preview',
      headers: u.headers,
      payload: { html, inlineCss: true },
    });
    expect(slow.statusCode, slow.body.slice(0, 300)).toBe(422);
    expect(slow.json()).toEqual({
      code: 'processing_timeout',
      error:
        'Processing this email took longer than 1.5 seconds and was stopped. Send it without Inline CSS, or make it smaller.',
    });
    const quick = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/preview',
      headers: u.headers,
      payload: { html: '<p>x</p>' },
    });
    expect(quick.statusCode, quick.body).toBe(200);
  });
});
