import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { OutboxState } from '../../db/schema.ts';
import { isUuid } from '../../db/uuid.ts';

export async function insertEmail(
  trx: Executor,
  email: { userId: string; to: string; subject: string; html: string; inlineCss: boolean; createdAt: Date },
): Promise<{ id: string }> {
  return trx
    .insertInto('emails')
    .values({
      user_id: email.userId,
      to_addresses: email.to,
      subject: email.subject,
      html: email.html,
      inline_css: email.inlineCss,
      created_at: email.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export interface EmailRow {
  id: string;
  to_addresses: string;
  subject: string;
  created_at: Date;
  public_slug: string | null;
  outbox_state: OutboxState | null;
  attempts: number | null;
  last_error: string | null;
  last_error_code: number | null;
  sent_at: Date | null;
}

export interface EmailRowWithHtml extends EmailRow {
  html: string;
}

/** Emails joined with the delivery state of their outbox row. */
function emailsWithDelivery(db: Executor) {
  return db
    .selectFrom('emails as e')
    .leftJoin('mail_outbox as o', 'o.email_id', 'e.id')
    .select([
      'e.id',
      'e.to_addresses',
      'e.subject',
      'e.created_at',
      'e.public_slug',
      'o.state as outbox_state',
      'o.attempts',
      'o.last_error',
      'o.last_error_code',
      'o.sent_at',
    ]);
}

/** Escapes LIKE wildcards so `%` and `_` in a search are taken literally. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface Cursor {
  createdAt: Date;
  id: string;
}

export async function listEmails(
  db: Db,
  userId: string,
  options: { limit: number; cursor?: Cursor; q?: string },
): Promise<EmailRow[]> {
  let query = emailsWithDelivery(db).where('e.user_id', '=', userId);
  if (options.cursor) {
    const { createdAt, id } = options.cursor;
    query = query.where(sql<boolean>`(e.created_at, e.id) < (${createdAt}, ${id}::uuid)`);
  }
  if (options.q) {
    const pattern = likePattern(options.q);
    query = query.where((eb) =>
      eb.or([
        eb('e.to_addresses', 'ilike', pattern),
        eb('e.subject', 'ilike', pattern),
        eb('e.html', 'ilike', pattern),
      ]),
    );
  }
  return query.orderBy('e.created_at', 'desc').orderBy('e.id', 'desc').limit(options.limit).execute();
}

export async function findEmail(
  db: Executor,
  userId: string,
  id: string,
): Promise<EmailRowWithHtml | undefined> {
  if (!isUuid(id)) return undefined;
  return emailsWithDelivery(db)
    .select('e.html')
    .where('e.user_id', '=', userId)
    .where('e.id', '=', id)
    .executeTakeFirst();
}

export async function deleteEmail(db: Db, userId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const res = await db
    .deleteFrom('emails')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  return res.numDeletedRows > 0n;
}

/** Sets (or clears, with null) the public slug; keeps an existing slug when sharing again. */
export async function setPublicSlug(
  db: Db,
  userId: string,
  id: string,
  slug: string | null,
  now: Date,
): Promise<boolean> {
  if (!isUuid(id)) return false;
  const res = await db
    .updateTable('emails')
    .set(
      slug === null
        ? { public_slug: null, shared_at: null }
        : {
            public_slug: sql<string>`coalesce(public_slug, ${slug})`,
            shared_at: sql<Date>`coalesce(shared_at, ${now})`,
          },
    )
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

export async function findPublicEmail(db: Db, slug: string) {
  return db
    .selectFrom('emails')
    .select(['id', 'subject', 'html', 'created_at'])
    .where('public_slug', '=', slug)
    .executeTakeFirst();
}

/** How many of the user's emails have a working public link. */
export async function countPublicLinks(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('emails')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('public_slug', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Withdraws every public link of the user; returns how many there were. */
export async function withdrawPublicLinks(db: Db, userId: string): Promise<number> {
  const res = await db
    .updateTable('emails')
    .set({ public_slug: null, shared_at: null })
    .where('user_id', '=', userId)
    .where('public_slug', 'is not', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
