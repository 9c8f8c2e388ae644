import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.ts';
import { loadConfig } from '../../src/server/config.ts';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/server/db/embedded-postgres.ts';
import { migrateToLatest } from '../../src/server/db/migrate.ts';
import { poll } from '../support/poll.ts';
import { createUser } from '../support/users.ts';
import { injectWithPublicHost } from '../support/test-app.ts';

/**
 * A real full disk under the embedded PostgreSQL: its data directory on a small tmpfs that the
 * test fills. Sends answer 503 `storage_full` (PostgreSQL's 53100); when PostgreSQL itself dies
 * of it (no room for WAL), the supervisor restarts it with backoff, and once space is freed the
 * same app answers again without a restart (docs/decisions/0043-embedded-postgres-supervision.md).
 * Mounting needs root (or CAP_SYS_ADMIN); elsewhere this file is skipped, and the restart after a
 * crash is still covered by tests/api/embedded-postgres.test.ts.
 */

const run = promisify(execFile);

async function canMountTmpfs(): Promise<boolean> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-mount-probe-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    await run('umount', [dir]);
    return true;
  } catch {
    return false;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const mountable = await canMountTmpfs();
if (!mountable) console.warn('storage-full.test.ts skipped: mounting a tmpfs needs root here');

describe.runIf(mountable)('embedded PostgreSQL on a full disk', () => {
  let mountPoint: string;
  let cluster: EmbeddedPostgres;
  let db: Db;
  let app: FastifyInstance;
  let admin: pg.Pool;
  const logs: string[] = [];
  const filler = () => path.join(mountPoint, 'filler');

  beforeAll(async () => {
    mountPoint = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-full-'));
    await run('mount', ['-t', 'tmpfs', '-o', 'size=120m,mode=0755', 'tmpfs', mountPoint]);
    cluster = await startEmbeddedPostgres({
      dataDir: mountPoint,
      log: (line) => logs.push(line),
      // Little WAL kept around, so filling the disk soon leaves none for a new segment.
      settings: { fsync: 'off', min_wal_size: '32MB', max_wal_size: '48MB' },
    });
    const setup = new pg.Client({ connectionString: cluster.connectionString() });
    await setup.connect();
    await setup.query('create database proofmail');
    await setup.end();
    const url = cluster.connectionString('proofmail');
    const config = loadConfig({
      DATABASE_URL: url,
      LOG_LEVEL: 'silent',
      FREE_SENDS_PER_MINUTE: '1000',
      FREE_MONTHLY_LIMIT: '1000',
    });
    db = createDb(createPool(url, 4));
    await migrateToLatest(db);
    app = await buildApp({ config, db });
    injectWithPublicHost(app, config.publicUrl);
    await app.ready();
    admin = new pg.Pool({ connectionString: url, max: 1 });
    admin.on('error', () => undefined);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await db?.destroy();
    await admin?.end().catch(() => undefined);
    await cluster?.stop();
    if (mountPoint) {
      await run('umount', [mountPoint]).catch(() => undefined);
      await fs.rm(mountPoint, { recursive: true, force: true });
    }
  });

  async function fillDisk(): Promise<void> {
    const block = Buffer.alloc(1024 * 1024, 1);
    const fh = await fs.open(filler(), 'a');
    try {
      for (;;) await fh.write(block);
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      await fh.close();
    }
  }

  it('answers 503 storage_full when the disk is full, PostgreSQL dying of it is restarted, and the app recovers once space is freed', async () => {
    const u = await createUser(db);
    const send = (html: string) =>
      app.inject({
        method: 'POST',
        url: '/api/email/send',
        headers: u.headers,
        payload: { to: 'a@example.com', html },
      });
    expect((await send('<p>before</p>')).statusCode).toBe(200);
    await admin.query(
      `create table wal_churn (id int primary key, body text) with (fillfactor = 40);
       insert into wal_churn select g, repeat('x', 100) from generate_series(1, 2000) g`,
    );

    await fillDisk();
    const full = await send(`<p>${'a newsletter '.repeat(20_000)}</p>`);
    expect(full.statusCode).toBe(503);
    expect(full.json()).toEqual({
      error:
        'The server is out of storage space, so your request was not saved (nothing was sent or charged). ' +
        'Please try again later.',
      code: 'storage_full',
    });
    expect(
      await db.selectFrom('emails').select('id').where('user_id', '=', u.user.id).execute(),
    ).toHaveLength(1);

    // Writing WAL with no room left for a new segment makes PostgreSQL stop; restarts keep failing
    // while the disk is full.
    await poll(
      async () => {
        await admin
          .query('update wal_churn set body = repeat(md5(random()::text), 3)')
          .catch(() => undefined);
        return logs.some((l) => /exited unexpectedly/.test(l));
      },
      { timeoutMs: 60_000, intervalMs: 1, what: 'PostgreSQL to stop on the full disk' },
    );
    const down = await app.inject({ method: 'GET', url: '/api/health' });
    expect(down.statusCode).toBe(503);
    const whileDown = await send('<p>while down</p>');
    expect(whileDown.statusCode).toBe(503);
    expect(['unavailable', 'storage_full']).toContain(whileDown.json().code);
    await poll(() => logs.some((l) => /restart failed .*disk holding the data directory is full/.test(l)), {
      timeoutMs: 20_000,
      what: 'a failed restart on the full disk',
    });

    await fs.rm(filler());
    await poll(async () => (await app.inject({ method: 'GET', url: '/api/health' })).statusCode === 200, {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'the app to answer again after space was freed',
    });
    expect(logs.some((l) => /embedded postgres: restarted on port \d+/.test(l))).toBe(true);
    expect((await send('<p>after</p>')).statusCode).toBe(200);
    expect(
      await db.selectFrom('emails').select('id').where('user_id', '=', u.user.id).execute(),
    ).toHaveLength(2);
  }, 180_000);
});
