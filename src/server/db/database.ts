import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.ts';
import { migrateToLatest } from './migrate.ts';
import type { Database } from './schema.ts';

// timestamptz → Date is pg's default; bigint (int8) counts come back as strings unless parsed.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Kysely<Database>;

export interface OpenDatabase {
  db: Db;
  pool: pg.Pool;
  connectionString: string;
  embedded: EmbeddedPostgres | undefined;
  close: () => Promise<void>;
}

export interface OpenDatabaseOptions {
  log?: (line: string) => void;
  /** Run migrations after connecting (the app and the worker do; tools may not). */
  migrate?: boolean;
}

export function createPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: 'proofmail',
  });
  // A dropped connection (database restart) must not crash the process. Idle clients report to
  // the pool; a checked-out client reports to itself, and its query fails anyway (→ 503); the
  // pool drops ended clients and opens new ones.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export function createDb(pool: pg.Pool): Db {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL in DATA_DIR, then migrates. */
export async function openDatabase(config: Config, options: OpenDatabaseOptions = {}): Promise<OpenDatabase> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({ dataDir: config.dataDir, log: options.log });
  const connectionString = config.databaseUrl ?? embedded!.connectionString('postgres');
  const pool = createPool(connectionString, config.databasePoolSize);
  const db = createDb(pool);
  try {
    if (options.migrate !== false) await migrateToLatest(db);
  } catch (err) {
    await db.destroy().catch(() => undefined);
    await embedded?.stop();
    throw err;
  }
  return {
    db,
    pool,
    connectionString,
    embedded,
    close: async () => {
      await db.destroy(); // ends the pool
      await embedded?.stop();
    },
  };
}
