import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.ts';
import { loadConfig } from '../../src/server/config.ts';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/server/db/embedded-postgres.ts';
import { migrateToLatest } from '../../src/server/db/migrate.ts';
import { createUser } from '../support/users.ts';
import type { FastifyInstance } from 'fastify';
import { freePort } from '../support/free-port.ts';
import { poll } from '../support/poll.ts';
import { injectWithPublicHost } from '../support/test-app.ts';

/**
 * PostgreSQL restarted under load. While it is down, requests fail with 503 (never a
 * 2xx for work that was not saved, never a 500); the app recovers by itself; every send that was
 * acknowledged is in the database afterwards (docs/architecture.md §1.3: accepted work is never
 * only in memory).
 */

describe('database restart under load', () => {
  let dataDir: string;
  let port: number;
  let cluster: EmbeddedPostgres;
  let db: Db;
  let app: FastifyInstance;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-dbfault-'));
    await fs.chmod(dataDir, 0o755);
    port = await freePort();
    cluster = await startEmbeddedPostgres({
      dataDir,
      port,
      log: () => undefined,
      settings: { fsync: 'off' },
    });
    const admin = new pg.Client({ connectionString: cluster.connectionString() });
    await admin.connect();
    await admin.query('create database proofmail');
    await admin.end();
    const url = cluster.connectionString('proofmail');
    const config = loadConfig({
      DATABASE_URL: url,
      LOG_LEVEL: 'silent',
      DATABASE_POOL_SIZE: '6',
      FREE_SENDS_PER_MINUTE: '100000',
      FREE_MONTHLY_LIMIT: '100000',
    });
    db = createDb(createPool(url, config.databasePoolSize));
    await migrateToLatest(db);
    app = await buildApp({ config, db });
    injectWithPublicHost(app, config.publicUrl);
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await db?.destroy();
    await cluster?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('answers 503 while the database is down, recovers alone, and loses nothing acknowledged', async () => {
    const u = await createUser(db);
    const acknowledged: string[] = [];
    const statuses = new Map<number, number>();
    let running = true;

    const worker = async (n: number) => {
      let i = 0;
      while (running) {
        const res = await app.inject({
          method: 'POST',
          url: '/api/email/send',
          headers: u.headers,
          payload: { to: 'client@example.com', subject: `w${n}-${i++}`, html: '<p>load</p>' },
        });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode === 200) acknowledged.push(res.json().id as string);
        else {
          expect(res.statusCode, res.body).toBe(503);
          expect(res.json()).toMatchObject({ code: 'unavailable' });
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(worker));

    await poll(() => acknowledged.length >= 20, { what: '20 acknowledged sends' });

    await cluster.stop(); // fast shutdown: open transactions are cut off
    await poll(() => (statuses.get(503) ?? 0) >= 10, { what: '10 answers of 503' });
    const ackedWhileDown = acknowledged.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(acknowledged.length).toBe(ackedWhileDown); // nothing is acknowledged while it is down

    cluster = await startEmbeddedPostgres({
      dataDir,
      port,
      log: () => undefined,
      settings: { fsync: 'off' },
    });
    await poll(() => acknowledged.length >= ackedWhileDown + 20, { timeoutMs: 30_000, what: 'recovery' }); // by itself
    running = false;
    await load;

    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    const health = await app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);

    const stored = await db.selectFrom('emails').select('id').where('user_id', '=', u.user.id).execute();
    const storedIds = new Set(stored.map((r) => r.id));
    const lost = acknowledged.filter((id) => !storedIds.has(id));
    expect(lost).toEqual([]);
    const queued = await db
      .selectFrom('mail_outbox')
      .select('email_id')
      .where('email_id', 'in', acknowledged)
      .execute();
    expect(new Set(queued.map((r) => r.email_id)).size).toBe(acknowledged.length);
  }, 120_000);
});
