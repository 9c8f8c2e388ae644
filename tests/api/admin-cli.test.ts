import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool } from '../../src/server/db/database.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/server/db/embedded-postgres.ts';
import { migrateToLatest } from '../../src/server/db/migrate.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { signUp } from '../support/auth-api.ts';
import { uniqueEmail } from '../support/users.ts';

const root = path.resolve(import.meta.dirname, '../..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run admin -- …` is `tsx src/server/admin.ts …`; run it the same way with a clean environment. */
function admin(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/server/admin.ts', ...args],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
        timeout: 120_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('admin CLI against DATABASE_URL', () => {
  let ctx: TestContext;
  let env: Record<string, string>;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none' } });
    env = { DATABASE_URL: ctx.databaseUrl };
  });
  afterAll(async () => ctx?.close());

  const userRow = (id: string) =>
    ctx.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('set-plan EMAIL pro|free changes the plan (email in any case)', async () => {
    const account = await signUp(ctx);
    const pro = await admin(['set-plan', account.email.toUpperCase(), 'pro'], env);
    expect(pro.code, pro.stderr).toBe(0);
    expect(pro.stdout.trim()).toBe(`The plan of ${account.email} is now pro.`);
    expect((await userRow(account.userId)).plan).toBe('pro');
    const free = await admin(['set-plan', account.email, 'free'], env);
    expect(free.code).toBe(0);
    expect((await userRow(account.userId)).plan).toBe('free');
  });

  it('verify EMAIL marks the address verified, once', async () => {
    const account = await signUp(ctx);
    const first = await admin(['verify', account.email], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(`${account.email} is now verified.`);
    expect((await userRow(account.userId)).verified_at).not.toBeNull();
    const second = await admin(['verify', account.email], env);
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe(`${account.email} was already verified.`);
  });

  it('explains unknown accounts, bad arguments and shows help', async () => {
    const missing = await admin(['verify', uniqueEmail('nobody')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^No account with the email .+@example\.com\.$/m);

    const badPlan = await admin(['set-plan', 'a@example.com', 'gold'], env);
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain('set-plan needs a plan: free or pro.');
    expect(badPlan.stderr).toContain('Usage: npm run admin');

    const unknown = await admin(['delete-everything'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "delete-everything".');

    const help = await admin(['help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('set-plan EMAIL pro|free');
    expect(help.stdout).toContain('verify EMAIL');
  });
});

describe('admin CLI on the embedded database', () => {
  let dataDir: string;
  let server: EmbeddedPostgres | undefined;
  const email = 'embedded.owner@example.com';

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-admin-'));
    await fs.chmod(dataDir, 0o755);
    // Stands in for a running server: it owns DATA_DIR (owner.pid is this live node process).
    server = await startEmbeddedPostgres({ dataDir, log: () => undefined, settings: { fsync: 'off' } });
    const db = createDb(createPool(server.connectionString('postgres'), 1));
    await migrateToLatest(db);
    await db.insertInto('users').values({ email, password_hash: null, verified_at: null }).execute();
    await db.destroy();
  });
  afterAll(async () => {
    await server?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const plan = async () => {
    const db = createDb(createPool(server!.connectionString('postgres'), 1));
    try {
      return await db
        .selectFrom('users')
        .select(['plan', 'verified_at'])
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
    } finally {
      await db.destroy();
    }
  };

  it('works while the server is running, through the running database', async () => {
    const run = await admin(['set-plan', email, 'pro'], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`The plan of ${email} is now pro.`);
    expect((await plan()).plan).toBe('pro');
  });

  it('works when the server is stopped, by starting the embedded database itself', async () => {
    await server!.stop();
    server = undefined;
    const run = await admin(['verify', email], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`${email} is now verified.`);
    // It stopped its database again: the data dir is free for the server.
    await expect(fs.access(path.join(dataDir, 'postgres', 'postmaster.pid'))).rejects.toThrow();
    server = await startEmbeddedPostgres({ dataDir, log: () => undefined });
    const row = await plan();
    expect(row.plan).toBe('pro');
    expect(row.verified_at).not.toBeNull();
  });
});
