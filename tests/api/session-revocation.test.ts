import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSession } from '../../src/server/accounts/sessions.ts';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import { startScript, type RunningScript } from '../support/child-process.ts';
import { freePort } from '../support/free-port.ts';
import { poll } from '../support/poll.ts';
import { createTestDatabase } from '../support/test-db.ts';
import { createUser, PASSWORD, uniqueEmail } from '../support/users.ts';

/**
 * The session cache across processes (docs/decisions/0070-session-cache.md): two app processes
 * (src/server/main.ts, each with its own pool, session cache and LISTEN connection) on one
 * database. B has a session cached; A ends it; B must refuse it within 1 s.
 */

interface App {
  url: string;
  process: RunningScript;
}

async function startApp(databaseUrl: string): Promise<App> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const app = startScript('src/server/main.ts', [], {
    env: {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      PUBLIC_URL: url,
      LOG_LEVEL: 'warn',
      MAIL_WORKERS: '0',
    },
  });
  await app.waitForOutput(/Proofmail is running/);
  return { url, process: app };
}

const me = (app: App, token: string) =>
  fetch(`${app.url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });

const post = (app: App, path: string, token: string, body: unknown = {}) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Polls B until the token is refused; the milliseconds it took. */
async function msUntilRefused(app: App, token: string, limitMs = 5_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const res = await me(app, token);
    if (res.status === 401) return performance.now() - started;
    expect(res.status).toBe(200);
    if (performance.now() - started > limitMs) throw new Error(`still accepted after ${limitMs} ms`);
  }
}

/**
 * Changes the user's email without firing the notify trigger (replica mode skips ordinary
 * triggers): a process that still shows the old email answered from its cache, not the database.
 */
async function changeEmailSilently(db: Db, userId: string): Promise<string> {
  const email = uniqueEmail('silent');
  await db.transaction().execute(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx);
    await trx.updateTable('users').set({ email }).where('id', '=', userId).execute();
  });
  return email;
}

describe('two app processes, one database: a session ended in A is refused by B within 1 s', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  let a: App;
  let b: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(createPool(database.url, 3));
    [a, b] = await Promise.all([startApp(database.url), startApp(database.url)]);
    // Both listeners connected: the caches are in use.
    await poll(
      async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
            where application_name = 'proofmail-session-listener' and datname = current_database()`.execute(
            db,
          )
        ).rows[0]!.n === 2,
      { what: 'both session listeners' },
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.process.stop(), b?.process.stop()]);
    await db?.destroy();
    await database?.drop();
  });

  /**
   * B answers this token from its cache: it still shows an email the database no longer has. On a
   * busy machine the entry can lapse (10 s) or the cache be bypassed while B's listener reconnects
   * between the two calls, so it is tried again, a few times at most.
   */
  async function cachedInB(userId: string, token: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const primed = (await (await me(b, token)).json()) as { user: { email: string } };
      const newEmail = await changeEmailSilently(db, userId);
      const fromB = (await (await me(b, token)).json()) as { user: { email: string } };
      if (fromB.user.email === primed.user.email) {
        const fromA = (await (await me(a, token)).json()) as { user: { email: string } };
        expect(fromA.user.email).toBe(newEmail);
        return;
      }
      expect(attempt, 'B answered from the database every time, never from its cache').toBeLessThan(5);
    }
  }

  it('sign-out in A', async () => {
    const u = await createUser(db);
    await cachedInB(u.user.id, u.token);
    expect((await post(a, '/api/auth/signout', u.token)).status).toBe(200);
    expect(await msUntilRefused(b, u.token)).toBeLessThan(1_000);
    expect((await me(a, u.token)).status).toBe(401);
  });

  it('a password change in A ends the other sessions cached in B, and keeps A’s own', async () => {
    const u = await createUser(db, { password: PASSWORD });
    const other = await startSession(db, u.user.id, { ip: '127.0.0.1', userAgent: 'other' }, new Date());
    await cachedInB(u.user.id, other);
    const res = await post(a, '/api/user/change-password', u.token, {
      currentPassword: PASSWORD,
      newPassword: 'a brand new passphrase 42',
    });
    expect(res.status).toBe(200);
    expect(await msUntilRefused(b, other)).toBeLessThan(1_000);
    expect((await me(b, u.token)).status).toBe(200);
  });

  it('a revocation outside any app (an operator deleting the row by hand) reaches B within 1 s', async () => {
    const u = await createUser(db);
    await cachedInB(u.user.id, u.token);
    await db.deleteFrom('sessions').where('user_id', '=', u.user.id).execute();
    expect(await msUntilRefused(b, u.token)).toBeLessThan(1_000);
  });

  it('a plan change made elsewhere shows in B within 1 s', async () => {
    const u = await createUser(db);
    expect((await me(b, u.token)).status).toBe(200);
    await db
      .updateTable('users')
      .set({ plan: 'pro', subscription_status: 'active' })
      .where('id', '=', u.user.id)
      .execute();
    const started = performance.now();
    await expect
      .poll(async () => ((await (await me(b, u.token)).json()) as { user: { plan: string } }).user.plan, {
        timeout: 1_000,
        interval: 5,
      })
      .toBe('pro');
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
