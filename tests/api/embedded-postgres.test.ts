import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/server/db/embedded-postgres.ts';
import { freePort } from '../support/free-port.ts';

const root = path.resolve(import.meta.dirname, '../..');
// One process per app (tsx as a loader, not tsx's CLI which forks a child): SIGKILL must hit the app itself.
const node = process.execPath;
const tsx = ['--import', 'tsx'];

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}:\n${output}`)), timeoutMs);
    const onData = (d: Buffer) => {
      output += d.toString();
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${pattern}:\n${output}`));
    });
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );
}

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


describe('embedded PostgreSQL lifecycle', () => {
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
    const child = spawn(node, [...tsx, 'tests/support/fixtures/hold-embedded-postgres.ts'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, MARKER: 'before-crash' },
    });
    await waitForLine(child, /READY \d+/);
    child.kill('SIGKILL');
    await exited(child);
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
      const child = spawn(node, [...tsx, 'tests/support/fixtures/hold-embedded-postgres.ts'], {
        cwd: root,
        env: { ...process.env, DATA_DIR: dataDir, MARKER: 'second' },
      });
      const code = await exited(child);
      expect(code).not.toBe(0);
    } finally {
      await cluster.stop();
    }
  });
});

describe('npm start lifecycle (src/server/main.ts)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-main-'));
  });
  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function startServer(port: number) {
    const { PUBLIC_URL: _unset, ...env } = process.env;
    const child = spawn(node, [...tsx, 'src/server/main.ts'], {
      cwd: root,
      // No PUBLIC_URL and no .env: the links and the start-up message derive it from PORT.
      env: { ...env, ENV_FILE: '', DATA_DIR: dataDir, PORT: String(port), MAIL_WORKERS: '0', LOG_LEVEL: 'warn' },
    });
    const started = await waitForLine(child, /Proofmail is running at \S+/);
    expect(started).toBe(`Proofmail is running at http://localhost:${port}`);
    return child;
  }

  it('serves health from the embedded database, survives kill -9, and leaves no postgres after Ctrl-C', async () => {
    const port = await freePort();
    const first = await startServer(port);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    first.kill('SIGKILL');
    await exited(first);

    const second = await startServer(port);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    const pid = await postmasterPid(dataDir);
    expect(pid && alive(pid)).toBeTruthy();
    second.kill('SIGINT');
    expect(await exited(second)).toBe(0);
    expect(alive(pid!)).toBe(false);
  });

  it('exits non-zero naming every invalid variable', async () => {
    const child = spawn(node, [...tsx, 'src/server/main.ts'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, PORT: 'abc', FREE_MONTHLY_LIMIT: '-1' },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await exited(child)).not.toBe(0);
    expect(stderr).toContain('PORT');
    expect(stderr).toContain('FREE_MONTHLY_LIMIT');
  });
});
