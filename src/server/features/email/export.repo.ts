import type { Executor } from '../../db/executor.ts';
import { isUuid } from '../../db/uuid.ts';

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
