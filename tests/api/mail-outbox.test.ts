import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, type Clock } from '../../src/server/clock.ts';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import { enqueueMail, type OutgoingMail } from '../../src/server/mail/outbox.ts';
import {
  claimDue,
  markFinalDot,
  markFinalDotAndSent,
  type OutboxRow,
} from '../../src/server/mail/outbox.repo.ts';
import { OutboxWorker, type OutboxWorkerOptions } from '../../src/server/mail/outbox-worker.ts';
import type { SmtpTimeouts } from '../../src/server/mail/smtp-session.ts';
import { createSmtpTransport, type MailTransport } from '../../src/server/mail/transport.ts';
import { poll } from '../support/poll.ts';
import { SmtpSink } from '../support/smtp-sink.ts';
import { createTestDatabase } from '../support/test-db.ts';
import { createUser } from '../support/users.ts';

const MAIL_FROM = 'Proofmail Team <no-reply@proofmail.test>';
const DOMAIN = 'proofmail.test';

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let sink: SmtpSink;
const running: { worker: OutboxWorker; transport: MailTransport }[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(createPool(database.url, 8));
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});
beforeEach(async () => {
  await sql`truncate mail_outbox`.execute(db);
  await sql`delete from emails`.execute(db);
  sink = await SmtpSink.start();
});
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.worker.stop({ deadlineMs: 1_000 });
    r.transport.close();
  }
  await sink.stop();
});

interface StartOptions extends Partial<Omit<OutboxWorkerOptions, 'db' | 'transport'>> {
  timeouts?: Partial<SmtpTimeouts>;
}

/** RFC 5321's waits, shrunk for tests (each still far above what a loopback server needs). */
const TEST_TIMEOUTS: SmtpTimeouts = {
  connectMs: 1_000,
  greetingMs: 1_000,
  mailMs: 2_000,
  rcptMs: 2_000,
  dataInitMs: 1_000,
  dataBlockMs: 2_000,
  dataTerminationMs: 3_000,
};

/** A worker with test-sized timings: short backoff, lease and timeouts, fast poll. */
function startWorker(options: StartOptions = {}): OutboxWorker {
  const { timeouts, ...workerOptions } = options;
  const concurrency = options.concurrency ?? 2;
  const transport = createSmtpTransport({
    url: sink.url,
    mailFrom: MAIL_FROM,
    maxConnections: concurrency,
    timeouts: { ...TEST_TIMEOUTS, ...timeouts },
  });
  const worker = new OutboxWorker({
    db,
    transport,
    concurrency,
    listenConnectionString: database.url,
    leaseMs: 6_000,
    pollIntervalMs: 200,
    backoff: { baseMs: 40, maxMs: 200 },
    ...workerOptions,
  });
  worker.start();
  running.push({ worker, transport });
  return worker;
}

function mail(overrides: Partial<OutgoingMail> = {}): OutgoingMail {
  return {
    priority: 'free',
    to: ['ada@example.com'],
    subject: 'Hello',
    html: '<p>Hello <b>there</b></p>',
    ...overrides,
  } as OutgoingMail;
}

const enqueueAll = (m: Partial<OutgoingMail> = {}) =>
  enqueueMail(db, { ...mail(), ...m } as OutgoingMail, { messageIdDomain: DOMAIN });
/** One recipient: its one queued message. */
const enqueue = async (m: Partial<OutgoingMail> = {}) => (await enqueueAll(m))[0]!;

