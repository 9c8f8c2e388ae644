import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { CaughtMailHeader, CaughtMailTable } from '../db/schema.ts';

/**
 * Storage of the local mail catcher; read by the dev mailbox. The housekeeping job keeps it to
 * the newest few hundred messages of the last month (src/server/housekeeping/trim-rules.ts).
 */

export type CaughtMailRow = Selectable<CaughtMailTable>;

export interface NewCaughtMail {
  messageId: string | null;
  envelopeFrom: string | null;
  from: string;
  to: string[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: CaughtMailHeader[];
  size: number;
  receivedAt: Date;
}

export async function insertCaughtMail(db: Db, mail: NewCaughtMail): Promise<string> {
  const row = await db
    .insertInto('caught_mail')
    .values({
      message_id: mail.messageId,
      envelope_from: mail.envelopeFrom,
      from_header: mail.from,
      to_addresses: mail.to,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
      headers: JSON.stringify(mail.headers),
      size: mail.size,
      received_at: mail.receivedAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A listed caught mail: what the list shows, and its parts when asked for. */
export type CaughtMailListRow = Pick<
  CaughtMailRow,
  'id' | 'from_header' | 'to_addresses' | 'subject' | 'html' | 'text' | 'received_at'
>;

/**
 * Newest first; `to` narrows to mail for one address (case-insensitive). Without `bodies`, each
 * row's HTML and text are not read (null): the mailbox page lists, then reads the one it shows.
 */
export async function listCaughtMail(
  db: Db,
  args: { limit: number; to?: string; bodies: boolean },
): Promise<CaughtMailListRow[]> {
  const part = (column: 'html' | 'text') =>
    (args.bodies ? sql<string | null>`${sql.ref(column)}` : sql<string | null>`null`).as(column);
  let q = db
    .selectFrom('caught_mail')
    .select(['id', 'from_header', 'to_addresses', 'subject', 'received_at', part('html'), part('text')]);
  if (args.to) {
    const to = args.to.toLowerCase();
    q = q.where(sql<boolean>`exists (select 1 from unnest(to_addresses) a where lower(a) = ${to})`);
  }
  return q.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(args.limit).execute();
}

export async function findCaughtMail(db: Db, id: string): Promise<CaughtMailRow | undefined> {
  return db.selectFrom('caught_mail').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteAllCaughtMail(db: Db): Promise<number> {
  const res = await db.deleteFrom('caught_mail').executeTakeFirst();
  return Number(res.numDeletedRows);
}
