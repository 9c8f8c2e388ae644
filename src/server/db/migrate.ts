import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as appMeta from './migrations/0001-app-meta.ts';
import * as mailOutbox from './migrations/0002-mail-outbox.ts';

/**
 * Every migration, in order. A static list (not a folder scan) so bundlers, tsx and tests all
 * see the same set. Add new ones at the end; never edit one that has shipped.
 */
const migrations: Record<string, Migration> = {
  '0001-app-meta': appMeta,
  '0002-mail-outbox': mailOutbox,
};

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };

/** Brings the schema up to date; safe to run at every start and from several processes at once. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`Database migration ${failed ?? ''} failed: ${String(error)}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
