import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { isUuid } from '../../db/uuid.ts';

/**
 * Public links, one per thread (migration 0018, docs/decisions/0083-share-per-thread.md). Owner
 * calls are scoped by `user_id`; the public view finds a link by its slug only.
 */

export interface ShareRow {
  thread_id: string;
  user_id: string;
  slug: string;
  created_at: Date;
  expires_at: Date | null;
  expires_in_days: number | null;
  password_hash: string | null;
  viewer_secret: Buffer;
  views: number;
  last_viewed_at: Date | null;
}

/** When a link ends, and the length it was set for (both null: never). */
export interface ShareExpiry {
  at: Date | null;
  days: number | null;
}

const SHARE_COLUMNS = [
  'thread_id',
  'user_id',
  'slug',
  'created_at',
  'expires_at',
  'expires_in_days',
  'password_hash',
  'viewer_secret',
  'views',
  'last_viewed_at',
] as const;

/** A new random secret for viewer tokens, made by PostgreSQL like the column's default. */
const NEW_VIEWER_SECRET = sql<Buffer>`uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())`;

/** The thread of one of the user's live (not deleted) emails. */
export async function threadOfEmail(
  db: Executor,
  userId: string,
  emailId: string,
): Promise<string | undefined> {
  if (!isUuid(emailId)) return undefined;
  const row = await db
    .selectFrom('emails')
    .select('thread_id')
    .where('user_id', '=', userId)
    .where('id', '=', emailId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.thread_id;
}

export async function findShareOfThread(
  db: Executor,
  userId: string,
  threadId: string,
): Promise<ShareRow | undefined> {
  return db
    .selectFrom('email_shares')
    .select(SHARE_COLUMNS)
    .where('user_id', '=', userId)
    .where('thread_id', '=', threadId)
    .executeTakeFirst();
}

export async function findShareBySlug(db: Executor, slug: string): Promise<ShareRow | undefined> {
  return db.selectFrom('email_shares').select(SHARE_COLUMNS).where('slug', '=', slug).executeTakeFirst();
}

/**
 * A new link for the thread, replacing a dead (expired) one: new slug, new secret, no views.
 * Racing first shares of one thread are settled by the primary key: the second keeps the first's.
 */
export async function createShare(
  db: Executor,
  share: {
    threadId: string;
    userId: string;
    slug: string;
    now: Date;
    expiry: ShareExpiry;
    passwordHash: string | null;
    /** Replace this dead link's row (its slug); otherwise never overwrite a link. */
    replacing?: string;
  },
): Promise<void> {
  await db
    .insertInto('email_shares')
    .values({
      thread_id: share.threadId,
      user_id: share.userId,
      slug: share.slug,
      created_at: share.now,
      expires_at: share.expiry.at,
      expires_in_days: share.expiry.days,
      password_hash: share.passwordHash,
    })
    .onConflict((oc) =>
      share.replacing
        ? oc
            .column('thread_id')
            .doUpdateSet({
              slug: share.slug,
              created_at: share.now,
              expires_at: share.expiry.at,
              expires_in_days: share.expiry.days,
              password_hash: share.passwordHash,
              viewer_secret: NEW_VIEWER_SECRET,
              views: 0,
              last_viewed_at: null,
            })
            .where('email_shares.slug', '=', share.replacing)
        : oc.column('thread_id').doNothing(),
    )
    .execute();
}

/** Changes a live link's settings; a new or removed password renews the secret (ending every unlock). */
export async function updateShareSettings(
  db: Executor,
  userId: string,
  threadId: string,
  settings: { expiry?: ShareExpiry; passwordHash?: string | null },
): Promise<void> {
  if (settings.expiry === undefined && settings.passwordHash === undefined) return;
  await db
    .updateTable('email_shares')
    .set({
      ...(settings.expiry !== undefined && {
        expires_at: settings.expiry.at,
        expires_in_days: settings.expiry.days,
      }),
      ...(settings.passwordHash !== undefined && {
        password_hash: settings.passwordHash,
        viewer_secret: NEW_VIEWER_SECRET,
      }),
    })
    .where('user_id', '=', userId)
    .where('thread_id', '=', threadId)
    .execute();
}

/** A new slug (the old one is dead at once) and a new secret; settings and views stay. */
export async function rotateShare(
  db: Executor,
  userId: string,
  threadId: string,
  slug: string,
): Promise<boolean> {
  const res = await db
    .updateTable('email_shares')
    .set({ slug, viewer_secret: NEW_VIEWER_SECRET })
    .where('user_id', '=', userId)
    .where('thread_id', '=', threadId)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

export async function deleteShare(db: Executor, userId: string, threadId: string): Promise<void> {
  await db
    .deleteFrom('email_shares')
    .where('user_id', '=', userId)
    .where('thread_id', '=', threadId)
    .execute();
}

/** One view of the link's email. */
export async function recordView(db: Executor, threadId: string, now: Date): Promise<void> {
  await db
    .updateTable('email_shares')
    .set({ views: sql<number>`views + 1`, last_viewed_at: now })
    .where('thread_id', '=', threadId)
    .execute();
}

const live = (now: Date) => sql<boolean>`(expires_at is null or expires_at > ${now})`;

/** How many of the user's links work (not expired). */
export async function countLiveShares(db: Executor, userId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('email_shares')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where(live(now))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Withdraws every link of the user; returns how many of them worked. */
export async function deleteAllShares(db: Executor, userId: string, now: Date): Promise<number> {
  const rows = await db
    .deleteFrom('email_shares')
    .where('user_id', '=', userId)
    .returning(live(now).as('live'))
    .execute();
  return rows.filter((r) => r.live).length;
}

/** The live versions of a thread, newest first. */
export async function listThreadVersions(
  db: Executor,
  userId: string,
  threadId: string,
): Promise<{ id: string; version: number; created_at: Date }[]> {
  return db
    .selectFrom('emails')
    .select(['id', 'version', 'created_at'])
    .where('user_id', '=', userId)
    .where('thread_id', '=', threadId)
    .where('deleted_at', 'is', null)
    .orderBy('version', 'desc')
    .execute();
}

/** The number of the thread's latest live version; undefined when none is left. */
export async function latestThreadVersion(
  db: Executor,
  userId: string,
  threadId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('emails')
    .select('version')
    .where('user_id', '=', userId)
    .where('thread_id', '=', threadId)
    .where('deleted_at', 'is', null)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.version;
}

export async function findVersionContent(
  db: Executor,
  id: string,
): Promise<{ id: string; subject: string; html: string; created_at: Date } | undefined> {
  return db
    .selectFrom('emails')
    .select(['id', 'subject', 'html', 'created_at'])
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
