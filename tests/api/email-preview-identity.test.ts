import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailDelivery, type MailDelivery } from '../../src/server/mail/mail-delivery.ts';
import { SmtpSink } from '../support/smtp-sink.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * The one door (docs/architecture.md §9): a preview is byte for byte what a send delivers. Each case
 * previews a body, sends the same body, reads the delivered message at a real SMTP server on
 * loopback, and compares the parts, the size, and the rebuilt `message.eml`.
 */
describe('preview = what a send delivers', () => {
  let ctx: TestContext;
  let sink: SmtpSink;
  let delivery: MailDelivery;
  let user: TestUser;
  beforeAll(async () => {
    sink = await SmtpSink.start();
    ctx = await createTestContext({
      env: {
        SMTP_URL: sink.url,
        MAIL_FROM: 'Proofmail Studio <no-reply@proofmail.test>',
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
    user = await createUser(ctx.db, { email: 'designer@studio.example' });
  });
  afterAll(async () => {
    await delivery?.stop({ deadlineMs: 2_000 });
    await ctx?.close();
    await sink?.stop();
  });

  async function previewThenSend(body: Record<string, unknown>) {
    const preview = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/preview',
      headers: user.headers,
      payload: body,
    });
    expect(preview.statusCode, preview.body).toBe(200);
    const sent = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: user.headers,
      payload: body,
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const id: string = sent.json().id;
    const row = await ctx.db
      .selectFrom('mail_outbox')
      .select(['id', 'message_id'])
      .where('email_id', '=', id)
      .executeTakeFirstOrThrow();
    await sink.waitUntil(() => sink.byMessageId(row.message_id).length > 0, 20_000, 'the mail at the sink');
    const received = sink.byMessageId(row.message_id)[0]!;
    return { preview: preview.json(), id, deliveryId: row.id, received, parsed: await sink.parse(received) };
  }

  const newsletter = `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">
<style type="text/css">
@import url('https://fonts.googleapis.com/css?family=Nunito+Sans');
#outlook a { padding: 0; }
.ExternalClass { width: 100%; }
.button { background: #0a7; color: #fff; padding: 12px 18px; }
h1 { font-family: "Nunito Sans", Arial, sans-serif; font-size: 28px }
@media (max-width: 600px) { .wide { width: 100% !important } }
</style></head>
<body><div style="display:none">Spring is here — 20 % off${'&zwnj;&nbsp;'.repeat(30)}</div>
<table class="wide" width="600"><tr><td><h1>Grüße aus Zürich ✓</h1>
<p style="font-family: &quot;Nunito Sans&quot;, Arial">A line long enough to need soft breaks in quoted-printable encoding, ${'and then some more words '.repeat(8)}.</p>
<p>.A line that starts with a dot, and a tab\there.</p>
<a class="button" href="https://example.com/sale?utm_source=proofmail&amp;x=1">Shop the sale</a></td></tr></table></body></html>`;

  it.each([
    [
      'a newsletter with Inline CSS',
      { to: 'client@example.com', subject: 'Spring sale — 20 % off ✓', html: newsletter, inlineCss: true },
    ],
    [
      'the same without inlining',
      { to: 'client@example.com', subject: 'Spring sale', html: newsletter, inlineCss: false },
    ],
    [
      'a subject that reads like an encoded word',
      { to: 'client@example.com', subject: 'Use =?UTF-8?B?SGk=?= in headers', html: '<p>Hi</p>' },
    ],
    [
      'a fragment with its own text part',
      { to: 'client@example.com', html: '<p>Hi\r\nthere</p>', text: 'My own text\r\n\r\n-- \r\nStudio' },
    ],
    [
      // MJML gives these ids of its own drawing (src/server/prepare/mjml.ts).
      'MJML with a navbar and a carousel',
      {
        to: 'client@example.com',
        subject: 'Menu',
        format: 'mjml',
        html: `<mjml><mj-body><mj-section><mj-column>
          <mj-navbar hamburger="hamburger"><mj-navbar-link href="https://example.com/a">A</mj-navbar-link></mj-navbar>
          <mj-carousel><mj-carousel-image src="https://example.com/1.jpg" /><mj-carousel-image src="https://example.com/2.jpg" /></mj-carousel>
        </mj-column></mj-section></mj-body></mjml>`,
      },
    ],
    [
      'MJML with Liquid merge tags, a loop of sections and a filled subject, inlined',
      {
        to: 'client@example.com',
        subject: 'Your order, {{ customer.first_name }} — {{ items.size }} items',
        format: 'mjml',
        inlineCss: true,
        template: {
          syntax: 'liquid',
          data: {
            customer: { first_name: 'Zoë & Co' },
            items: [
              { title: 'Notebook <A5>', price: 12 },
              { title: 'Pen', price: 3 },
            ],
          },
        },
        html: `<mjml><mj-head><mj-style>.total { font-weight: bold }</mj-style></mj-head><mj-body>
          {% for item in items %}<mj-section><mj-column><mj-text>{{ item.title }}: {{ item.price | times: 1.2 }}</mj-text></mj-column></mj-section>{% endfor %}
          <mj-section><mj-column><mj-text css-class="total">{% if coupon %}{{ coupon }}{% else %}No coupon{% endif %}</mj-text></mj-column></mj-section>
        </mj-body></mjml>`,
      },
    ],
  ])('%s: same HTML part, text part and size', async (_name, body) => {
    const { preview, received, parsed } = await previewThenSend(body);
    // The parts as the recipient's mail program decodes them. MIME carries CRLF line ends; the
    // API answers with LF ones.
    const lf = (s: string | false | undefined) => (typeof s === 'string' ? s.replace(/\r\n/g, '\n') : s);
    expect(lf(parsed.html)).toBe(preview.html);
    expect(lf(parsed.text)).toBe(preview.text);
    expect(parsed.subject).toBe(preview.subject);
    // One recipient: the delivered message is exactly the size the preview measured.
    expect(received.raw.length).toBe(preview.bytes.message);
  });

  it('stores the message as sent and rebuilds its exact bytes as message.eml', async () => {
    const body = { to: 'client@example.com', subject: 'Kept', html: newsletter, inlineCss: true };
    const { preview, id, deliveryId, received } = await previewThenSend(body);

    const detail = (
      await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: user.headers })
    ).json();
    expect(detail.source).toEqual({
      format: 'html',
      html: newsletter,
      subject: 'Kept',
      inlineCss: true,
      text: null,
    });
    expect(detail.html).toBe(preview.html);
    expect(detail.text).toBe(preview.text);
    expect(detail.bytes).toEqual({ html: preview.bytes.html, message: received.raw.length });
    const names = detail.headers.map((h: { name: string }) => h.name);
    expect(names).toEqual(['From', 'Reply-To', 'Subject', 'MIME-Version', 'Content-Type']);
    expect(detail.headers[0]).toEqual({ name: 'From', value: 'Proofmail Studio <no-reply@proofmail.test>' });

    for (const url of [
      `/api/email/${id}/message.eml`,
      `/api/email/${id}/message.eml?delivery=${deliveryId}`,
    ]) {
      const eml = await ctx.app.inject({ method: 'GET', url, headers: user.headers });
      expect(eml.statusCode).toBe(200);
      expect(eml.headers['content-type']).toBe('message/rfc822');
      expect(eml.headers['content-disposition']).toBe(`attachment; filename="email-${id}.eml"`);
      expect(eml.rawPayload.equals(received.raw)).toBe(true);
    }
  });
});
