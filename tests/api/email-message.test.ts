import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { enqueueMail } from '../../src/server/mail/outbox.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/** What was written and what was sent: GET /api/email/{id} and GET /api/email/{id}/message.eml. */
describe('an email keeps its source and the message as sent', () => {
  let ctx: TestContext;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: {
        MAIL_FROM: 'Proofmail <no-reply@proofmail.test>',
        FREE_SENDS_PER_MINUTE: '100',
        FREE_MONTHLY_LIMIT: '100',
      },
    });
    alice = await createUser(ctx.db, { email: 'alice@studio.example' });
    bob = await createUser(ctx.db);
  });
  afterAll(async () => ctx?.close());

  const send = async (u: TestUser, body: object): Promise<string> => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: u.headers,
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().id;
  };
  const get = (u: TestUser | undefined, url: string) =>
    ctx.app.inject({ method: 'GET', url, headers: u?.headers });

  it('returns the source as written, the options, the text part, the shared headers and sizes', async () => {
    const html =
      '<style>.cta { color: red } a:hover { color: blue }</style><a class="cta" href="https://example.com">Buy</a>';
    const id = await send(alice, {
      to: 'client@example.com',
      subject: 'Sale',
      html,
      inlineCss: true,
      text: 'Buy now:\nhttps://example.com',
    });
    const res = await get(alice, `/api/email/${id}`);
    expect(res.statusCode).toBe(200);
    const email = res.json();
    expect(email.source).toEqual({
      format: 'html',
      html,
      subject: email.subject,
      inlineCss: true,
      text: 'Buy now:\nhttps://example.com',
    });
    expect(email.html).toBe(
      '<style>\na:hover { color: blue }\n</style><a class="cta" href="https://example.com" style="color: red;">Buy</a>',
    );
    expect(email.text).toBe('Buy now:\nhttps://example.com');
    expect(email.headers).toEqual([
      { name: 'From', value: 'Proofmail <no-reply@proofmail.test>' },
      { name: 'Reply-To', value: 'alice@studio.example' },
      { name: 'Subject', value: 'Sale' },
      { name: 'MIME-Version', value: '1.0' },
      {
        name: 'Content-Type',
        value: expect.stringMatching(/^multipart\/alternative; boundary="--_NmP-[0-9a-f]{24}-Part_1"$/),
      },
    ]);
    expect(email.bytes.html).toBe(Buffer.byteLength(email.html));
    expect(email.bytes.message).toBeGreaterThan(email.bytes.html);
    // The history row stays a summary.
    const list = (await get(alice, '/api/email')).statusCode;
    expect([200, 403]).toContain(list);
  });

  it('keeps the source once: without inlining it is the HTML as sent', async () => {
    const html = '<p>Plain</p>';
    const id = await send(alice, { to: 'client@example.com', html });
    const row = await ctx.db
      .selectFrom('emails')
      .select(['source_html', 'html', 'text_part'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ source_html: null, html, text_part: 'Plain' });
    const email = (await get(alice, `/api/email/${id}`)).json();
    // Sent without a subject ("Test Email"): as written, it was empty.
    expect(email.source).toEqual({ format: 'html', html, subject: '', inlineCss: false, text: null });
    expect(email.text).toBe('Plain');
  });

  it('rebuilds the text part, headers and size of an email stored before they were kept', async () => {
    const email = await insertEmail(ctx.db, {
      userId: alice.user.id,
      to: 'old@example.com',
      subject: 'Old',
      html: '<p>From before</p>',
      inlineCss: false,
      createdAt: new Date('2026-01-05T10:00:00Z'),
    });
    await enqueueMail(
      ctx.db,
      {
        priority: 'free',
        to: ['old@example.com'],
        replyTo: alice.user.email,
        emailId: email.id,
      },
      { messageIdDomain: 'proofmail.test' },
    );
    const res = (await get(alice, `/api/email/${email.id}`)).json();
    expect(res.source).toEqual({
      format: 'html',
      html: '<p>From before</p>',
      subject: res.subject,
      inlineCss: false,
      text: null,
    });
    expect(res.text).toBe('From before');
    expect(res.headers.map((h: { name: string }) => h.name)).toEqual([
      'From',
      'Reply-To',
      'Subject',
      'MIME-Version',
      'Content-Type',
    ]);
    expect(res.bytes.message).toBeGreaterThan(300);
    const eml = await get(alice, `/api/email/${email.id}/message.eml`);
    expect(eml.statusCode).toBe(200);
    const parsed = await simpleParser(eml.rawPayload);
    expect(parsed.text?.trim()).toBe('From before');
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : '').toBe('old@example.com');
  });

  it('message.eml: the delivered message of a recipient, as an attachment', async () => {
    const id = await send(alice, { to: 'client@example.com', subject: 'Eml', html: '<p>x</p>' });
    const outbox = await ctx.db
      .selectFrom('mail_outbox')
      .select(['id', 'message_id'])
      .where('email_id', '=', id)
      .executeTakeFirstOrThrow();
    const res = await get(alice, `/api/email/${id}/message.eml?delivery=${outbox.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('message/rfc822');
    expect(res.headers['cache-control']).toBe('no-store');
    const parsed = await simpleParser(res.rawPayload);
    expect(parsed.messageId).toBe(outbox.message_id);
    expect(parsed.subject).toBe('Eml');
  });

  it('answers 401 without a session', async () => {
    const id = await send(alice, { to: 'client@example.com', html: '<p>x</p>' });
    expect((await get(undefined, `/api/email/${id}`)).statusCode).toBe(401);
    const eml = await get(undefined, `/api/email/${id}/message.eml`);
    expect(eml.statusCode).toBe(401);
    expect(eml.json()).toEqual({ error: 'Not authenticated', code: 'unauthenticated' });
  });

  it("answers 404 for another user's email or delivery, and for ids that are not ids", async () => {
    const id = await send(alice, { to: 'client@example.com', html: '<p>x</p>' });
    const other = await send(bob, { to: 'client@example.com', html: '<p>y</p>' });
    const othersDelivery = await ctx.db
      .selectFrom('mail_outbox')
      .select('id')
      .where('email_id', '=', other)
      .executeTakeFirstOrThrow();
    const bobAsksAlice = await get(bob, `/api/email/${id}`);
    expect(bobAsksAlice.statusCode).toBe(404);
    const bobAsksAlicesEml = await get(bob, `/api/email/${id}/message.eml`);
    expect(bobAsksAlicesEml.statusCode).toBe(404);
    expect(bobAsksAlicesEml.json()).toEqual({ error: 'Email not found', code: 'not_found' });
    const aliceAsksBobs = await get(alice, `/api/email/${other}/message.eml?delivery=${othersDelivery.id}`);
    expect(aliceAsksBobs.statusCode).toBe(404);
    expect(aliceAsksBobs.json()).toEqual({ error: 'Delivery not found', code: 'not_found' });
    // Alice's email with Bob's delivery id: not hers.
    const mixed = await get(alice, `/api/email/${id}/message.eml?delivery=${othersDelivery.id}`);
    expect(mixed.statusCode).toBe(404);
    expect((await get(alice, '/api/email/not-a-uuid/message.eml')).statusCode).toBe(404);
    expect((await get(alice, `/api/email/${id}/message.eml?delivery=nope`)).statusCode).toBe(404);
  });

  it('ignores query parameters it does not know, as every query string does (decision 0114)', async () => {
    const id = await send(alice, { to: 'client@example.com', html: '<p>x</p>' });
    const res = await get(alice, `/api/email/${id}/message.eml?recipient=x`);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals((await get(alice, `/api/email/${id}/message.eml`)).rawPayload)).toBe(true);
  });
});
