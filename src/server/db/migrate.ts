import {
  Migrator,
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
} from 'kysely';
import * as appMeta from './migrations/0001-app-meta.ts';
import * as mailOutbox from './migrations/0002-mail-outbox.ts';
import * as caughtMail from './migrations/0003-caught-mail.ts';
import * as accounts from './migrations/0004-accounts.ts';
import * as emailsAndUsage from './migrations/0005-emails-and-usage.ts';
import * as emailSearch from './migrations/0006-email-search.ts';
import * as billing from './migrations/0007-billing.ts';
import * as housekeepingIndexes from './migrations/0008-housekeeping-indexes.ts';
import * as perRecipientDelivery from './migrations/0009-per-recipient-delivery.ts';
import * as emailSourceAndMessage from './migrations/0010-email-source-and-message.ts';
import * as accountProtection from './migrations/0011-account-protection.ts';
import * as emailChecks from './migrations/0012-email-checks.ts';
import * as emailSourceFormat from './migrations/0013-email-source-format.ts';
import * as sessionNotify from './migrations/0014-session-notify.ts';
import * as apiKeys from './migrations/0015-api-keys.ts';
import * as emailThreads from './migrations/0016-email-threads.ts';
import * as threadSharesAndReviews from './migrations/0018-thread-shares-and-reviews.ts';
import * as emailThumbnails from './migrations/0021-email-thumbnails.ts';
import * as shareExpiryLength from './migrations/0022-share-expiry-length.ts';
import * as emailSearchWords from './migrations/0023-email-search-words.ts';
import * as loginAlertDevice from './migrations/0024-login-alert-device.ts';
import * as emailSourceSubject from './migrations/0025-email-source-subject.ts';
import * as loginAlertDevices from './migrations/0026-login-alert-devices.ts';
import * as templateDataAsWritten from './migrations/0027-template-data-as-written.ts';
import * as threadNumbersKept from './migrations/0028-thread-numbers-kept.ts';

/**
 * Every migration, in order. A static list (not a folder scan) so bundlers, tsx and tests all
 * see the same set. Add new ones at the end; never edit one that has shipped.
 */
const migrations: Record<string, Migration> = {
  '0001-app-meta': appMeta,
  '0002-mail-outbox': mailOutbox,
  '0003-caught-mail': caughtMail,
  '0004-accounts': accounts,
  '0005-emails-and-usage': emailsAndUsage,
  '0006-email-search': emailSearch,
  '0007-billing': billing,
  '0008-housekeeping-indexes': housekeepingIndexes,
  '0009-per-recipient-delivery': perRecipientDelivery,
  '0010-email-source-and-message': emailSourceAndMessage,
  '0011-account-protection': accountProtection,
  '0012-email-checks': emailChecks,
  '0013-email-source-format': emailSourceFormat,
  '0014-session-notify': sessionNotify,
  '0015-api-keys': apiKeys,
  '0016-email-threads': emailThreads,
  '0018-thread-shares-and-reviews': threadSharesAndReviews,
  '0021-email-thumbnails': emailThumbnails,
  '0022-share-expiry-length': shareExpiryLength,
  '0023-email-search-words': emailSearchWords,
  '0024-login-alert-device': loginAlertDevice,
  '0025-email-source-subject': emailSourceSubject,
  '0026-login-alert-devices': loginAlertDevices,
  '0027-template-data-as-written': templateDataAsWritten,
  '0028-thread-numbers-kept': threadNumbersKept,
};

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };

/** Brings the schema up to date; safe to run at every start and from several processes at once. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  return outcome(await new Migrator({ db, provider }).migrateToLatest());
}

/** Brings the schema to the named migration, up or down (tests of a migration's data path). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export async function migrateTo(db: Kysely<any>, name: string): Promise<string[]> {
  if (!(name in migrations)) throw new Error(`No migration named ${name}`);
  return outcome(await new Migrator({ db, provider }).migrateTo(name));
}

function outcome({ error, results }: MigrationResultSet): string[] {
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`Database migration ${failed ?? ''} failed: ${String(error)}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