async function row(id: string): Promise<OutboxRow> {
  return db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

async function settled(id: string, timeoutMs = 15_000): Promise<OutboxRow> {
  return poll(
    async () => {
      const r = await row(id);
      return r.state === 'sent' || r.state === 'failed' || r.state === 'unconfirmed' ? r : undefined;
    },
    { timeoutMs, what: `mail ${id} to be sent or failed` },
  );
}

describe('delivery', () => {
  it('delivers one message per recipient: To names only that recipient, each with its own Message-ID', async () => {
    startWorker();
    const html =
      '<html><head><style>p{color:red}</style></head><body><h1>Résumé ✓</h1>' +
      '<p>Open <a href="https://example.com/verify?t=1">your link</a></p></body></html>';
    const queued = await enqueueAll({
      to: ['ada@example.com', 'grace@example.org'],
      replyTo: 'client@example.net',
      subject: 'Ünïcode subject — ✓',
      html,
    });
    expect(queued.map((q) => q.to)).toEqual(['ada@example.com', 'grace@example.org']);
    expect(new Set(queued.map((q) => q.messageId)).size).toBe(2);
    for (const { id, messageId, to } of queued) {
      expect(messageId).toMatch(/^<[0-9a-f-]{36}@proofmail\.test>$/);
      const r = await settled(id);
      expect(r).toMatchObject({
        state: 'sent',
        attempts: 1,
        uncertain: false,
        last_error: null,
        lease_until: null,
      });
      expect(r.to_addresses).toEqual([to]);
      expect(r.locked_by).toMatch(/:\d+:[0-9a-f]{8}$/); // the worker that delivered it
      expect(r.sent_at).toBeInstanceOf(Date);

      const [received, ...more] = sink.byMessageId(messageId);
      expect(more).toEqual([]);
      expect(received!.envelopeFrom).toBe('no-reply@proofmail.test');
      expect(received!.envelopeTo).toEqual([to]);
      const parsed = await sink.parse(received!);
      expect(parsed.messageId).toBe(messageId);
      expect(parsed.from?.value).toEqual([{ name: 'Proofmail Team', address: 'no-reply@proofmail.test' }]);
      const toHeader = Array.isArray(parsed.to)
        ? parsed.to.flatMap((t) => t.value)
        : (parsed.to?.value ?? []);
      expect(toHeader.map((a) => a.address)).toEqual([to]);
      expect(parsed.cc).toBeUndefined();
      expect(parsed.replyTo?.value.map((a) => a.address)).toEqual(['client@example.net']);
      expect(parsed.subject).toBe('Ünïcode subject — ✓');
      expect(parsed.html).toContain('<h1>Résumé ✓</h1>');
      expect(parsed.html).toContain('href="https://example.com/verify?t=1"');
      // The text part was generated from the HTML (no <style> text, the link kept).
      expect(parsed.text).toContain('RÉSUMÉ ✓');
      expect(parsed.text).toContain('your link [https://example.com/verify?t=1]');
      expect(parsed.text).not.toContain('color:red');
      expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' });
      expect(parsed.headers.has('x-mailer')).toBe(false);
    }
    expect(sink.messages).toHaveLength(2);
  });

  it("a user's send stores its content once: every recipient's row reads the email row", async () => {
    const u = await createUser(db);
    const email = await db
      .insertInto('emails')
      .values({
        user_id: u.user.id,
        to_addresses: 'ada@example.com, bob@example.com',
        subject: 'Stored once',
        html: '<p>Only here</p>',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    startWorker();
    const queued = await enqueueMail(
      db,
      {
        priority: 'pro',
        to: ['ada@example.com', 'bob@example.com'],
        replyTo: u.user.email,
        emailId: email.id,
      },
      { messageIdDomain: DOMAIN },
    );
    const rows = await db.selectFrom('mail_outbox').selectAll().where('email_id', '=', email.id).execute();
    expect(rows.map((r) => [r.subject, r.html, r.text])).toEqual([
      [null, null, null],
      [null, null, null],
    ]);
    for (const q of queued) {
      expect((await settled(q.id)).state).toBe('sent');
      const parsed = await sink.parse(sink.byMessageId(q.messageId)[0]!);
      expect(parsed.subject).toBe('Stored once');
      expect(parsed.html).toBe('<p>Only here</p>');
      expect(parsed.text?.trim()).toBe('Only here');
      expect(parsed.replyTo?.value[0]?.address).toBe(u.user.email);
    }
  });

  it('sends a given text part as is, and keeps a header injection attempt in the subject on one line', async () => {
    startWorker();
    const { id, messageId } = await enqueue({
      subject: 'Hi\r\nBcc: victim@example.com',
      text: 'Plain words, exactly.',
    });
    await settled(id);
    const parsed = await sink.parse(sink.byMessageId(messageId)[0]!);
    expect(parsed.text?.trim()).toBe('Plain words, exactly.');
    expect(parsed.subject).toBe('Hi Bcc: victim@example.com');
    expect(parsed.bcc).toBeUndefined();
    expect(sink.messages[0]!.envelopeTo).toEqual(['ada@example.com']);
  });

  it('wakes on NOTIFY without waiting for the poll, and again after the LISTEN connection is killed', async () => {
    const worker = startWorker({ pollIntervalMs: 60_000 });
    // Let the listener connect (its connect also triggers one claim), then enqueue.
    await poll(async () => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where application_name = 'proofmail-outbox-listener' and datname = current_database()`.execute(db);
      return rows[0]!.n > 0;
    });
    const first = await enqueue();
    expect((await settled(first.id, 5_000)).state).toBe('sent');

    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = 'proofmail-outbox-listener' and datname = current_database()`.execute(db);
    await poll(
      async () => {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where application_name = 'proofmail-outbox-listener' and datname = current_database()`.execute(db);
        return rows[0]!.n > 0;
      },
      { what: 'the listener to reconnect' },
    );
    const second = await enqueue();
    expect((await settled(second.id, 5_000)).state).toBe('sent');
    expect(worker.activeCount).toBe(0);
  });
});

describe('wake-ups', () => {
  it('a burst of Free mail (coalesced NOTIFYs) is delivered without waiting for the poll', async () => {
    startWorker({ pollIntervalMs: 60_000 });
    await poll(async () => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where application_name = 'proofmail-outbox-listener' and datname = current_database()`.execute(db);
      return rows[0]!.n > 0;
    });
    // Each in its own transaction, all within a few milliseconds: most get no NOTIFY of their own.
    const queued = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        db
          .transaction()
          .execute((trx) => enqueueMail(trx, mail({ subject: `burst ${i}` }), { messageIdDomain: DOMAIN })),
      ),
    );
    await sink.waitForCount(12, 5_000);
    for (const [q] of queued) expect(sink.byMessageId(q!.messageId)).toHaveLength(1);
  });
});

describe('priority', () => {
  it('claims system before Pro before Free, then oldest first', async () => {
    const free1 = await enqueue({ priority: 'free', subject: 'free 1' });
    const pro1 = await enqueue({ priority: 'pro', subject: 'pro 1' });
    const free2 = await enqueue({ priority: 'free', subject: 'free 2' });
    const system1 = await enqueue({ priority: 'system', subject: 'system 1' });
    const pro2 = await enqueue({ priority: 'pro', subject: 'pro 2' });
    const order: string[] = [];
    for (;;) {
      const now = new Date(Date.now() + 1_000);
      const [r] = await claimDue(db, {
        workerId: 't',
        limit: 1,
        now,
        leaseUntil: new Date(now.getTime() + 60_000),
      });
      if (!r) break;
      order.push(r.id);
    }
    expect(order).toEqual([system1.id, pro1.id, pro2.id, free1.id, free2.id]);
  });

  it('delivers a new system and Pro mail before a backlog of 500 Free mails behind a slow server', async () => {
    // Slow enough that few mails finish while the two are enqueued and announced, even on a busy
    // machine (at 8 ms a message, a full test run once saw 8 go by, the slack's edge).
    sink.dataDelayMs = 30;
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 500; i++) {
        await enqueueMail(trx, mail({ subject: `free ${i}` }), { messageIdDomain: DOMAIN });
      }
    });
    const concurrency = 2;
    startWorker({ concurrency });
    await sink.waitForCount(25);
    const deliveredBefore = sink.messages.length;
    const pro = await enqueue({ priority: 'pro', subject: 'pro mail' });
    const system = await enqueue({ priority: 'system', subject: 'system mail' });
    await sink.waitUntil(
      () => sink.byMessageId(pro.messageId).length > 0 && sink.byMessageId(system.messageId).length > 0,
      30_000,
      'the Pro and system mail',
    );
    const position = (messageId: string) => sink.messages.findIndex((m) => m.messageId === messageId);
    // At most the mails already in flight (plus the few delivered while we enqueued) went first.
    const slack = concurrency * 2 + 4;
    expect(position(pro.messageId)).toBeLessThan(deliveredBefore + slack);
    expect(position(system.messageId)).toBeLessThan(deliveredBefore + slack);
    const freeDelivered = sink.messages.filter(
      (m) => m.messageId !== pro.messageId && m.messageId !== system.messageId,
    ).length;
    expect(500 - freeDelivered).toBeGreaterThan(400); // the backlog is still there
  });
});

