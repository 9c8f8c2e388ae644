import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { bundledScript } from './script-bundle.ts';

/**
 * The app, the worker, the admin CLI and fixtures as child processes: `node <bundle>` in the
 * repository root, the script bundled as `npm start` runs the app (script-bundle.ts). That is one
 * process, so a signal reaches the program itself.
 *
 * The environment is clean: PATH, HOME and TMPDIR, plus what the test passes. Nothing from the
 * developer's shell (a DATABASE_URL, an SMTP_URL, vitest's NODE_ENV) leaks into the program.
 */

const root = path.resolve(import.meta.dirname, '../..');

export interface ScriptOptions {
  env?: Record<string, string>;
}

export interface RunningScript {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output: () => string;
  /** Its exit code; null when a signal ended it. */
  exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in the output; fails if it exits first or after `timeoutMs`. */
  waitForOutput: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>;
  /** Sends `signal` (SIGTERM by default) unless it has exited, and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

function cleanEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
  if (process.env.TMPDIR) base.TMPDIR = process.env.TMPDIR;
  return { ...base, ...env };
}

/** Starts `script` (a path from the repository root, e.g. src/server/main.ts) with `args`. */
export function startScript(script: string, args: string[] = [], options: ScriptOptions = {}): RunningScript {
  const child = spawn(process.execPath, [bundledScript(script), ...args], {
    cwd: root,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const waitForOutput = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const finish = (error?: Error, match?: RegExpExecArray) => {
        listeners.delete(check);
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(match!);
      };
      const check = () => {
        const match = pattern.exec(out);
        if (match) finish(undefined, match);
      };
      const timer = setTimeout(
        () => finish(new Error(`${script}: no output matching ${pattern} within ${timeoutMs} ms:\n${out}`)),
        timeoutMs,
      );
      listeners.add(check);
      void exited.then((code) =>
        finish(new Error(`${script} exited (${code ?? 'signal'}) before printing ${pattern}:\n${out}`)),
      );
      check();
    });

  return {
    child,
    output: () => out,
    exited,
    waitForOutput,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `script` to its end (e.g. the admin CLI) and returns its exit code and output. */
export function runScript(
  script: string,
  args: string[] = [],
  options: ScriptOptions & { timeoutMs?: number } = {},
): Promise<ScriptResult> {
  const child = spawn(process.execPath, [bundledScript(script), ...args], {
    cwd: root,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `npm run admin -- <args>`, on the database `env` names (DATABASE_URL or DATA_DIR). */
export function runAdmin(args: string[], env: Record<string, string>): Promise<ScriptResult> {
  return runScript('src/server/admin.ts', args, { env });
}
