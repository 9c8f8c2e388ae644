import { Kysely, PostgresDialect, sql } from 'kysely';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SESSION_CHANNEL,
  startSessionCache,
  type SessionCache,
} from '../../src/server/accounts/session-cache.ts';
import { createSessionResolver, SESSION_IDLE_MS, startSession } from '../../src/server/accounts/sessions.ts';
import { findLiveSession } from '../../src/server/accounts/sessions.repo.ts';
import { hashSecret } from '../../src/server/accounts/credentials.ts';
import { buildApp } from '../../src/server/app.ts';
import { ManualClock } from '../../src/server/clock.ts';
import { loadConfig } from '../../src/server/config.ts';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import type { Database } from '../../src/server/db/schema.ts';
import type { FastifyInstance } from 'fastify';
import { poll } from '../support/poll.ts';
import { injectWithPublicHost } from '../support/test-app.ts';
import { createTestDatabase } from '../support/test-db.ts';
import { createUser, PASSWORD } from '../support/users.ts';

/**
 * The per-process session cache (src/server/accounts/session-cache.ts) in one process: a hit
 * costs no query, every change that must reach it does (the triggers of migration
 * 0014-session-notify), it is bypassed while its listener is down, bounded, and short-lived.
 * Across two processes: tests/api/session-revocation.test.ts.
 */

const LISTENER = 'proofmail-session-listener';

describe('session cache', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  /** The resolver's own connection, logging every statement it runs. */
  let sessionsDb: Kysely<Database>;
  let statements: string[];
  let cache: SessionCache;
  let clock: ManualClock;
  let app: FastifyInstance;

  const sessionQueries = () => statements.filter((s) => /"sessions"/.test(s));
  const me = (token: string) =>
    app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
  const listenerCount = async () =>
    (
      await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where application_name = ${LISTENER} and datname = current_database()`.execute(db)
    ).rows[0]!.n;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(createPool(database.url, 3));
    statements = [];
    sessionsDb = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: createPool(database.url, 3) }),
      log: (event) => {
        if (event.level === 'query') statements.push(event.query.sql);
      },
    });
    clock = new ManualClock();
    cache = startSessionCache({ connectionString: database.url, retryMs: 50, maxRetryMs: 200 });
    const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '3' });
    app = await buildApp({
      config,
      db,
      clock,
      sessions: createSessionResolver({ db: sessionsDb, clock, cache }),
    });
    injectWithPublicHost(app, config.publicUrl);
    await app.ready();
    await poll(() => cache.active, { what: 'the session listener' });
  });

  afterAll(async () => {
    await app?.close();
    await cache?.close();
    await sessionsDb?.destroy();
    await db?.destroy();
    await database?.drop();
  });

  it('a cached session costs no query: 50 requests, one session lookup', async () => {
    const u = await createUser(db, { now: clock.now() });
    statements.length = 0;
    for (let i = 0; i < 50; i++) expect((await me(u.token)).statusCode).toBe(200);
    expect(sessionQueries()).toHaveLength(1);
  });

  it('sign-out refuses the token at once in the process that signed out', async () => {
    const u = await createUser(db, { now: clock.now() });
    expect((await me(u.token)).statusCode).toBe(200);
    const out = await app.inject({
      method: 'POST',
      url: '/api/auth/signout',
      headers: { authorization: `Bearer ${u.token}` },
    });
    expect(out.statusCode).toBe(200);
    expect((await me(u.token)).statusCode).toBe(401);
  });

  it('a password change refuses the other cached sessions at once and keeps this one', async () => {
    const u = await createUser(db, { password: PASSWORD, now: clock.now() });
    const other = await startSession(db, u.user.id, { ip: '127.0.0.1', userAgent: 'b' }, clock.now());
    expect((await me(other)).statusCode).toBe(200);
    const res = await app.inject({
      method: 'POST',
      url: '/api/user/change-password',
      headers: { authorization: `Bearer ${u.token}` },
      payload: { currentPassword: PASSWORD, newPassword: 'another long passphrase 7' },
    });
    expect(res.statusCode).toBe(200);
    expect((await me(other)).statusCode).toBe(401);
    expect((await me(u.token)).statusCode).toBe(200);
  });

  it('a settings change shows in the next answer (the cached user is dropped)', async () => {
    const u = await createUser(db, { now: clock.now() });
    const settings = async () =>
      (await app.inject({ method: 'GET', url: '/api/user/settings', headers: u.headers })).json<{
        prefs: { loginAlerts: boolean };
      }>().prefs.loginAlerts;
    expect(await settings()).toBe(false);
    const patch = await app.inject({
      method: 'PATCH',
      url: '/api/user/settings',
      headers: u.headers,
      payload: { loginAlerts: true },
    });
    expect(patch.statusCode).toBe(200);
    expect(await settings()).toBe(true);
  });

  it('expiry and the idle limit are checked on a cached copy against the clock', async () => {
    const u = await createUser(db, { now: clock.now() });
    expect((await me(u.token)).statusCode).toBe(200);
    const saved = clock.now();
    clock.advance(SESSION_IDLE_MS + 1);
    statements.length = 0;
    expect((await me(u.token)).statusCode).toBe(401);
    clock.set(saved);
  });

  it('last_seen_at is written at most once a minute, cached or not', async () => {
    const u = await createUser(db, { now: clock.now() });
    expect((await me(u.token)).statusCode).toBe(200);
    statements.length = 0;
    const saved = clock.now();
    for (let s = 0; s < 130; s += 5) {
      clock.set(new Date(saved.getTime() + s * 1000));
      expect((await me(u.token)).statusCode).toBe(200);
    }
    clock.set(saved);
    // 0–125 s: written at 60 and 120 s.
    expect(statements.filter((s) => /^update "sessions" set "last_seen_at"/.test(s))).toHaveLength(2);
  });

  it('while the listener is down the cache is bypassed; once it is back, it is used again', async () => {
    const u = await createUser(db, { now: clock.now() });
    expect((await me(u.token)).statusCode).toBe(200);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = ${LISTENER} and datname = current_database()`.execute(db);
    await poll(() => !cache.active, { what: 'the cache to notice' });
    expect(cache.size).toBe(0);
    statements.length = 0;
    for (let i = 0; i < 5; i++) expect((await me(u.token)).statusCode).toBe(200);
    expect(sessionQueries()).toHaveLength(5);
    await poll(async () => cache.active && (await listenerCount()) === 1, {
      what: 'the listener to reconnect',
    });
    statements.length = 0;
    for (let i = 0; i < 5; i++) expect((await me(u.token)).statusCode).toBe(200);
    // One read to fill the cache, or none: the listener may have come back during the last
    // request above, which then took a ticket and cached what it read (rightly).
    expect(sessionQueries().length).toBeLessThanOrEqual(1);
    expect(cache.size).toBe(1);
  });
});