describe('bounded buffer', () => {
  /** The most leases each worker held at once, sampled in the database while `during` runs. */
  async function sampleLeases(during: Promise<unknown>): Promise<Map<string, number>> {
    const most = new Map<string, number>();
    let done = false;
    void during.finally(() => (done = true));
    while (!done) {
      const { rows } = await sql<{ locked_by: string; n: number }>`
        select locked_by, count(*)::int as n from mail_outbox where state = 'sending' group by locked_by`.execute(
        db,
      );
      for (const r of rows) most.set(r.locked_by, Math.max(most.get(r.locked_by) ?? 0, r.n));
      await new Promise((r) => setTimeout(r, 10));
    }
    await during;
    return most;
  }

  it('a stream of Pro mail overtakes a full buffer without growing it, and a second worker gets work', async () => {
    sink.dataDelayMs = 60;
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 60; i++)
        await enqueueMail(trx, mail({ subject: `free ${i}` }), { messageIdDomain: DOMAIN });
    });
    const concurrency = 2;
    const a = startWorker({ concurrency });
    await sink.waitForCount(2);
    const b = startWorker({ concurrency });
    const heldByA: number[] = [];
    const run = (async () => {
      const pro: string[] = [];
      for (let i = 0; i < 20; i++) {
        pro.push((await enqueue({ priority: 'pro', subject: `pro ${i}` })).messageId);
        heldByA.push(a.heldCount);
        await new Promise((r) => setTimeout(r, 15));
      }
      await sink.waitUntil(
        () => pro.every((id) => sink.byMessageId(id).length > 0),
        30_000,
        'every Pro mail',
      );
      return pro;
    })();
    const most = await sampleLeases(run);
    const pro = await run;
    // Never more than three rounds of leases per worker, whatever the priority.
    expect(Math.max(...most.values())).toBeLessThanOrEqual(concurrency * 3);
    expect(Math.max(...heldByA)).toBeLessThanOrEqual(concurrency * 3);
    // Priority mail went ahead of the Free backlog.
    const position = (id: string) => sink.messages.findIndex((m) => m.messageId === id);
    const lastPro = Math.max(...pro.map(position));
    expect(sink.messages.length - lastPro).toBeGreaterThan(0);
    const freeLeft = await db
      .selectFrom('mail_outbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '!=', 'sent')
      .executeTakeFirstOrThrow();
    expect(Number(freeLeft.n)).toBeGreaterThan(0); // the Pro stream did not wait for the backlog
    // Both workers delivered.
    const byWorker = await db
      .selectFrom('mail_outbox')
      .select(['locked_by', (eb) => eb.fn.countAll<number>().as('n')])
      .where('state', '=', 'sent')
      .groupBy('locked_by')
      .execute();
    expect(new Set(byWorker.map((r) => r.locked_by))).toEqual(new Set([a.workerId, b.workerId]));
  });
});

