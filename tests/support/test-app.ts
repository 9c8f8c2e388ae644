import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/server/app.ts';
import { ManualClock } from '../../src/server/clock.ts';
import { loadConfig, type Config } from '../../src/server/config.ts';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
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
}

/** A real app on a fresh database; env entries override the defaults a test run uses. */
export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const database = await createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'info',
    DATABASE_POOL_SIZE: '5',
    ...options.env,
  });
  const pool = createPool(database.url, config.databasePoolSize);
  const db = createDb(pool);
  const clock = new ManualClock();
  const stream = new PassThrough();
  let logged = '';
  stream.on('data', (chunk: Buffer) => (logged += chunk.toString()));
  const app = await buildApp({ config, db, clock, logStream: stream, ...options.deps });
  await app.ready();
  return {
    app,
    db,
    config,
    clock,
    databaseUrl: database.url,
    logs: () => logged,
    close: async () => {
      await app.close();
      await db.destroy();
      await database.drop();
    },
  };
}
