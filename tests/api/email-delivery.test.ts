import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Email } from '../../src/shared/contract/email.ts';
import { runHousekeeping } from '../../src/server/housekeeping/housekeeping.ts';
import { handoffSlot } from '../../src/server/mail/handoff.ts';
import { startMailDelivery, type MailDelivery } from '../../src/server/mail/mail-delivery.ts';
import { poll } from '../support/poll.ts';
import { SmtpSink } from '../support/smtp-sink.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * A test send as the inboxes receive it, and as the API reports it afterwards: one message per
 * recipient, true per-recipient outcomes, and the charge. Mail goes to a real SMTP server on
 * loopback that can refuse or defer recipients one by one.
 */

interface Harness {
  ctx: TestContext;
  sink: SmtpSink;
  delivery: MailDelivery;
  /** Mails a send handed to the worker as it stored them (src/server/mail/handoff.ts). */
  handedOver: () => number;
}

/**
 * `handoff`: the app hands each send's mail to the worker, as main.ts wires them; otherwise the
 * mail is queued and the worker claims it, as a worker in another process would.
 */
async function startHarness(env: Record<string, string> = {}, { handoff = false } = {}): Promise<Harness> {
  const sink = await SmtpSink.start();
  const slot = handoffSlot();
  let handedOver = 0;
  const ctx = await createTestContext({
    env: {
      SMTP_URL: sink.url,
      MAIL_FROM: 'Proofmail <no-reply@proofmail.test>',
      FREE_SENDS_PER_MINUTE: '100',
      ...env,
    },
    deps: {
      mailHandoff: {
        reserve(count) {
          const reservation = slot.reserve(count);
          if (reservation) handedOver += count;
          return reservation;
        },
      },
    },
  });
  const delivery = await startMailDelivery({
    config: ctx.config,
    db: ctx.db,
    connectionString: ctx.databaseUrl,
    concurrency: 2,
    // Retries a few hundred milliseconds apart, so a deferred recipient is tried again promptly.
    worker: { pollIntervalMs: 200, backoff: { baseMs: 100, maxMs: 400 } },
  });
  if (handoff) slot.attach(delivery.worker);
  return { ctx, sink, delivery, handedOver: () => handedOver };
}

async function stopHarness(h: Harness | undefined): Promise<void> {
  await h?.delivery.stop({ deadlineMs: 2_000 });
  await h?.ctx.close();
  await h?.sink.stop();
}