describe('faults', () => {
  it('SMTP down then up: retried with backoff, then all delivered, none failed', async () => {
    await sink.down();
    startWorker();
    const ids = await Promise.all([1, 2, 3, 4, 5].map((i) => enqueue({ subject: `down ${i}` })));
    // Each mail is retried while the server refuses connections.
    await poll(
      async () => {
        const rows = await db.selectFrom('mail_outbox').selectAll().execute();
        return rows.every((r) => r.attempts >= 2) && rows;
      },
      { what: 'a couple of refused attempts' },
    );
    const waiting = await db.selectFrom('mail_outbox').selectAll().execute();
    expect(waiting.every((r) => r.state !== 'failed' && r.state !== 'sent')).toBe(true);
    // Each has at least one recorded refusal (a row may be mid-attempt right now).
    for (const r of waiting) expect(r.last_error).toMatch(/refused the connection/);

    await sink.up();
    for (const { id } of ids) expect((await settled(id)).state).toBe('sent');
    const rows = await db.selectFrom('mail_outbox').selectAll().execute();
    expect(rows.filter((r) => r.state === 'failed')).toEqual([]);
    expect([...sink.counts().values()]).toEqual([1, 1, 1, 1, 1]);
    expect(rows.every((r) => !r.uncertain)).toBe(true);
  });

  it('4xx at RCPT: retried, then delivered', async () => {
    sink.failRcpt(451, '4.7.1 Greylisted, please try again later', 1);
    startWorker();
    const { id, messageId } = await enqueue();
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'sent', attempts: 2, uncertain: false });
    expect(sink.byMessageId(messageId)).toHaveLength(1);
  });

  it('5xx at RCPT: failed after one attempt, with the code and the server text stored', async () => {
    sink.failRcpt(550, '5.1.1 <nobody@example.com>: Recipient address rejected: User unknown');
    startWorker();
    const { id } = await enqueue({ to: ['nobody@example.com'] });
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'failed', attempts: 1, last_error_code: 550, uncertain: false });
    expect(r.last_error).toContain('Recipient address rejected: User unknown');
    expect(r.last_error).toMatch(/^550 /);
    expect(sink.messages).toHaveLength(0);
  });

  it('per recipient: a 4xx retries only that recipient, a 5xx fails only that recipient, the others are sent once', async () => {
    sink.failRcptFor('ada@example.com', 451, '4.7.1 Greylisted, please try again later', 1);
    sink.failRcptFor(
      'bob@example.com',
      550,
      '5.1.1 <bob@example.com>: Recipient address rejected: User unknown',
    );
    startWorker();
    const [ada, bob, cy] = await enqueueAll({ to: ['ada@example.com', 'bob@example.com', 'cy@example.com'] });
    expect(await settled(ada!.id)).toMatchObject({
      state: 'sent',
      attempts: 2,
      uncertain: false,
      last_error: null,
    });
    expect(await settled(bob!.id)).toMatchObject({
      state: 'failed',
      attempts: 1,
      last_error_code: 550,
      uncertain: false,
    });
    expect((await row(bob!.id)).last_error).toBe(
      '550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown',
    );
    expect(await settled(cy!.id)).toMatchObject({ state: 'sent', attempts: 1 });
    expect(sink.byMessageId(ada!.messageId)).toHaveLength(1);
    expect(sink.byMessageId(bob!.messageId)).toHaveLength(0);
    expect(sink.byMessageId(cy!.messageId)).toHaveLength(1);
    expect(sink.rcptAttempts.filter((a) => a === 'ada@example.com')).toHaveLength(2);
    expect(sink.rcptAttempts.filter((a) => a === 'bob@example.com')).toHaveLength(1);
    expect(sink.rcptAttempts.filter((a) => a === 'cy@example.com')).toHaveLength(1);
  });

  it('5xx after DATA: failed after one attempt with the reply stored', async () => {
    sink.failData(554, '5.7.1 Message rejected as spam');
    startWorker();
    const { id } = await enqueue();
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'failed', attempts: 1, last_error_code: 554 });
    expect(r.last_error).toContain('5.7.1 Message rejected as spam');
    expect(sink.dataAttempts).toBe(1);
  });

  it('connection dropped mid-DATA: retried and delivered, not flagged (no final dot, so nothing was accepted)', async () => {
    sink.dropMidData(1);
    startWorker();
    // The sink cuts the connection as the message starts; a large one is still being written then.
    const { id, messageId } = await enqueue({ html: `<p>${'x'.repeat(4_000_000)}</p>`, text: 'x' });
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'sent', attempts: 2, uncertain: false, uncertain_attempts: 0 });
    expect(sink.dataAttempts).toBe(2);
    expect(sink.byMessageId(messageId)).toHaveLength(1);
  });

  it('connection lost after the message was taken: delivered twice, and only that row is flagged', async () => {
    sink.dropAfterData(1);
    startWorker();
    const lost = await enqueue({ subject: 'reply lost' });
    expect(await settled(lost.id)).toMatchObject({ state: 'sent', attempts: 2, uncertain: true });
    const fine = await enqueue({ subject: 'fine' });
    expect(await settled(fine.id)).toMatchObject({ state: 'sent', attempts: 1, uncertain: false });
    expect(sink.byMessageId(lost.messageId)).toHaveLength(2);
    expect(sink.byMessageId(fine.messageId)).toHaveLength(1);
  });

  it('a final reply slower than the old 30 s-style cap but within RFC 5321 time: one copy, sent, not flagged', async () => {
    sink.delayFinalReply(1_500, 1);
    startWorker({ timeouts: { dataTerminationMs: 4_000 } });
    const { id, messageId } = await enqueue();
    expect(await settled(id)).toMatchObject({ state: 'sent', attempts: 1, uncertain: false });
    expect(sink.byMessageId(messageId)).toHaveLength(1);
    expect(sink.dataAttempts).toBe(1);
  });

  it('no answer to the final dot, twice: one retry at most, then unconfirmed (two copies, never more)', async () => {
    sink.delayFinalReply(2_500);
    startWorker({ timeouts: { dataTerminationMs: 400 } });
    const { id, messageId } = await enqueue();
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'unconfirmed', attempts: 2, uncertain: true, uncertain_attempts: 2 });
    expect(r.last_error).toMatch(
      /did not confirm the message within 400 ms after the whole message was sent; the server may have accepted it/,
    );
    await sink.waitUntil(() => sink.byMessageId(messageId).length === 2, 5_000, 'both copies');
    await new Promise((resolve) => setTimeout(resolve, 600)); // well past the retry backoff
    expect(sink.byMessageId(messageId)).toHaveLength(2);
    expect(sink.dataAttempts).toBe(2);
  });

  it('a RCPT answer slower than the envelope timeout: retried, not flagged, one copy', async () => {
    sink.delayRcpt(1_500, 1);
    startWorker({ timeouts: { mailMs: 150, rcptMs: 150, dataInitMs: 100 } });
    const { id, messageId } = await enqueue();
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'sent', attempts: 2, uncertain: false });
    expect(r.last_error).toBeNull();
    expect(sink.byMessageId(messageId)).toHaveLength(1);
  });

  it('a message that cannot be built (text conversion overflows) fails at once, without contacting the server', async () => {
    startWorker();
    const deep = `${'<div>'.repeat(6_000)}deep${'</div>'.repeat(6_000)}`;
    const { id } = await enqueue({ html: deep });
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'failed', attempts: 1, last_error_code: null, uncertain: false });
    expect(r.last_error).toMatch(
      /^This email could not be turned into a message \(.*\); sending it again cannot help$/,
    );
    expect(sink.connections).toBe(0);
  });

  it('greeting slower than the timeout: retried, then delivered', async () => {
    sink.delayGreeting(1_500, 1);
    startWorker({ concurrency: 1, timeouts: { greetingMs: 300 } });
    const { id, messageId } = await enqueue();
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'sent', attempts: 2, uncertain: false });
    expect(sink.connections).toBeGreaterThanOrEqual(2);
    expect(sink.byMessageId(messageId)).toHaveLength(1);
  });

  it('a pooled connection the server has closed is replaced at once, not retried after a backoff', async () => {
    startWorker({ concurrency: 1, backoff: { baseMs: 60_000, maxMs: 60_000 } });
    const first = await enqueue({ subject: 'opens the connection' });
    expect(await settled(first.id)).toMatchObject({ state: 'sent', attempts: 1 });
    const connections = sink.connections;
    // The server ends the idle session the pool kept: its next MAIL FROM gets a 421.
    sink.failMailFrom(421, '4.4.2 Idle timeout, closing connection', 1);
    const second = await enqueue({ subject: 'finds it closed' });
    expect(await settled(second.id, 5_000)).toMatchObject({ state: 'sent', attempts: 1, uncertain: false });
    expect(sink.connections).toBe(connections + 1);
  });

  it('keeps the same Message-ID on every attempt', async () => {
    sink.failData(451, '4.3.0 Temporary failure', 2);
    startWorker();
    const { id, messageId } = await enqueue();
    expect(await settled(id)).toMatchObject({ state: 'sent', attempts: 3 });
    expect(sink.dataAttempts).toBe(3);
    expect(sink.messages.map((m) => m.messageId)).toEqual([messageId]);
  });
});

