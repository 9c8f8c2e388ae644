import { PassThrough } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestCallback } from 'fastify';
import type { AppDeps } from '../../src/server/app-deps.ts';
import { startSessionCache } from '../../src/server/accounts/session-cache.ts';
import { createSessionResolver } from '../../src/server/accounts/sessions.ts';
import { buildApp } from '../../src/server/app.ts';
import { ManualClock, systemClock } from '../../src/server/clock.ts';
import { loadConfig, type Config } from '../../src/server/config.ts';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import {
  createTransformPool,
  transformPoolOptions,
  type TransformPool,
} from '../../src/server/prepare/transform-pool.ts';
import { createTestDatabase } from './test-db.ts';

export interface TestContext {
  app: FastifyInstance;
  db: Db;
  config: Config;
  clock: ManualClock;
  databaseUrl: string;
  /** Every line the app logged, for redaction checks. */
  logs: () => string;
  close: () => Promise<void>;
}

export interface TestContextOptions {
  env?: Record<string, string>;
  deps?: Partial<AppDeps>;
  /**
   * Resolve sessions through the per-process session cache, as main.ts does
   * (src/server/accounts/session-cache.ts). Off by default: tests that change a user in SQL and
   * ask the app at once would otherwise race the NOTIFY that drops the cached copy.
   */
  sessionCache?: boolean;
}

/** An app on a fresh database, before it listens: shared by API tests and the browser-test server. */
export type TestApp = Omit<TestContext, 'clock'>;

/**
 * `app.inject()` sends `Host: localhost:80` unless told otherwise, and the app answers only the
 * host of PUBLIC_URL (src/server/http/host-allowlist.ts). Injected requests here name PUBLIC_URL's
 * host, as a browser on that address would; a test that sets `headers.host` or `authority` wins.
 */
export function injectWithPublicHost(app: FastifyInstance, publicUrl: string): void {
  const authority = new URL(publicUrl).host;
  const inject = app.inject.bind(app);
  app.inject = ((options?: InjectOptions | string, callback?: LightMyRequestCallback) => {
    const withHost = typeof options === 'string' ? { url: options, authority } : { authority, ...options };
    return callback ? inject(withHost, callback) : inject(withHost);
  }) as typeof app.inject;
}

/**
 * Transform pools this test process's apps share, one per configuration: test files run one
 * after another in a worker process (vitest.config.ts), and an app of its own would start its
 * transform processes again for every file, about 0.4 s of CPU each
 * (docs/decisions/0098-test-apps-share-transform-processes.md). Idle processes do not keep the
 * worker alive, and they exit with it (src/server/prepare/transform-worker.ts).
 */
const sharedPools = new Map<string, TransformPool>();

function sharedTransformPool(config: Config): TransformPool {
  const options = transformPoolOptions(config);
  const key = JSON.stringify(options);
  let pool = sharedPools.get(key);
  if (!pool) {
    pool = createTransformPool(options);
    sharedPools.set(key, pool);
  }
  return pool;
}

/**
 * Builds a real app on a fresh database cloned from the run's template. `env` overrides the
 * defaults a test run uses; `deps` are passed to buildApp as they are (clock, webRoot, mailer, …).
 */
export async function createTestApp(options: TestContextOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'info',
    DATABASE_POOL_SIZE: '5',
    // The renderer finds Chromium as it does in production (src/server/render/find-chromium.ts).
    PATH: process.env.PATH ?? '',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
    ...options.env,
  });
  const pool = createPool(database.url, config.databasePoolSize);
  const db = createDb(pool);
  const cache = options.sessionCache ? startSessionCache({ connectionString: database.url }) : undefined;
  const sessions = cache
    ? createSessionResolver({ db, clock: options.deps?.clock ?? systemClock, cache })
    : undefined;
  const stream = new PassThrough();
  let logged = '';
  stream.on('data', (chunk: Buffer) => (logged += chunk.toString()));
  try {
    const app = await buildApp({
      config,
      db,
      logStream: stream,
      sessions,
      transforms: sharedTransformPool(config),
      ...options.deps,
    });
    if (cache) app.addHook('onClose', () => cache.close());
    injectWithPublicHost(app, config.publicUrl);
    await app.ready();
    return {
      app,
      db,
      config,
      databaseUrl: database.url,
      logs: () => logged,
      close: async () => {
        await app.close();
        await db.destroy();
        await database.drop();
      },
    };
  } catch (err) {
    await cache?.close();
    await db.destroy();
    await database.drop();
    throw err;
  }
}

/** A real app on a fresh database, with a manual clock; for `app.inject()` API tests. */
export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const clock = new ManualClock();
  const parts = await createTestApp({ ...options, deps: { clock, ...options.deps } });
  return { ...parts, clock };
}
