import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import type { AppDeps } from '../../src/server/app-deps.ts';
import { systemClock, type Clock } from '../../src/server/clock.ts';
import type { Config } from '../../src/server/config.ts';
import type { Db } from '../../src/server/db/database.ts';
import { createTestApp } from './test-app.ts';
import { freePort } from './free-port.ts';

export interface TestServer {
  /** e.g. http://127.0.0.1:41234 (also the app's PUBLIC_URL, so links in mails point here). */
  baseUrl: string;
  app: FastifyInstance;
  db: Db;
  config: Config;
  clock: Clock;
  databaseUrl: string;
  logs: () => string;
  close: () => Promise<void>;
}

export interface TestServerOptions {
  /** Environment overrides (FREE_MONTHLY_LIMIT, SMTP_URL, …); PUBLIC_URL defaults to baseUrl. */
  env?: Record<string, string>;
  /** Extra or replacement dependencies for buildApp (mailer, clock, OAuth endpoints, …). */
  deps?: Partial<AppDeps>;
}

/** The web build this run serves (built by e2e-global-setup), or dist/web outside the e2e project. */
function webRoot(): string {
  let dir: string | undefined;
  try {
    dir = inject('webRoot');
  } catch {
    dir = undefined;
  }
  dir ??= path.resolve(import.meta.dirname, '../../dist/web');
  if (!fs.existsSync(path.join(dir, 'index.html'))) {
    throw new Error(`No web build at ${dir}: run browser tests with \`npx vitest run --project e2e\``);
  }
  return dir;
}

/**
 * The real app (built SPA + API) on a fresh database, listening on a free loopback port.
 * The port is chosen before the app is built so PUBLIC_URL (used in every link the server
 * makes) can name it; on the rare lost race for that port we build again on another.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const root = webRoot();
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const clock = options.deps?.clock ?? systemClock;
    const parts = await createTestApp({
      env: { HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: baseUrl, ...options.env },
      deps: { webRoot: root, ...options.deps, clock },
    });
    try {
      await parts.app.listen({ host: '127.0.0.1', port });
    } catch (err) {
      await parts.close();
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 3) continue;
      throw err;
    }
    return { ...parts, baseUrl, clock };
  }
}