describe('age, leases and shutdown', () => {
  it('fails a mail that is older than the maximum age without sending it', async () => {
    const { id } = await enqueue();
    const clock: Clock = new ManualClock(new Date(Date.now() + 25 * 3_600_000));
    startWorker({ clock, maxAgeMs: 24 * 3_600_000 });
    const r = await settled(id);
    expect(r.state).toBe('failed');
    expect(r.last_error).toMatch(/^Not delivered within 24 hours/);
    expect(sink.dataAttempts).toBe(0);
  });

  it('gives up when the next retry would pass the maximum age, keeping the last error', async () => {
    await sink.down();
    // The first retry would come 5–10 s after the refused attempt, past the 4 s limit: one attempt,
    // then the give-up. (A limit of 600 ms was shorter than a worker's start on a busy machine,
    // and the mail then failed for its age before any attempt, the test above.)
    startWorker({ maxAgeMs: 4_000, backoff: { baseMs: 10_000, maxMs: 10_000 } });
    const { id } = await enqueue();
    const r = await settled(id);
    expect(r.state).toBe('failed');
    expect(r.attempts).toBe(1);
    expect(r.last_error).toMatch(/^Not delivered within 4 seconds \(1 attempt\); last error: /);
    expect(r.last_error).toMatch(/refused|connect/i);
  });

  it("returns a dead worker's expired lease to the queue and delivers it, unflagged when it never sent the final dot", async () => {
    const { id, messageId } = await enqueue();
    const past = new Date(Date.now() - 1_000);
    const [claimed] = await claimDue(db, {
      workerId: 'dead-worker',
      limit: 1,
      now: new Date(),
      leaseUntil: past,
    });
    expect(claimed?.id).toBe(id);
    startWorker({ leaseMs: 300 });
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'sent', attempts: 2, uncertain: false, uncertain_attempts: 0 });
    expect(sink.byMessageId(messageId)).toHaveLength(1);
  });

  it("flags a dead worker's mail only if it had sent the final dot; a second such loss ends unconfirmed", async () => {
    const first = await enqueue({ subject: 'dot sent' });
    const second = await enqueue({ subject: 'dot sent, second time' });
    await db
      .updateTable('mail_outbox')
      .set({ uncertain: true, uncertain_attempts: 1 })
      .where('id', '=', second.id)
      .execute();
    const past = new Date(Date.now() - 1_000);
    const claimed = await claimDue(db, {
      workerId: 'dead-worker',
      limit: 2,
      now: new Date(),
      leaseUntil: past,
    });
    expect(claimed).toHaveLength(2);
    expect(await markFinalDot(db, { workerId: 'dead-worker', ids: [first.id, second.id] })).toEqual(
      new Set([first.id, second.id]),
    );
    startWorker({ leaseMs: 300 });
    expect(await settled(first.id)).toMatchObject({
      state: 'sent',
      attempts: 2,
      uncertain: true,
      uncertain_attempts: 1,
    });
    const r = await settled(second.id);
    expect(r).toMatchObject({ state: 'unconfirmed', uncertain: true, uncertain_attempts: 2, attempts: 1 });
    expect(r.last_error).toMatch(/after the message was handed to the mail server.*it may have arrived/);
    expect(sink.byMessageId(second.messageId)).toHaveLength(0); // not sent a third time
  });

  it('records final dots and deliveries in one statement, only on rows the worker still holds', async () => {
    const dotRow = await enqueue();
    const sentRow = await enqueue();
    const lease = () => ({ now: new Date(), leaseUntil: new Date(Date.now() + 60_000) });
    expect(await claimDue(db, { workerId: 'w1', limit: 2, ...lease() })).toHaveLength(2);
    const foreign = await enqueue();
    expect(await claimDue(db, { workerId: 'w2', limit: 1, ...lease() })).toMatchObject([{ id: foreign.id }]);
    await markFinalDot(db, { workerId: 'w1', ids: [sentRow.id] });
    const sentAt = new Date(Date.now() - 5_000);
    const held = await markFinalDotAndSent(db, {
      workerId: 'w1',
      dotIds: [dotRow.id, foreign.id],
      outcomes: [
        { id: sentRow.id, sentAt },
        { id: foreign.id, sentAt },
      ],
    });
    expect(held).toEqual({ dots: new Set([dotRow.id]), sent: new Set([sentRow.id]) });
    expect(await row(dotRow.id)).toMatchObject({ state: 'sending', locked_by: 'w1' });
    expect((await row(dotRow.id)).final_dot_at).not.toBeNull();
    expect(await row(sentRow.id)).toMatchObject({ state: 'sent', sent_at: sentAt, lease_until: null });
    // Another worker's row is neither marked nor settled.
    expect(await row(foreign.id)).toMatchObject({ state: 'sending', locked_by: 'w2', final_dot_at: null });
  });

  it('a worker that lost its lease stops before the final dot: the message is never accepted twice', async () => {
    sink.delayRcpt(800, 1);
    startWorker();
    const { id, messageId } = await enqueue();
    await poll(() => sink.rcptAttempts.length > 0, { what: 'the envelope to start' });
    // Another worker took the row over (as after an expired lease) while this attempt waited.
    await db.updateTable('mail_outbox').set({ locked_by: 'another-worker' }).where('id', '=', id).execute();
    await poll(() => sink.dataAttempts > 0, { what: 'DATA' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sink.byMessageId(messageId)).toHaveLength(0);
    expect(await row(id)).toMatchObject({
      state: 'sending',
      locked_by: 'another-worker',
      final_dot_at: null,
    });
  });

  it('renews its leases while a slow delivery runs, so nobody else takes the mail', async () => {
    sink.dataDelayMs = 1_500;
    startWorker({ leaseMs: 300, timeouts: { dataTerminationMs: 5_000 } });
    const { id, messageId } = await enqueue();
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'sent', attempts: 1, uncertain: false });
    expect(sink.byMessageId(messageId)).toHaveLength(1);
  });

  it('stop() lets in-flight mail finish within the deadline', async () => {
    sink.dataDelayMs = 400;
    const worker = startWorker();
    const { id } = await enqueue();
    await poll(() => sink.dataAttempts > 0, { what: 'the delivery to start' });
    const result = await worker.stop({ deadlineMs: 5_000 });
    expect(result).toEqual({ finished: 1, released: 0 });
    expect((await row(id)).state).toBe('sent');
  });

  it('stop() hands unfinished mail back to the queue at the deadline, flagged after the final dot, and stops claiming', async () => {
    sink.dataDelayMs = 5_000;
    const worker = startWorker({ timeouts: { dataTerminationMs: 10_000 } });
    const { id } = await enqueue();
    await poll(() => sink.messages.length > 0, { what: 'the message to be taken' });
    const started = Date.now();
    const result = await worker.stop({ deadlineMs: 600 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result).toEqual({ finished: 0, released: 1 });
    const r = await row(id);
    expect(r).toMatchObject({
      state: 'queued',
      locked_by: null,
      lease_until: null,
      attempts: 1,
      uncertain: true,
    });
    // Stopped: a new mail stays queued.
    const later = await enqueue();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await row(later.id)).state).toBe('queued');
  });

  it('stop() during the envelope hands the mail back unflagged (the final dot was never sent)', async () => {
    sink.delayRcpt(3_000, 1);
    const worker = startWorker();
    const { id } = await enqueue();
    await poll(() => sink.rcptAttempts.length > 0, { what: 'the envelope to start' });
    expect(await worker.stop({ deadlineMs: 400 })).toEqual({ finished: 0, released: 1 });
    expect(await row(id)).toMatchObject({
      state: 'queued',
      attempts: 1,
      uncertain: false,
      uncertain_attempts: 0,
    });
  });
});