describe('what the cache keeps', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(createPool(database.url, 3));
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  async function liveSession() {
    const u = await createUser(db);
    const session = await findLiveSession(db, hashSecret(u.token), new Date(), SESSION_IDLE_MS);
    return { u, session: session!, key: hashSecret(u.token).toString('base64') };
  }

  async function startedCache(options: Parameters<typeof startSessionCache>[0]) {
    const cache = startSessionCache(options);
    await poll(() => cache.active, { what: 'the session listener' });
    return cache;
  }

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const cache = await startedCache({ connectionString: database.url, maxEntries: 2 });
    try {
      const [a, b, c] = await Promise.all([liveSession(), liveSession(), liveSession()]);
      cache.put(a.key, a.session, cache.ticket()!);
      cache.put(b.key, b.session, cache.ticket()!);
      expect(cache.get(a.key)).toBeDefined(); // a is now the most recent
      cache.put(c.key, c.session, cache.ticket()!);
      expect(cache.size).toBe(2);
      expect(cache.get(b.key)).toBeUndefined();
      expect(cache.get(a.key)).toBeDefined();
      expect(cache.get(c.key)).toBeDefined();
    } finally {
      await cache.close();
    }
  });

  it('trusts an entry for ttlMs only', async () => {
    let now = 0;
    const cache = await startedCache({
      connectionString: database.url,
      ttlMs: 10_000,
      monotonicNow: () => now,
    });
    try {
      const a = await liveSession();
      cache.put(a.key, a.session, cache.ticket()!);
      now = 9_999;
      expect(cache.get(a.key)).toBeDefined();
      now = 10_000;
      expect(cache.get(a.key)).toBeUndefined();
    } finally {
      await cache.close();
    }
  });

  it('does not keep a read that an invalidation overtook', async () => {
    const cache = await startedCache({ connectionString: database.url });
    try {
      const a = await liveSession();
      const ticket = cache.ticket()!;
      cache.forgetUser('00000000-0000-4000-8000-000000000000'); // any invalidation, even another user's
      cache.put(a.key, a.session, ticket);
      expect(cache.get(a.key)).toBeUndefined();
    } finally {
      await cache.close();
    }
  });

  it('a NOTIFY from another connection drops the user’s entries', async () => {
    const cache = await startedCache({ connectionString: database.url });
    try {
      const a = await liveSession();
      cache.put(a.key, a.session, cache.ticket()!);
      await db.deleteFrom('sessions').where('user_id', '=', a.u.user.id).execute();
      await poll(() => cache.get(a.key) === undefined, {
        timeoutMs: 1_000,
        intervalMs: 5,
        what: 'the entry dropped',
      });
    } finally {
      await cache.close();
    }
  });
});

