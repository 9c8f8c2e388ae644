import type { Db } from '../../src/server/db/database.ts';
import { emailRow } from '../../src/server/features/email/email.repo.ts';

/**
 * The next version of a thread, stored as the send of a version would store it (version N of the
 * thread `threadId`, to client@example.com, created `version` ms after `at` so versions sort in
 * order). Answers its id.
 */
export async function insertVersion(
  db: Db,
  v: { userId: string; threadId: string; version: number; subject: string; html: string; at?: Date },
): Promise<string> {
  const row = await db
    .insertInto('emails')
    .values({
      ...emailRow({
        userId: v.userId,
        to: 'client@example.com',
        subject: v.subject,
        html: v.html,
        inlineCss: false,
        createdAt: new Date((v.at ?? new Date()).getTime() + v.version),
      }),
      thread_id: v.threadId,
      version: v.version,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
