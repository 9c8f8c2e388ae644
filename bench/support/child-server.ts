import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../tests/support/free-port.ts';

const root = path.resolve(import.meta.dirname, '../..');


/**
 * Starts a server in a child process; resolves with its URL and pid. `app`: the API without
 * mail workers (bench/support/serve.ts); `hello`: an empty Fastify app; `main`: the real
 * `src/server/main.ts` (workers and all) on the given environment.
 */
export async function startChildServer(
  kind: 'app' | 'full' | 'hello' | 'main',
  env: Record<string, string> = {},
): Promise<{ url: string; pid: number; child: ChildProcess; stop: () => Promise<void> }> {
  const port = kind === 'main' ? await freePort() : 0;
  const script = kind === 'main' ? ['src/server/main.ts'] : ['bench/support/serve.ts', kind];
  const child = spawn(process.execPath, ['--import', 'tsx', ...script], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, ...(kind === 'main' ? { PORT: String(port) } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = kind === 'main' ? (/Proofmail is running/.test(output) ? ['', String(port)] : null) : /LISTENING (\d+)/.exec(output);
      if (m) {
        child.stdout?.off('data', onData);
        resolve({
          url: `http://127.0.0.1:${m[1]}`,
          pid: child.pid!,
          child,
          stop: () =>
            new Promise<void>((r) => {
              if (child.exitCode !== null) return r();
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => reject(new Error(`${kind} server exited (${code}):\n${output}`)));
  });
}
