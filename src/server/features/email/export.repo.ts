import type { Executor } from '../../db/executor.ts';
import { isUuid } from '../../db/uuid.ts';
import type { RenderMode } from '../../../shared/contract/render.ts';

/** The HTML as sent of one of the user's emails (what the renderer renders, and export.html answers). */
export async function findSentHtml(
  db: Executor,
  userId: string,
  id: string,
): Promise<{ id: string; html: string } | undefined> {
  if (!isUuid(id)) return undefined;
  return db
    .selectFrom('emails')
    .select(['id', 'html'])
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/**
 * One of the user's emails for its thumbnail: the stored thumbnail in this mode when there is one,
 * else the HTML as sent to render it from. Undefined for a missing, deleted or another user's email.
 */
export async function findThumbnail(
  db: Executor,
  userId: string,
  id: string,
  mode: RenderMode,
): Promise<{ png: Buffer } | { png: null; html: string } | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db
    .selectFrom('emails as e')
    .leftJoin('email_thumbnails as t', (join) =>
      join.onRef('t.email_id', '=', 'e.id').on('t.mode', '=', mode),
    )
    .select(['t.png'])
    // The HTML only when there is nothing stored: a stored thumbnail costs no 100 KB read.
    .select((eb) => eb.case().when('t.png', 'is', null).then(eb.ref('e.html')).else(null).end().as('html'))
    .where('e.user_id', '=', userId)
    .where('e.id', '=', id)
    .where('e.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return row.png ? { png: row.png } : { png: null, html: row.html ?? '' };
}

/** Keeps a rendered thumbnail; a thumbnail stored meanwhile by a concurrent request wins, unchanged. */
export async function storeThumbnail(db: Executor, id: string, mode: RenderMode, png: Buffer): Promise<void> {
  await db
    .insertInto('email_thumbnails')
    .values({ email_id: id, mode, png })
    .onConflict((oc) => oc.columns(['email_id', 'mode']).doNothing())
    .execute();
}
