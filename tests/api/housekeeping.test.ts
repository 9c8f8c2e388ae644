import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_IDLE_MS } from '../../src/server/accounts/sessions.ts';
import { ManualClock } from '../../src/server/clock.ts';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import {
  HOUSEKEEPING_LOCK,
  runHousekeeping,
  startHousekeeping,
} from '../../src/server/housekeeping/housekeeping.ts';
import { RETENTION } from '../../src/server/housekeeping/trim-rules.ts';
import { createTestDatabase } from '../support/test-db.ts';
import { createUser } from '../support/users.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const now = new Date('2026-03-10T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const later = (ms: number) => new Date(now.getTime() + ms);

describe('housekeeping job', () => {
  let db: Db;
  let databaseUrl: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    databaseUrl = database.url;
    drop = database.drop;
    db = createDb(createPool(database.url, 4));
  });
  afterAll(async () => {
    await db?.destroy();
    await drop?.();
  });
  afterEach(async () => {
    // Each test seeds its own rows; the user rows cascade to everything that hangs off them.
    await db.deleteFrom('users').execute();
    await db.deleteFrom('caught_mail').execute();
    await db.deleteFrom('mail_outbox').execute();
    await db.deleteFrom('rate_limits').execute();
    await db.deleteFrom('captcha_redemptions').execute();
  });

  const ids = async <T extends { id: string }>(rows: Promise<T[]>) => (await rows).map((r) => r.id).sort();

  async function session(userId: string, label: string, values: { lastSeenAt: Date; expiresAt: Date }) {
    const row = await db
      .insertInto('sessions')
      .values({
        user_id: userId,
        token_hash: randomBytes(32),
        created_at: ago(DAY),
        last_seen_at: values.lastSeenAt,
        expires_at: values.expiresAt,
        ip: '127.0.0.1',
        user_agent: label,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function token(userId: string, values: { expiresAt: Date; usedAt?: Date }) {
    const row = await db
      .insertInto('tokens')
      .values({
        hash: randomBytes(32),
        user_id: userId,
        purpose: 'verify',
        payload: null,
        created_at: new Date(values.expiresAt.getTime() - DAY),
        expires_at: values.expiresAt,
        used_at: values.usedAt ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function caughtMail(count: number, receivedAt: (i: number) => Date) {
    const times = Array.from({ length: count }, (_, i) => receivedAt(i));
    await sql`
      insert into caught_mail (from_header, to_addresses, subject, headers, size, received_at)
      select 'Proofmail <no-reply@localhost>', array['dev@example.com'], 'caught ' || n, '[]'::jsonb, 100, at
        from unnest(${times}::timestamptz[]) with ordinality as t(at, n)`.execute(db);
  }

  async function outbox(values: { state: 'sent' | 'failed' | 'queued'; createdAt: Date; emailId?: string }) {
    const row = await db
      .insertInto('mail_outbox')
      .values({
        priority: values.emailId ? 2 : 0,
        state: values.state,
        message_id: `<${randomBytes(8).toString('hex')}@proofmail.test>`,
        to_addresses: ['someone@example.com'],
        subject: 'Verify your email',
        html: '<p>hello</p>',
        text: null,
        email_id: values.emailId ?? null,
        created_at: values.createdAt,
        sent_at: values.state === 'sent' ? values.createdAt : null,
        next_attempt_at: values.createdAt,
        lease_until: null,
        locked_by: null,
        last_error_code: null,
        last_error: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function email(userId: string, createdAt: Date) {
    const row = await db
      .insertInto('emails')
      .values({
        user_id: userId,
        to_addresses: 'client@example.com',
        subject: 'Hi',
        html: '<p>Hi</p>',
        created_at: createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  it('trims what is old in every table that only grows, and keeps what is current and all history', async () => {
    const { user } = await createUser(db, { now: ago(40 * DAY) });

    // Sessions: past the absolute expiry, idle too long → gone; live, and idle just under the limit → kept.
    await session(user.id, 'expired', { lastSeenAt: ago(HOUR), expiresAt: ago(MINUTE) });
    await session(user.id, 'idle', { lastSeenAt: ago(SESSION_IDLE_MS + MINUTE), expiresAt: later(DAY) });
    const liveSessions = [
      await session(user.id, 'live', { lastSeenAt: ago(HOUR), expiresAt: later(20 * DAY) }),
      await session(user.id, 'almost idle', {
        lastSeenAt: ago(SESSION_IDLE_MS - MINUTE),
        expiresAt: later(DAY),
      }),
    ];
    await db.deleteFrom('sessions').where('user_agent', '=', 'vitest').execute(); // createUser's own

    // Tokens: expired more than a day ago → gone; recently expired, used but unexpired, live → kept.
    await token(user.id, { expiresAt: ago(RETENTION.tokensAfterExpiryMs + MINUTE) });
    const keptTokens = [
      await token(user.id, { expiresAt: ago(HOUR) }),
      await token(user.id, { expiresAt: later(HOUR), usedAt: ago(MINUTE) }),
      await token(user.id, { expiresAt: later(DAY) }),
    ];

    await db
      .insertInto('rate_limits')
      .values([
        { key: 'signin-ip:old', window_start: ago(RETENTION.rateLimitWindowsMs + HOUR), count: 3 },
        { key: 'signin-ip:now', window_start: ago(10 * MINUTE), count: 3 },
      ])
      .execute();
    await db
      .insertInto('captcha_redemptions')
      .values([
        { challenge_id: 'expired', expires_at: ago(MINUTE) },
        { challenge_id: 'current', expires_at: later(5 * MINUTE) },
      ])
      .execute();
    const thisMinute = new Date(Math.floor(now.getTime() / MINUTE) * MINUTE);
    await db
      .insertInto('send_rate')
      .values([
        { user_id: user.id, minute: ago(RETENTION.sendRateMs + MINUTE), count: 5 },
        { user_id: user.id, minute: thisMinute, count: 2 },
      ])
      .execute();

    // Caught mail: 499 of the last hour and 2 older than a month. The newest 500 include one of
    // the old ones, so only the age rule removes it.
    await caughtMail(499, (i) => ago(i * 1000));
    await caughtMail(2, (i) => ago(RETENTION.caughtMailMs + (i + 1) * HOUR));

    // Outbox: settled system mail older than the retention, and the delivery of a deleted email,
    // go; recent system mail, a queued (never lost) old mail and an existing email's delivery stay.
    const old = ago(RETENTION.settledMailMs + DAY);
    const keptEmail = await email(user.id, old);
    const deletedEmail = await email(user.id, old);
    await outbox({ state: 'sent', createdAt: old });
    await outbox({ state: 'failed', createdAt: old });
    await outbox({ state: 'sent', createdAt: old, emailId: deletedEmail });
    const keptOutbox = [
      await outbox({ state: 'sent', createdAt: ago(RETENTION.settledMailMs - DAY) }),
      await outbox({ state: 'queued', createdAt: old }),
      await outbox({ state: 'sent', createdAt: old, emailId: keptEmail }),
    ];
    await db.deleteFrom('emails').where('id', '=', deletedEmail).execute();

    // Sign-in failures a day old start from zero anyway; a device unused for a year is forgotten.
    await db
      .insertInto('sign_in_throttle')
      .values([
        {
          key: 'old pair',
          failures: 9,
          next_attempt_at: ago(DAY),
          updated_at: ago(RETENTION.signInThrottleMs + MINUTE),
        },
        { key: 'current pair', failures: 7, next_attempt_at: later(MINUTE), updated_at: ago(MINUTE) },
      ])
      .execute();
    await db
      .insertInto('known_devices')
      .values([
        {
          user_id: user.id,
          device_hash: Buffer.from('old'),
          created_at: ago(400 * DAY),
          last_used_at: ago(RETENTION.knownDevicesMs + DAY),
        },
        {
          user_id: user.id,
          device_hash: Buffer.from('current'),
          created_at: ago(400 * DAY),
          last_used_at: ago(30 * DAY),
        },
      ])
      .execute();

    // History that must stay whatever its age.
    await db
      .insertInto('usage_ledger')
      .values({ user_id: user.id, email_id: keptEmail, outbox_id: keptOutbox[2]!, month: '2026-01-01' })
      .execute();
    await db
      .insertInto('usage_counters')
      .values({ user_id: user.id, month: '2026-01-01', count: 1 })
      .execute();
    await db
      .insertInto('stripe_events')
      .values({ id: 'evt_old', type: 'invoice.paid', customer_id: null, received_at: ago(400 * DAY) })
      .execute();

    // Small batches, so every table takes several rounds.
    const result = await runHousekeeping(db, now, { batchSize: 2 });
    expect(result).toEqual({
      ran: true,
      trimmed: {
        send_rate: 1,
        sessions: 2,
        tokens: 1,
        rate_limits: 1,
        captcha_redemptions: 1,
        caught_mail: 2,
        mail_outbox: 3,
        sign_in_throttle: 1,
        known_devices: 1,
      },
    });
    expect(await db.selectFrom('sign_in_throttle').select('key').execute()).toEqual([
      { key: 'current pair' },
    ]);
    const devices = await db.selectFrom('known_devices').select('device_hash').execute();
    expect(devices.map((d) => d.device_hash.toString())).toEqual(['current']);

    expect(await ids(db.selectFrom('sessions').select('id').execute())).toEqual([...liveSessions].sort());
    expect(await ids(db.selectFrom('tokens').select('id').execute())).toEqual([...keptTokens].sort());
    expect(await db.selectFrom('rate_limits').select('key').execute()).toEqual([{ key: 'signin-ip:now' }]);
    expect(await db.selectFrom('captcha_redemptions').select('challenge_id').execute()).toEqual([
      { challenge_id: 'current' },
    ]);
    expect(await db.selectFrom('send_rate').select('minute').execute()).toEqual([{ minute: thisMinute }]);
    const caught = await db.selectFrom('caught_mail').select('received_at').execute();
    expect(caught).toHaveLength(499);
    expect(caught.every((m) => m.received_at.getTime() > ago(HOUR).getTime())).toBe(true);
    expect(await ids(db.selectFrom('mail_outbox').select('id').execute())).toEqual([...keptOutbox].sort());
    expect(await db.selectFrom('emails').select('id').execute()).toEqual([{ id: keptEmail }]);
    expect(await db.selectFrom('usage_ledger').select('outbox_id').execute()).toEqual([
      { outbox_id: keptOutbox[2] },
    ]);
    expect(await db.selectFrom('usage_counters').select('count').execute()).toEqual([{ count: 1 }]);
    expect(await db.selectFrom('stripe_events').select('id').execute()).toEqual([{ id: 'evt_old' }]);
    expect(await db.selectFrom('users').select('id').execute()).toEqual([{ id: user.id }]);

    // Nothing is old any more.
    expect(await runHousekeeping(db, now, { batchSize: 2 })).toEqual({ ran: true, trimmed: {} });
  });

  it('keeps only the newest caught mail beyond the count limit', async () => {
    await caughtMail(RETENTION.caughtMailCount + 5, (i) => ago(i * 1000)); // i = 0 is the newest
    expect(await runHousekeeping(db, now)).toEqual({ ran: true, trimmed: { caught_mail: 5 } });
    const rows = await db.selectFrom('caught_mail').select('subject').execute();
    expect(rows).toHaveLength(RETENTION.caughtMailCount);
    const kept = new Set(rows.map((r) => r.subject));
    for (let n = 1; n <= RETENTION.caughtMailCount; n++) expect(kept.has(`caught ${n}`)).toBe(true);
  });

  it('deletes in bounded batches and leaves the rest to the next run', async () => {
    const { user } = await createUser(db, { now });
    await db
      .insertInto('send_rate')
      .values(
        Array.from({ length: 25 }, (_, i) => ({
          user_id: user.id,
          minute: ago(2 * HOUR + i * MINUTE),
          count: 1,
        })),
      )
      .execute();
    expect(await runHousekeeping(db, now, { batchSize: 10, maxBatches: 2 })).toEqual({
      ran: true,
      trimmed: { send_rate: 20 },
    });
    expect(await runHousekeeping(db, now, { batchSize: 10, maxBatches: 2 })).toEqual({
      ran: true,
      trimmed: { send_rate: 5 },
    });
  });

  it('runs in one process at a time: a run that finds the lock taken does nothing', async () => {
    const { user } = await createUser(db, { now });
    await db
      .insertInto('send_rate')
      .values({ user_id: user.id, minute: ago(DAY), count: 1 })
      .execute();
    const other = new pg.Client({ connectionString: databaseUrl });
    await other.connect();
    try {
      await other.query('select pg_advisory_lock($1::bigint)', [HOUSEKEEPING_LOCK.toString()]);
      expect(await runHousekeeping(db, now)).toEqual({ ran: false, trimmed: {} });
      expect(await db.selectFrom('send_rate').select('count').execute()).toHaveLength(1);
      await other.query('select pg_advisory_unlock($1::bigint)', [HOUSEKEEPING_LOCK.toString()]);
      expect(await runHousekeeping(db, now)).toEqual({ ran: true, trimmed: { send_rate: 1 } });
    } finally {
      await other.end();
    }
  });

  it('runs again and again on its own, logs what it trimmed, and stops', async () => {
    const { user } = await createUser(db, { now });
    const clock = new ManualClock(now);
    const lines: string[] = [];
    const seen = (n: number) =>
      expect
        .poll(() => lines.filter((l) => l.includes('trimmed 1 send_rate')).length, { timeout: 10_000 })
        .toBe(n);
    const oldMinute = (hours: number) =>
      db
        .insertInto('send_rate')
        .values({ user_id: user.id, minute: ago(hours * HOUR), count: 1 })
        .execute();

    await oldMinute(2);
    const job = startHousekeeping({
      db,
      clock,
      log: (level, message) => lines.push(`${level} ${message}`),
      firstRunAfterMs: 0,
      intervalMs: 50,
    });
    try {
      await seen(1);
      await oldMinute(3); // the next run, without anyone asking, finds it
      await seen(2);
      expect(lines.every((l) => l.startsWith('info housekeeping: trimmed 1 send_rate ('))).toBe(true);
    } finally {
      await job.stop();
    }
    await oldMinute(4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines).toHaveLength(2);
    expect(await db.selectFrom('send_rate').select('count').execute()).toHaveLength(1);
  });
});
