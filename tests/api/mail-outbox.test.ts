import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, type Clock } from '../../src/server/clock.ts';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import { enqueueMail, type OutgoingMail } from '../../src/server/mail/outbox.ts';
import { claimDue, type OutboxRow } from '../../src/server/mail/outbox.repo.ts';
import { OutboxWorker, type OutboxWorkerOptions } from '../../src/server/mail/outbox-worker.ts';
import { createSmtpTransport, type MailTransport } from '../../src/server/mail/transport.ts';
import { poll } from '../support/poll.ts';
import { SmtpSink } from '../support/smtp-sink.ts';
import { createTestDatabase } from '../support/test-db.ts';

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
  greetingTimeoutMs?: number;
  socketTimeoutMs?: number;
}

/** A worker with test-sized timings: short backoff, lease and timeouts, fast poll. */
function startWorker(options: StartOptions = {}): OutboxWorker {
  const { greetingTimeoutMs, socketTimeoutMs, ...workerOptions } = options;
  const concurrency = options.concurrency ?? 2;
  const transport = createSmtpTransport({
    url: sink.url,
    mailFrom: MAIL_FROM,
    maxConnections: concurrency,
    connectionTimeoutMs: 1_000,
    greetingTimeoutMs: greetingTimeoutMs ?? 1_000,
    socketTimeoutMs: socketTimeoutMs ?? 3_000,
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
  };
}

const enqueue = (m: Partial<OutgoingMail> = {}) => enqueueMail(db, mail(m), { messageIdDomain: DOMAIN });

async function row(id: string): Promise<OutboxRow> {
  return db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

async function settled(id: string, timeoutMs = 15_000): Promise<OutboxRow> {
  return poll(
    async () => {
      const r = await row(id);
      return r.state === 'sent' || r.state === 'failed' ? r : undefined;
    },
    { timeoutMs, what: `mail ${id} to be sent or failed` },
  );
}

describe('delivery', () => {
  it('delivers an enqueued mail with From, To, Reply-To, Subject, HTML, text part and Message-ID intact', async () => {
    startWorker();
    const html =
      '<html><head><style>p{color:red}</style></head><body><h1>Résumé ✓</h1>' +
      '<p>Open <a href="https://example.com/verify?t=1">your link</a></p></body></html>';
    const { id, messageId } = await enqueue({
      to: ['ada@example.com', 'grace@example.org'],
      replyTo: 'client@example.net',
      subject: 'Ünïcode subject — ✓',
      html,
    });
    expect(messageId).toMatch(/^<[0-9a-f-]{36}@proofmail\.test>$/);
    const r = await settled(id);
    expect(r).toMatchObject({
      state: 'sent',
      attempts: 1,
      uncertain: false,
      last_error: null,
      lease_until: null,
    });
    expect(r.locked_by).toMatch(/:\d+:[0-9a-f]{8}$/); // the worker that delivered it
    expect(r.sent_at).toBeInstanceOf(Date);

    await sink.waitForCount(1);
    const [received] = sink.byMessageId(messageId);
    expect(received).toBeDefined();
    expect(received!.envelopeFrom).toBe('no-reply@proofmail.test');
    expect(received!.envelopeTo).toEqual(['ada@example.com', 'grace@example.org']);
    const parsed = await sink.parse(received!);
    expect(parsed.messageId).toBe(messageId);
    expect(parsed.from?.value).toEqual([{ name: 'Proofmail Team', address: 'no-reply@proofmail.test' }]);
    const to = Array.isArray(parsed.to) ? parsed.to.flatMap((t) => t.value) : (parsed.to?.value ?? []);
    expect(to.map((a) => a.address)).toEqual(['ada@example.com', 'grace@example.org']);
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
    for (const q of queued) expect(sink.byMessageId(q.messageId)).toHaveLength(1);
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
    sink.dataDelayMs = 8;
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

  it('5xx after DATA: failed after one attempt with the reply stored', async () => {
    sink.failData(554, '5.7.1 Message rejected as spam');
    startWorker();
    const { id } = await enqueue();
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'failed', attempts: 1, last_error_code: 554 });
    expect(r.last_error).toContain('5.7.1 Message rejected as spam');
    expect(sink.dataAttempts).toBe(1);
  });

  it('connection dropped mid-DATA: retried and delivered, flagged uncertain', async () => {
    sink.dropMidData(1);
    startWorker();
    const { id, messageId } = await enqueue({ html: `<p>${'x'.repeat(200_000)}</p>` });
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'sent', attempts: 2, uncertain: true });
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

  it('greeting slower than the timeout: retried, then delivered', async () => {
    sink.delayGreeting(1_500, 1);
    startWorker({ concurrency: 1, greetingTimeoutMs: 300 });
    const { id, messageId } = await enqueue();
    const r = await settled(id);
    expect(r).toMatchObject({ state: 'sent', attempts: 2, uncertain: false });
    expect(sink.connections).toBeGreaterThanOrEqual(2);
    expect(sink.byMessageId(messageId)).toHaveLength(1);
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
    startWorker({ maxAgeMs: 600, backoff: { baseMs: 100, maxMs: 400 } });
    const { id } = await enqueue();
    const r = await settled(id);
    expect(r.state).toBe('failed');
    expect(r.attempts).toBeGreaterThanOrEqual(1);
    expect(r.last_error).toMatch(/^Not delivered within 600 ms/);
    expect(r.last_error).toMatch(/refused|connect/i);
  });

  it("returns a dead worker's expired lease to the queue, delivers it, and flags it", async () => {
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
    expect(r).toMatchObject({ state: 'sent', attempts: 2, uncertain: true });
    expect(sink.byMessageId(messageId)).toHaveLength(1);
  });

  it('renews its leases while a slow delivery runs, so nobody else takes the mail', async () => {
    sink.dataDelayMs = 1_500;
    startWorker({ leaseMs: 300, socketTimeoutMs: 5_000 });
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

  it('stop() hands unfinished mail back to the queue at the deadline, and stops claiming', async () => {
    sink.dataDelayMs = 5_000;
    const worker = startWorker({ socketTimeoutMs: 10_000 });
    const { id } = await enqueue();
    await poll(() => sink.dataAttempts > 0, { what: 'the delivery to start' });
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
});
