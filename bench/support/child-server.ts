import type { ChildProcess } from 'node:child_process';
import { startScript } from '../../tests/support/child-process.ts';
import { freePort } from '../../tests/support/free-port.ts';

/**
 * Starts a server in a child process; resolves with its URL and pid. `app`: the API without
 * mail workers (bench/support/serve.ts); `full`: the same with its workers; `hello`: an empty
 * Fastify app; `main`: the real `src/server/main.ts` (workers and all) on the given environment.
 */
export async function startChildServer(
  kind: 'app' | 'full' | 'hello' | 'main',
  env: Record<string, string> = {},
): Promise<{ url: string; pid: number; child: ChildProcess; stop: () => Promise<void> }> {
  const port = kind === 'main' ? await freePort() : 0;
  const server =
    kind === 'main'
      ? startScript('src/server/main.ts', [], { env: { LOG_LEVEL: 'warn', ...env, PORT: String(port) } })
      : startScript('bench/support/serve.ts', [kind], { env: { LOG_LEVEL: 'warn', ...env } });
  const ready = await server.waitForOutput(kind === 'main' ? /Proofmail is running/ : /LISTENING (\d+)/);
  return {
    url: `http://127.0.0.1:${kind === 'main' ? port : ready[1]}`,
    pid: server.child.pid!,
    child: server.child,
    stop: async () => {
      await server.stop();
    },
  };
}
