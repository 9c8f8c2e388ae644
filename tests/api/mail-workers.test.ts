import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import { enqueueMail } from '../../src/server/mail/outbox.ts';
import { startScript, type RunningScript } from '../support/child-process.ts';
import { poll } from '../support/poll.ts';
import { SmtpSink } from '../support/smtp-sink.ts';
import { createTestDatabase } from '../support/test-db.ts';

/** `npm run worker` twice (two processes) on one PostgreSQL: 1,000 mails, each delivered once. */

const TOTAL = 1_000;
const PRO = 100;

describe('several worker processes on one database', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  let sink: SmtpSink;
  const workers: RunningScript[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(createPool(database.url, 4));
    sink = await SmtpSink.start();
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    await db?.destroy();
    await database?.drop();
    await sink?.stop();
  });

  function startWorker(): RunningScript {
    const worker = startScript('src/server/worker.ts', ['--concurrency', '4'], {
      env: {
        DATABASE_URL: database.url,
        DATABASE_POOL_SIZE: '6',
        SMTP_URL: sink.url,
        MAIL_FROM: 'Proofmail <no-reply@proofmail.test>',
        MAIL_WORKERS: '0', // as in the web process's env when delivery runs separately
      },
    });
    workers.push(worker);
    return worker;
  }

  async function accept(from: number, count: number): Promise<void> {
    await db.transaction().execute(async (trx) => {
      for (let i = from; i < from + count; i++) {
        await enqueueMail(
          trx,
          { priority: 'free', to: [`user${i}@example.com`], subject: `Mail ${i}`, html: `<p>Mail ${i}</p>` },
          { messageIdDomain: 'proofmail.test' },
        );
      }
    });
  }

  /** Pro mail, each in its own transaction: every one NOTIFYs both processes with its priority. */
  async function acceptPro(from: number, count: number): Promise<void> {
    for (let i = from; i < from + count; i++) {
      await enqueueMail(
        db,
        { priority: 'pro', to: [`pro${i}@example.com`], subject: `Pro ${i}`, html: `<p>Pro ${i}</p>` },
        { messageIdDomain: 'proofmail.test' },
      );
    }
  }

  /** The most leases each process's worker held at once, sampled until `until` settles. */
  async function sampleLeases(until: Promise<unknown>): Promise<number> {
    let most = 0;
    let done = false;
    void until.finally(() => (done = true)).catch(() => undefined);
    while (!done) {
      const rows = await db
        .selectFrom('mail_outbox')
        .select(['locked_by', (eb) => eb.fn.countAll<number>().as('n')])
        .where('state', '=', 'sending')
        .groupBy('locked_by')
        .execute();
      for (const r of rows) most = Math.max(most, Number(r.n));
      await new Promise((r) => setTimeout(r, 20));
    }
    return most;
  }

  it(`two worker processes deliver ${TOTAL} mails with no duplicates, each holding at most its bound`, async () => {
    await accept(0, TOTAL / 2);
    const a = startWorker();
    const b = startWorker();
    // More mail arrives while both are running (NOTIFY wakes both), Free in batches and a stream
    // of Pro mail that must overtake the buffers without growing them.
    const arriving = (async () => {
      for (let i = TOTAL / 2; i < TOTAL - PRO; i += 100) await accept(i, Math.min(100, TOTAL - PRO - i));
      await acceptPro(0, PRO);
    })();
    const mostHeld = sampleLeases(arriving);
    await arriving;
    // 4 deliveries in flight per process (--concurrency 4), so at most 12 leases each.
    expect(await mostHeld).toBeLessThanOrEqual(12);

    await poll(
      async () => {
        const r = await db
          .selectFrom('mail_outbox')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('state', '=', 'sent')
          .executeTakeFirstOrThrow();
        return Number(r.n) === TOTAL;
      },
      {
        timeoutMs: 90_000,
        intervalMs: 200,
        what: `${TOTAL} sent mails`,
        details: () => `--- worker A ---\n${a.output()}\n--- worker B ---\n${b.output()}`,
      },
    );
    expect(await Promise.all([a.stop(), b.stop()])).toEqual([0, 0]); // SIGTERM: a clean stop
    expect(a.output()).toMatch(/delivering with concurrency 4 \(SMTP relay, external PostgreSQL\)/);

    const rows = await db.selectFrom('mail_outbox').selectAll().execute();
    const counts = sink.counts();
    expect(sink.messages).toHaveLength(TOTAL);
    expect(counts.size).toBe(TOTAL);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(rows.every((r) => r.state === 'sent' && r.attempts === 1 && !r.uncertain)).toBe(true);
    expect(new Set(rows.map((r) => r.message_id))).toEqual(new Set(counts.keys()));
    // Both processes did part of the work (a sent row names the worker that delivered it).
    const byWorker = new Map<string, number>();
    for (const r of rows) byWorker.set(r.locked_by!, (byWorker.get(r.locked_by!) ?? 0) + 1);
    expect(byWorker.size).toBe(2);
  }, 150_000);
});
