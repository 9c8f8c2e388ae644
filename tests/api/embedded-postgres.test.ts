import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/server/db/embedded-postgres.ts';
import { runScript, startScript } from '../support/child-process.ts';
import { freePort } from '../support/free-port.ts';
import { poll } from '../support/poll.ts';

// Child processes are single processes (see child-process.ts): SIGKILL hits the app itself.
const HOLDER = 'tests/support/fixtures/hold-embedded-postgres.ts';

async function postmasterPid(dataDir: string): Promise<number | undefined> {
  try {
    return Number((await fs.readFile(path.join(dataDir, 'postgres/postmaster.pid'), 'utf8')).split('\n')[0]);
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// These tests start Node processes and PostgreSQL clusters (initdb included), one after another.
describe('embedded PostgreSQL lifecycle', { timeout: 120_000 }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-embedded-'));
  });
  afterAll(async () => {
    const pid = await postmasterPid(dataDir);
    if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('comes back on the same data after the owning process was SIGKILLed', async () => {
    const holder = startScript(HOLDER, [], { env: { DATA_DIR: dataDir, MARKER: 'before-crash' } });
    await holder.waitForOutput(/READY \d+/);
    await holder.stop('SIGKILL');
    const orphan = await postmasterPid(dataDir);
    expect(orphan && alive(orphan)).toBeTruthy(); // the server outlived its owner

    const cluster = await startEmbeddedPostgres({ dataDir, log: () => undefined });
    try {
      expect(alive(orphan!)).toBe(false); // the orphan was shut down, not left running
      const client = new pg.Client({ connectionString: cluster.connectionString() });
      await client.connect();
      const { rows } = await client.query<{ value: string }>('select value from marker');
      await client.end();
      expect(rows.map((r) => r.value)).toEqual(['before-crash']);
    } finally {
      await cluster.stop();
    }
    const after = await postmasterPid(dataDir);
    expect(after === undefined || !alive(after)).toBe(true);
  });

  it('refuses to share a data directory with another live app', async () => {
    const cluster = await startEmbeddedPostgres({ dataDir, log: () => undefined });
    try {
      const second = await runScript(HOLDER, [], { env: { DATA_DIR: dataDir, MARKER: 'second' } });
      expect(second.code, second.stdout + second.stderr).not.toBe(0);
    } finally {
      await cluster.stop();
    }
  });
});

describe('npm start lifecycle (src/server/main.ts)', { timeout: 120_000 }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-main-'));
  });
  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function startServer(port: number) {
    // A clean environment without PUBLIC_URL, and no .env: links and the start-up message derive it from PORT.
    const app = startScript('src/server/main.ts', [], {
      env: { ENV_FILE: '', DATA_DIR: dataDir, PORT: String(port), MAIL_WORKERS: '0', LOG_LEVEL: 'warn' },
    });
    const started = await app.waitForOutput(/Proofmail is running at \S+/);
    expect(started[0]).toBe(`Proofmail is running at http://localhost:${port}`);
    return app;
  }

  it('serves health from the embedded database, survives kill -9, and leaves no postgres after Ctrl-C', async () => {
    const port = await freePort();
    const first = await startServer(port);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    await first.stop('SIGKILL');

    const second = await startServer(port);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    const pid = await postmasterPid(dataDir);
    expect(pid && alive(pid)).toBeTruthy();
    expect(await second.stop('SIGINT')).toBe(0);
    expect(alive(pid!)).toBe(false);
  });

  it('restarts an embedded PostgreSQL that died (kill -9), says so in the log, and answers again without a restart', async () => {
    const port = await freePort();
    const app = await startServer(port);
    try {
      const health = () => fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.status);
      expect(await health()).toBe(200);
      const pid = await postmasterPid(dataDir);
      process.kill(pid!, 'SIGKILL');
      await app.waitForOutput(/embedded postgres: the server exited unexpectedly \(signal SIGKILL\)/, 20_000);
      await poll(async () => (await health()) === 200, {
        timeoutMs: 60_000,
        intervalMs: 200,
        what: 'health',
      });
      expect(app.output()).toMatch(/embedded postgres: restarted on port \d+/);
      const restarted = await postmasterPid(dataDir);
      expect(restarted).not.toBe(pid);
      expect(alive(restarted!)).toBe(true);
      expect(await app.stop('SIGINT')).toBe(0);
      expect(alive(restarted!)).toBe(false); // the restarted server is stopped with the app
    } finally {
      await app.stop('SIGKILL');
    }
  });

  it('exits non-zero naming every invalid variable', async () => {
    const run = await runScript('src/server/main.ts', [], {
      env: { DATA_DIR: dataDir, PORT: 'abc', FREE_MONTHLY_LIMIT: '-1' },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('PORT');
    expect(run.stderr).toContain('FREE_MONTHLY_LIMIT');
  });
});
