import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/server/db/embedded-postgres.ts';
import { migrateToLatest } from '../../src/server/db/migrate.ts';

/**
 * The benchmark's own PostgreSQL: the embedded server in a temp dir, with its default (durable)
 * settings, as `npm start` runs it. Each metric module gets a fresh migrated database.
 */
export interface BenchPostgres {
  createDatabase(): Promise<{ url: string; db: Db; drop: () => Promise<void> }>;
  stop(): Promise<void>;
}

export async function startBenchPostgres(log: (line: string) => void): Promise<BenchPostgres> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-bench-pg-'));
  await fs.chmod(dataDir, 0o755);
  let cluster: EmbeddedPostgres;
  try {
    cluster = await startEmbeddedPostgres({ dataDir, settings: { max_connections: '200' }, log });
  } catch (err) {
    await fs.rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const admin = async (query: string) => {
    const c = new pg.Client({ connectionString: cluster.connectionString('postgres') });
    await c.connect();
    try {
      await c.query(query);
    } finally {
      await c.end();
    }
  };
  return {
    async createDatabase() {
      const name = `bench_${randomBytes(5).toString('hex')}`;
      await admin(`create database ${name}`);
      const url = cluster.connectionString(name);
      const db = createDb(createPool(url, 16));
      await migrateToLatest(db);
      return {
        url,
        db,
        drop: async () => {
          await db.destroy();
          await admin(`drop database if exists ${name} with (force)`);
        },
      };
    },
    async stop() {
      await cluster.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