describe('the triggers of migration 0014-session-notify', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  let listener: pg.Client;
  let received: string[];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(createPool(database.url, 3));
    listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    received = [];
    listener.on('notification', (m) => {
      if (m.channel === SESSION_CHANNEL) received.push(m.payload ?? '');
    });
    await listener.query(`LISTEN ${SESSION_CHANNEL}`);
  });
  afterAll(async () => {
    await listener?.end();
    await db?.destroy();
    await database?.drop();
  });

  /** Runs `change`, then a marker NOTIFY: everything the change sent arrives before the marker. */
  async function notified(change: () => Promise<unknown>): Promise<string[]> {
    received.length = 0;
    await change();
    await sql`select pg_notify(${SESSION_CHANNEL}, 'marker')`.execute(db);
    await poll(() => received.includes('marker'), { timeoutMs: 2_000, intervalMs: 5, what: 'the marker' });
    return received.filter((p) => p !== 'marker');
  }

  const later = new Date(Date.now() + 86_400_000);
  const cachedColumns: [string, Record<string, unknown>][] = [
    ['email', { email: `changed.${Date.now()}@example.com` }],
    ['verified_at', { verified_at: null }],
    ['plan', { plan: 'pro' }],
    ['subscription_status', { subscription_status: 'active' }],
    ['current_period_end', { current_period_end: later }],
    ['cancel_at_period_end', { cancel_at_period_end: true }],
    ['login_alerts', { login_alerts: true }],
    ['password_hash (none → some)', { password_hash: 'x' }],
  ];

  it.each(cachedColumns)('a change of users.%s notifies the user id', async (_, values) => {
    const u = await createUser(db);
    expect(
      await notified(() => db.updateTable('users').set(values).where('id', '=', u.user.id).execute()),
    ).toEqual([u.user.id]);
  });

  it('columns the cache does not carry notify nothing (last_login_alert_at, updated_at, last_seen_at)', async () => {
    const u = await createUser(db);
    expect(
      await notified(async () => {
        await db
          .updateTable('users')
          .set({ last_login_alert_at: new Date(), updated_at: new Date() })
          .where('id', '=', u.user.id)
          .execute();
        await db
          .updateTable('sessions')
          .set({ last_seen_at: new Date() })
          .where('user_id', '=', u.user.id)
          .execute();
      }),
    ).toEqual([]);
  });

  it('deleting sessions notifies once per user per transaction; deleting the user notifies too', async () => {
    const u = await createUser(db);
    await startSession(db, u.user.id, { ip: '127.0.0.1', userAgent: null }, new Date());
    expect(
      await notified(() => db.deleteFrom('sessions').where('user_id', '=', u.user.id).execute()),
    ).toEqual([u.user.id]);
    const v = await createUser(db);
    expect(await notified(() => db.deleteFrom('users').where('id', '=', v.user.id).execute())).toEqual([
      v.user.id,
    ]);
  });

  it('a rolled-back change notifies nothing', async () => {
    const u = await createUser(db);
    expect(
      await notified(() =>
        db
          .transaction()
          .execute(async (trx) => {
            await trx.deleteFrom('sessions').where('user_id', '=', u.user.id).execute();
            throw new Error('roll back');
          })
          .catch(() => undefined),
      ),
    ).toEqual([]);
  });
});

/**
 * A TCP proxy to PostgreSQL that drops every NotificationResponse ('A') on its way to the client,
 * as a pooler in transaction mode does in effect: LISTEN succeeds, nothing is ever delivered.
 */
async function startDeafProxy(target: URL): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const keep: Buffer[] = [];
      while (pending.length >= 5) {
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const message = pending.subarray(0, 1 + length);
        if (message[0] !== 0x41) keep.push(message); // 'A': NotificationResponse
        pending = pending.subarray(1 + length);
      }
      if (keep.length) client.write(Buffer.concat(keep));
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = new URL(target);
  url.port = String((server.address() as net.AddressInfo).port);
  url.hostname = '127.0.0.1';
  return {
    url: url.toString(),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('a connection that accepts LISTEN but delivers nothing', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  let proxy: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(createPool(database.url, 3));
    proxy = await startDeafProxy(new URL(database.url));
  });
  afterAll(async () => {
    await proxy?.close();
    await db?.destroy();
    await database?.drop();
  });

  it('never puts the cache in use, while the same settings on a direct connection do', async () => {
    const logs: string[] = [];
    const deaf = startSessionCache({
      connectionString: proxy.url,
      heartbeatMs: 300,
      retryMs: 100,
      maxRetryMs: 200,
      log: (m) => logs.push(m),
    });
    const direct = startSessionCache({ connectionString: database.url, heartbeatMs: 1_000 });
    try {
      await poll(() => direct.active, { what: 'the direct listener' });
      await poll(() => logs.length >= 2, { what: 'two refused attempts through the proxy' });
      expect(deaf.active).toBe(false);
      expect(deaf.ticket()).toBeUndefined();
      expect(logs[0]).toMatch(/LISTEN delivers nothing on this connection/);
      // The direct one stays in use across several heartbeats.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(direct.active).toBe(true);
    } finally {
      await deaf.close();
      await direct.close();
    }
  });
});
