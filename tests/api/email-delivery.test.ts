import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailDelivery, type MailDelivery } from '../../src/server/mail/mail-delivery.ts';
import { SmtpSink } from '../support/smtp-sink.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser } from '../support/users.ts';

/** What a test send delivers, parsed at a real SMTP server on loopback. */
describe('a test send as the inbox receives it', () => {
  let ctx: TestContext;
  let sink: SmtpSink;
  let delivery: MailDelivery;
  beforeAll(async () => {
    sink = await SmtpSink.start();
    ctx = await createTestContext({
      env: {
        SMTP_URL: sink.url,
        MAIL_FROM: 'Proofmail <no-reply@proofmail.test>',
        FREE_SENDS_PER_MINUTE: '100',
      },
    });
    delivery = await startMailDelivery({
      config: ctx.config,
      db: ctx.db,
      connectionString: ctx.databaseUrl,
      concurrency: 2,
      worker: { pollIntervalMs: 200 },
    });
  });
  afterAll(async () => {
    await delivery?.stop({ deadlineMs: 2_000 });
    await ctx?.close();
    await sink?.stop();
  });

  async function sendAndReceive(headers: Record<string, string>, body: object) {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/email/send', headers, payload: body });
    expect(res.statusCode, res.body).toBe(200);
    const row = await ctx.db
      .selectFrom('mail_outbox')
      .select('message_id')
      .where('email_id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    await sink.waitUntil(() => sink.byMessageId(row.message_id).length > 0, 20_000, 'the mail at the sink');
    const [message] = sink.byMessageId(row.message_id);
    return { message: message!, parsed: await sink.parse(message!), messageId: row.message_id };
  }

  it('has the exact subject, recipients, HTML, a text part, Reply-To the sender and From MAIL_FROM', async () => {
    const u = await createUser(ctx.db, { email: 'designer@studio.example' });
    const html =
      '<h1>Spring sale</h1><p>Hello <b>client</b>, here is <a href="https://example.com/x">the link</a>.</p>';
    const { message, parsed, messageId } = await sendAndReceive(u.headers, {
      to: 'client@example.com, boss@example.org',
      subject: 'Spring sale — proof 3 ✓',
      html,
    });
    expect(parsed.subject).toBe('Spring sale — proof 3 ✓');
    expect(message.envelopeTo.sort()).toEqual(['boss@example.org', 'client@example.com']);
    const to = Array.isArray(parsed.to) ? parsed.to : [parsed.to];
    expect(to.flatMap((t) => t!.value.map((v) => v.address)).sort()).toEqual([
      'boss@example.org',
      'client@example.com',
    ]);
    expect(parsed.from?.value[0]?.address).toBe('no-reply@proofmail.test');
    expect(parsed.replyTo?.value[0]?.address).toBe('designer@studio.example');
    expect(parsed.messageId).toBe(messageId);
    expect(parsed.html).toBe(html);
    expect(parsed.text).toContain('Hello client, here is the link');
    expect(
      String(
        parsed.headers.get('content-type') && (parsed.headers.get('content-type') as { value: string }).value,
      ),
    ).toBe('multipart/alternative');
  });

  it('delivers the inlined HTML when asked', async () => {
    const u = await createUser(ctx.db);
    const { parsed } = await sendAndReceive(u.headers, {
      to: 'client@example.com',
      html: '<style>.cta { color: #ff0000 }</style><a class="cta" href="https://example.com">Buy</a>',
      inlineCss: true,
    });
    expect(parsed.html).toMatch(
      /<a class="cta" href="https:\/\/example.com" style="color: #ff0000;?">Buy<\/a>/,
    );
    expect(parsed.subject).toBe('Test Email');
  });
});