async function sendEmail(h: Harness, u: TestUser, body: object): Promise<string> {
  const res = await h.ctx.app.inject({
    method: 'POST',
    url: '/api/email/send',
    headers: u.headers,
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ id: string }>().id;
}

const getEmail = async (h: Harness, u: TestUser, id: string): Promise<Email> => {
  const res = await h.ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: u.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Email>();
};

const UNDER_WAY = new Set(['queued', 'sending', 'retrying']);

/** The email once no recipient's delivery is under way. */
const settledEmail = (h: Harness, u: TestUser, id: string) =>
  poll(
    async () => {
      const email = await getEmail(h, u, id);
      return email.deliveries.every((d) => !UNDER_WAY.has(d.state)) ? email : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 100, what: `every delivery of ${id} to settle` },
  );

/** The email's outbox rows once none is waiting or being delivered (read from the database). */
const settledRows = (h: Harness, emailId: string) =>
  poll(
    async () => {
      const rows = await h.ctx.db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('email_id', '=', emailId)
        .execute();
      return rows.length > 0 && rows.every((r) => ['sent', 'failed', 'unconfirmed'].includes(r.state))
        ? rows
        : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 100, what: `the outbox rows of ${emailId} to settle` },
  );

const usage = async (h: Harness, u: TestUser) =>
  (await h.ctx.app.inject({ method: 'GET', url: '/api/user/usage', headers: u.headers })).json().usage as {
    emailsThisMonth: number;
    totalEmails: number;
  };

describe.each([
  ['queued for any worker', false],
  ['handed to this process’s worker', true],
])('a test send as the inboxes receive it (%s)', (_how, handoff) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({}, { handoff });
  });
  afterAll(() => stopHarness(h));
  afterEach(() => h.sink.heal());

  it('one message per recipient: exact subject, HTML, text part, Reply-To the sender, To only that recipient', async () => {
    const u = await createUser(h.ctx.db, { email: 'designer@studio.example' });
    const html =
      '<h1>Spring sale</h1><p>Hello <b>client</b>, here is <a href="https://example.com/x">the link</a>.</p>';
    const id = await sendEmail(h, u, {
      to: 'client@example.com, boss@example.org',
      subject: 'Spring sale — proof 3 ✓',
      html,
    });
    const handedOver = h.handedOver();
    const email = await settledEmail(h, u, id);
    expect(email.deliveries.map((d) => [d.to, d.state, d.attempts])).toEqual([
      ['client@example.com', 'sent', 1],
      ['boss@example.org', 'sent', 1],
    ]);
    expect(handedOver).toBe(handoff ? 2 : 0);
    expect(email.delivery).toMatchObject({ state: 'sent', error: null, uncertain: false });
    for (const d of email.deliveries) {
      const [message, ...more] = h.sink.byMessageId(d.messageId);
      expect(more).toEqual([]);
      expect(message!.envelopeTo).toEqual([d.to]);
      const parsed = await h.sink.parse(message!);
      expect(parsed.subject).toBe('Spring sale — proof 3 ✓');
      const to = Array.isArray(parsed.to) ? parsed.to : [parsed.to];
      expect(to.flatMap((t) => t!.value.map((v) => v.address))).toEqual([d.to]);
      expect(parsed.from?.value[0]?.address).toBe('no-reply@proofmail.test');
      expect(parsed.replyTo?.value[0]?.address).toBe('designer@studio.example');
      expect(parsed.messageId).toBe(d.messageId);
      expect(parsed.html).toBe(html);
      expect(parsed.text).toContain('Hello client, here is the link');
      expect(
        String(
          parsed.headers.get('content-type') &&
            (parsed.headers.get('content-type') as { value: string }).value,
        ),
      ).toBe('multipart/alternative');
    }
    expect(email.delivery.sentAt).toBe(
      email.deliveries.map((d) => d.sentAt!).sort()[1], // the later of the two
    );
  });

  it('an internationalised domain goes out as DNS and SMTP have it: envelope, To and history alike', async () => {
    const u = await createUser(h.ctx.db);
    const id = await sendEmail(h, u, { to: 'ann@bücher.example', subject: 'IDN', html: '<p>Hallo</p>' });
    const email = await settledEmail(h, u, id);
    expect(email.to).toBe('ann@xn--bcher-kva.example');
    expect(email.deliveries.map((d) => [d.to, d.state])).toEqual([['ann@xn--bcher-kva.example', 'sent']]);
    const [message] = h.sink.byMessageId(email.deliveries[0]!.messageId);
    // The worker's RCPT TO is the delivery's address; smtp-server shows a punycode domain in Unicode.
    expect(message!.envelopeTo).toEqual(['ann@bücher.example']);
    // As written in the header (a parser would show it in Unicode again).
    expect(message!.raw.toString('latin1')).toMatch(/^To: ann@xn--bcher-kva\.example\r$/m);
  });

  it('delivers the inlined HTML when asked', async () => {
    const u = await createUser(h.ctx.db);
    const id = await sendEmail(h, u, {
      to: 'client@example.com',
      html: '<style>.cta { color: #ff0000 }</style><a class="cta" href="https://example.com">Buy</a>',
      inlineCss: true,
    });
    const email = await settledEmail(h, u, id);
    const parsed = await h.sink.parse(h.sink.byMessageId(email.deliveries[0]!.messageId)[0]!);
    expect(parsed.html).toMatch(
      /<a class="cta" href="https:\/\/example.com" style="color: #ff0000;?">Buy<\/a>/,
    );
    expect(parsed.subject).toBe('Test Email');
  });

  it('per recipient: a deferred recipient is retried and sent, a refused one is shown refused, nothing reads "Sent" that was not', async () => {
    const u = await createUser(h.ctx.db, { plan: 'pro' });
    h.sink.failRcptFor('later@example.com', 451, '4.7.1 Greylisted, please try again later', 1);
    h.sink.failRcptFor(
      'nobody@example.com',
      550,
      '5.1.1 <nobody@example.com>: Recipient address rejected: User unknown',
    );
    const id = await sendEmail(h, u, {
      to: 'ok@example.com, later@example.com, nobody@example.com',
      html: '<p>x</p>',
    });
    const email = await settledEmail(h, u, id);
    expect(
      email.deliveries.map((d) => ({ to: d.to, state: d.state, attempts: d.attempts, error: d.error })),
    ).toEqual([
      { to: 'ok@example.com', state: 'sent', attempts: 1, error: null },
      { to: 'later@example.com', state: 'sent', attempts: 2, error: null },
      {
        to: 'nobody@example.com',
        state: 'failed',
        attempts: 1,
        // The server's reply, its code once (never "550 550 …").
        error: '550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown',
      },
    ]);
    expect(email.delivery).toEqual({
      state: 'partial',
      attempts: 2,
      error: 'nobody@example.com: 550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown',
      sentAt: expect.any(String) as string,
      uncertain: false,
    });
    expect(h.sink.byMessageId(email.deliveries[0]!.messageId)).toHaveLength(1);
    expect(h.sink.byMessageId(email.deliveries[1]!.messageId)).toHaveLength(1);
    expect(h.sink.byMessageId(email.deliveries[2]!.messageId)).toHaveLength(0);
    // The history row carries the same roll-up.
    const list = await h.ctx.app.inject({ method: 'GET', url: '/api/email', headers: u.headers });
    expect(list.json().items[0].delivery).toEqual(email.delivery);
    expect(list.json().items[0].deliveries).toBeUndefined();
    // Delivered to some: the send was used.
    expect(await usage(h, u)).toMatchObject({ emailsThisMonth: 1, totalEmails: 1 });
  });

  it('every recipient refused: failed, with each reply, and the send is given back', async () => {
    const u = await createUser(h.ctx.db);
    h.sink.failRcpt(550, '5.7.1 Relaying denied');
    const id = await sendEmail(h, u, { to: 'a@example.com, b@example.com', html: '<p>x</p>' });
    const email = await settledEmail(h, u, id);
    expect(email.deliveries.map((d) => d.state)).toEqual(['failed', 'failed']);
    expect(email.delivery).toMatchObject({
      state: 'failed',
      error: 'a@example.com: 550 5.7.1 Relaying denied; b@example.com: 550 5.7.1 Relaying denied',
      sentAt: null,
    });
    expect(await usage(h, u)).toMatchObject({ emailsThisMonth: 0, totalEmails: 0 });
  });

  it('a mail that could never be delivered is refused at the send, before anything is charged or queued', async () => {
    // The one door measures the message before the send is accepted, so a document the message
    // builder cannot handle never reaches the queue (the worker's own guard for such a row is in
    // tests/api/mail-outbox.test.ts).
    const u = await createUser(h.ctx.db);
    const connections = h.sink.connections;
    const deep = `${'<div>'.repeat(6_000)}deep${'</div>'.repeat(6_000)}`;
    const res = await h.ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: u.headers,
      payload: { to: 'client@example.com', html: deep },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'document_too_deep' });
    expect(res.json().error).toMatch(/6003 levels deep; the limit is 512/);
    const queued = await h.ctx.db
      .selectFrom('emails')
      .select('id')
      .where('user_id', '=', u.user.id)
      .execute();
    expect(queued).toEqual([]);
    expect(h.sink.connections).toBe(connections);
    expect(await usage(h, u)).toMatchObject({ emailsThisMonth: 0, totalEmails: 0 });
  });

  it('an email deleted while its delivery waits is hidden at once, still delivered, then purged', async () => {
    const u = await createUser(h.ctx.db, { plan: 'pro' });
    await h.sink.down();
    const id = await sendEmail(h, u, {
      to: 'client@example.com',
      subject: 'Deleted early',
      html: '<p>Still goes</p>',
    });
    const del = await h.ctx.app.inject({ method: 'DELETE', url: `/api/email/${id}`, headers: u.headers });
    expect(del.statusCode).toBe(200);
    expect(
      (await h.ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: u.headers })).statusCode,
    ).toBe(404);
    expect(
      (await h.ctx.app.inject({ method: 'GET', url: '/api/email', headers: u.headers })).json().items,
    ).toEqual([]);
    expect(
      (await h.ctx.app.inject({ method: 'DELETE', url: `/api/email/${id}`, headers: u.headers })).statusCode,
    ).toBe(404);
    // Housekeeping keeps it while the delivery needs it.
    await runHousekeeping(h.ctx.db, new Date());
    expect(await h.ctx.db.selectFrom('emails').select('id').where('id', '=', id).execute()).toHaveLength(1);

    await h.sink.up();
    const row = await poll(
      () =>
        h.ctx.db
          .selectFrom('mail_outbox')
          .selectAll()
          .where('email_id', '=', id)
          .where('state', '=', 'sent')
          .executeTakeFirst(),
      { timeoutMs: 20_000, what: 'the delivery of the deleted email' },
    );
    const parsed = await h.sink.parse(h.sink.byMessageId(row.message_id)[0]!);
    expect(parsed.subject).toBe('Deleted early');
    expect(parsed.html).toBe('<p>Still goes</p>');
    await runHousekeeping(h.ctx.db, new Date());
    expect(await h.ctx.db.selectFrom('emails').select('id').where('id', '=', id).execute()).toEqual([]);
  });
});

describe('SMTP waits follow RFC 5321, whatever the lease', () => {
  let h: Harness;
  beforeAll(async () => {
    // A short lease (renewed every 0.7 s) must not cut an SMTP wait short.
    h = await startHarness({ MAIL_LEASE_SECONDS: '2' });
  });
  afterAll(() => stopHarness(h));

  it('a relay that answers the final dot after 2.5 s gets one copy, recorded as sent and not flagged', async () => {
    const u = await createUser(h.ctx.db);
    h.sink.delayFinalReply(2_500, 1);
    const id = await sendEmail(h, u, { to: 'client@example.com', html: '<p>slow relay</p>' });
    const [row] = await settledRows(h, id);
    expect(row).toMatchObject({ state: 'sent', attempts: 1, uncertain: false });
    expect(h.sink.byMessageId(row!.message_id)).toHaveLength(1);
    expect(h.sink.dataAttempts).toBe(1);
  });
});
