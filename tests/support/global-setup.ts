import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createDb, createPool } from '../../src/server/db/database.ts';
import { startEmbeddedPostgres } from '../../src/server/db/embedded-postgres.ts';
import { migrateToLatest } from '../../src/server/db/migrate.ts';

export const TEMPLATE_DB = 'proofmail_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the test cluster's maintenance database. */
    pgAdminUrl: string;
  }
}

interface Cluster {
  adminUrl: string;
  stop: () => Promise<void>;
}

async function startCluster(): Promise<Cluster> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-test-pg-'));
  await fs.chmod(dataDir, 0o755);
  const cluster = await startEmbeddedPostgres({
    dataDir,
    // Durability is irrelevant for throwaway test data; speed is not.
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' },
    log: () => undefined,
  });
  const admin = new pg.Client({ connectionString: cluster.connectionString('postgres') });
  await admin.connect();
  await admin.query(`create database ${TEMPLATE_DB}`);
  await admin.end();
  const pool = createPool(cluster.connectionString(TEMPLATE_DB), 2);
  const db = createDb(pool);
  await migrateToLatest(db);
  await db.destroy();
  return {
    adminUrl: cluster.connectionString('postgres'),
    stop: async () => {
      await cluster.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

// Both projects list this file; vitest loads it once per project, so the shared cluster is kept
// on globalThis (the run's main process) and stopped when the last project is done with it.
const shared = globalThis as { proofmailTestCluster?: { cluster: Promise<Cluster>; users: number } };

/** One real PostgreSQL cluster per test run, with a migrated template database to clone. */
export default async function setup(project: TestProject) {
  shared.proofmailTestCluster ??= { cluster: startCluster(), users: 0 };
  const entry = shared.proofmailTestCluster;
  entry.users += 1;
  const cluster = await entry.cluster;
  project.provide('pgAdminUrl', cluster.adminUrl);
  return async () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    shared.proofmailTestCluster = undefined;
    await cluster.stop();
  };
}
