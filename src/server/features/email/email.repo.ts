import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { EmailHeader, OutboxState } from '../../db/schema.ts';
import { isUuid } from '../../db/uuid.ts';

export interface NewEmail {
  userId: string;
  to: string;
  subject: string;
  /** The HTML part as sent. */
  html: string;
  inlineCss: boolean;
  createdAt: Date;
  /** Source and message (migration 0010); absent only for rows made outside a send (tests, benchmarks). */
  message?: {
    /** The HTML as written, when it differs from `html`. */
    sourceHtml: string | null;
    textOverride: string | null;
    textPart: string;
    headers: EmailHeader[];
    mailFrom: string;
    htmlBytes: number;
    messageBytes: number;
  };
}

export async function insertEmail(trx: Executor, email: NewEmail): Promise<{ id: string }> {
  return trx
    .insertInto('emails')
    .values({
      user_id: email.userId,
      to_addresses: email.to,
      subject: email.subject,
      html: email.html,
      inline_css: email.inlineCss,
      created_at: email.createdAt,
      ...(email.message && {
        source_html: email.message.sourceHtml,
        text_override: email.message.textOverride,
        text_part: email.message.textPart,
        headers: JSON.stringify(email.message.headers),
        mail_from: email.message.mailFrom,
        html_bytes: email.message.htmlBytes,
        message_bytes: email.message.messageBytes,
      }),
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

/** The detail: the HTML as sent, and the source and message columns of migration 0010. */
export interface EmailRowWithHtml extends EmailRow {
  html: string;
  inline_css: boolean;
  source_html: string | null;
  text_override: string | null;
  text_part: string | null;
  headers: EmailHeader[] | null;
  html_bytes: number | null;
  message_bytes: number | null;
  /** Of the outbox row: what an email sent before migration 0010 is rebuilt from. */
  outbox_reply_to: string | null;
  outbox_text: string | null;
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
    .select([
      'e.html',
      'e.inline_css',
      'e.source_html',
      'e.text_override',
      'e.text_part',
      'e.headers',
      'e.html_bytes',
      'e.message_bytes',
      'o.reply_to as outbox_reply_to',
      'o.text as outbox_text',
    ])
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

export interface DeliveryRow {
  id: string;
  message_id: string;
  to_addresses: string[];
  reply_to: string | null;
  subject: string;
  html: string;
  text: string | null;
  created_at: Date;
  mail_from: string | null;
}

/**
 * One delivery of the user's email (its outbox row), or the first one when `deliveryId` is absent;
 * undefined when the email or the delivery is not theirs.
 */
export async function findDelivery(
  db: Executor,
  userId: string,
  emailId: string,
  deliveryId: string | undefined,
): Promise<DeliveryRow | undefined> {
  if (!isUuid(emailId) || (deliveryId !== undefined && !isUuid(deliveryId))) return undefined;
  let query = db
    .selectFrom('mail_outbox as o')
    .innerJoin('emails as e', 'e.id', 'o.email_id')
    .select([
      'o.id',
      'o.message_id',
      'o.to_addresses',
      'o.reply_to',
      'o.subject',
      'o.html',
      'o.text',
      'o.created_at',
      'e.mail_from',
    ])
    .where('e.user_id', '=', userId)
    .where('e.id', '=', emailId);
  if (deliveryId !== undefined) query = query.where('o.id', '=', deliveryId);
  return query.orderBy('o.created_at').orderBy('o.id').limit(1).executeTakeFirst();
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