describe('handing a just-stored mail to this process’s worker', () => {
  /** A worker that neither polls nor listens: only mail handed to it can reach it. */
  const handOnly = (options: StartOptions = {}) =>
    startWorker({ pollIntervalMs: 3_600_000, listenConnectionString: undefined, ...options });
  const content = { subject: 'Hello', html: '<p>Handed over</p>', text: 'Handed over' };

  it('stores the rows already claimed by the worker, which delivers them with no claim of its own', async () => {
    const worker = handOnly();
    const reservation = worker.reserve(2)!;
    expect(reservation).toBeDefined();
    const stored = await enqueueMail(db, mail({ to: ['ada@example.com', 'grace@example.org'] }), {
      messageIdDomain: DOMAIN,
      claimedBy: reservation.claim,
    });
    expect(stored.map((m) => m.row)).toEqual([
      expect.objectContaining({ state: 'sending', attempts: 1, locked_by: worker.workerId }),
      expect.objectContaining({ state: 'sending', attempts: 1, locked_by: worker.workerId }),
    ]);
    reservation.deliver(
      stored.map((m) => m.row),
      content,
    );
    for (const { id } of stored) {
      expect(await settled(id)).toMatchObject({ state: 'sent', attempts: 1, uncertain: false });
    }
    expect(sink.messages.map((m) => m.envelopeTo)).toEqual(
      expect.arrayContaining([['ada@example.com'], ['grace@example.org']]),
    );
    expect(sink.messages).toHaveLength(2);
    expect(sink.messages[0]!.raw.toString()).toContain('Handed over');
  });

  it('promises room only within its bound of three rounds held; a cancelled reservation gives it back', async () => {
    const worker = handOnly({ concurrency: 1 });
    const first = worker.reserve(3)!;
    expect(first).toBeDefined();
    expect(worker.heldCount).toBe(3);
    expect(worker.reserve(1)).toBeUndefined();
    first.cancel();
    first.cancel(); // only once
    expect(worker.heldCount).toBe(0);
    expect(worker.reserve(1)).toBeDefined();
  });

  it('a stopping worker promises nothing, and rows handed to it while it stops go back to the queue untried', async () => {
    const worker = handOnly();
    const reservation = worker.reserve(1)!;
    const [stored] = await enqueueMail(db, mail(), { messageIdDomain: DOMAIN, claimedBy: reservation.claim });
    await worker.stop({ deadlineMs: 500 });
    expect(worker.reserve(1)).toBeUndefined();
    reservation.deliver([stored!.row], content);
    await poll(async () => (await row(stored!.id)).state === 'queued', { what: 'the row to be handed back' });
    expect(await row(stored!.id)).toMatchObject({ attempts: 0, locked_by: null, lease_until: null });
    expect(sink.messages).toHaveLength(0);
  });

  it('a row whose lease ran out before the hand-over and that another worker took goes out once', async () => {
    const first = handOnly({ leaseMs: 60 });
    const reservation = first.reserve(1)!;
    const [stored] = await enqueueMail(db, mail(), { messageIdDomain: DOMAIN, claimedBy: reservation.claim });
    // The expired lease goes back to the queue, and a claim (either worker's) delivers the row.
    startWorker();
    expect(await settled(stored!.id)).toMatchObject({ state: 'sent', attempts: 2 });
    // The late hand-over of the first claim: its attempt reaches the server, but its final dot is
    // refused, so no second copy goes out.
    const envelopes = sink.rcptAttempts.length;
    reservation.deliver([stored!.row], content);
    await poll(() => first.activeCount === 0 && first.heldCount === 0, { what: 'the late attempt to end' });
    expect(sink.rcptAttempts.length).toBe(envelopes + 1);
    expect(sink.messages).toHaveLength(1);
    expect(await row(stored!.id)).toMatchObject({ state: 'sent', attempts: 2 });
  });
});
