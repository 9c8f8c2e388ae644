import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ReviewDecision } from '../../db/schema.ts';

/** Client reviews of a thread's versions (migration 0018), owned by the thread's owner. */

export interface ReviewRow {
  id: string;
  version: number;
  name: string;
  decision: ReviewDecision;
  comment: string | null;
  pin_x: number | null;
  pin_y: number | null;
  pin_width: number | null;
  created_at: Date;
}

const REVIEW_COLUMNS = [
  'id',
  'version',
  'name',
  'decision',
  'comment',
  'pin_x',
  'pin_y',
  'pin_width',
  'created_at',
] as const;

/**
 * The same review of the thread given since `since` (same version, name, decision, comment and
 * pin), after taking the thread's review lock: a double click or a client's retry sent it twice.
 */
export async function findSameReview(
  db: Executor,
  review: {
    threadId: string;
    version: number;
    name: string;
    decision: ReviewDecision;
    comment: string | null;
    pin: { x: number; y: number; width: number | null } | null;
  },
  since: Date,
): Promise<ReviewRow | undefined> {
  // One review of a thread at a time is written: two copies sent at once cannot both miss each other.
  await sql`select pg_advisory_xact_lock(hashtext('email_reviews'), hashtext(${review.threadId}))`.execute(
    db,
  );
  return db
    .selectFrom('email_reviews')
    .select(REVIEW_COLUMNS)
    .where('thread_id', '=', review.threadId)
    .where('version', '=', review.version)
    .where('name', '=', review.name)
    .where('decision', '=', review.decision)
    .where(sql<boolean>`comment is not distinct from ${review.comment}`)
    .where(sql<boolean>`pin_x is not distinct from ${review.pin?.x ?? null}`)
    .where(sql<boolean>`pin_y is not distinct from ${review.pin?.y ?? null}`)
    .where(sql<boolean>`pin_width is not distinct from ${review.pin?.width ?? null}`)
    .where('created_at', '>=', since)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertReview(
  db: Executor,
  review: {
    threadId: string;
    userId: string;
    version: number;
    name: string;
    decision: ReviewDecision;
    comment: string | null;
    pin: { x: number; y: number; width: number | null } | null;
    now: Date;
  },
): Promise<ReviewRow> {
  return db
    .insertInto('email_reviews')
    .values({
      thread_id: review.threadId,
      user_id: review.userId,
      version: review.version,
      name: review.name,
      decision: review.decision,
      comment: review.comment,
      pin_x: review.pin?.x ?? null,
      pin_y: review.pin?.y ?? null,
      pin_width: review.pin?.width ?? null,
      created_at: review.now,
    })
    .returning(REVIEW_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Every review of the thread, oldest first (at most the newest 500). */
export async function listReviews(db: Executor, userId: string, threadId: string): Promise<ReviewRow[]> {
  const rows = await db
    .selectFrom('email_reviews')
    .select(REVIEW_COLUMNS)
    .where('user_id', '=', userId)
    .where('thread_id', '=', threadId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(500)
    .execute();
  return rows.reverse();
}

/** Deletes one review of the thread (`reviewId`), or all of them; answers how many went. */
export async function deleteReviews(
  db: Executor,
  userId: string,
  threadId: string,
  reviewId?: string,
): Promise<number> {
  let query = db.deleteFrom('email_reviews').where('user_id', '=', userId).where('thread_id', '=', threadId);
  if (reviewId !== undefined) query = query.where('id', '=', reviewId);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The latest approve / request-changes decision of each listed thread of the user. */
export async function latestDecisions(
  db: Executor,
  userId: string,
  threadIds: string[],
): Promise<Map<string, { decision: 'approved' | 'changes_requested'; version: number }>> {
  if (threadIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('email_reviews')
    .distinctOn('thread_id')
    .select(['thread_id', 'decision', 'version'])
    .where('user_id', '=', userId)
    .where('thread_id', 'in', threadIds)
    .where('decision', '!=', 'comment')
    .orderBy('thread_id')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return new Map(
    rows.map((r) => [
      r.thread_id,
      { decision: r.decision as 'approved' | 'changes_requested', version: r.version },
    ]),
  );
}

/** The owner's address and whether they want a mail for each decision. */
export async function reviewNotifyTarget(
  db: Executor,
  userId: string,
): Promise<{ email: string; review_notifications: boolean } | undefined> {
  return db
    .selectFrom('users')
    .select(['email', 'review_notifications'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function loadReviewNotifications(db: Executor, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('review_notifications')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.review_notifications;
}

export async function saveReviewNotifications(
  db: Executor,
  userId: string,
  on: boolean,
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set({ review_notifications: on, updated_at: now })
    .where('id', '=', userId)
    .returning('review_notifications')
    .executeTakeFirstOrThrow();
  return row.review_notifications;
}
