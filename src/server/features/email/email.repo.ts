import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Check } from '../../../shared/contract/checks.ts';
import type { Executor } from '../../db/executor.ts';
import type { EmailHeader, OutboxState } from '../../db/schema.ts';
import { isUuid } from '../../db/uuid.ts';
import type { EmailTemplate, SourceFormat, TemplateSyntax } from '../../../shared/contract/email.ts';

export interface NewEmail {
  userId: string;
  to: string;
  subject: string;
  /** The HTML part as sent. */
  html: string;
  inlineCss: boolean;
  createdAt: Date;
  /** The source's language and its merge tags with their sample data (migration 0013). */
  format?: SourceFormat;
  template?: EmailTemplate | null;
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
  /** The pre-send checklist computed at sending (migration 0012). */
  checks?: Check[];
}

export async function insertEmail(trx: Executor, email: NewEmail): Promise<{ id: string }> {
  return trx.insertInto('emails').values(emailRow(email)).returning('id').executeTakeFirstOrThrow();
}

/** The row of a new email; `id` when the caller chose it (a send stores email, outbox and ledger rows in one statement). */
export function emailRow(email: NewEmail, id?: string) {
  return {
    ...(id && { id }),
    user_id: email.userId,
    to_addresses: email.to,
    subject: email.subject,
    html: email.html,
    inline_css: email.inlineCss,
    created_at: email.createdAt,
    format: email.format ?? 'html',
    template_syntax: email.template?.syntax ?? null,
    template_data: email.template ? JSON.stringify(email.template.data) : null,
    ...(email.message && {
      source_html: email.message.sourceHtml,
      text_override: email.message.textOverride,
      text_part: email.message.textPart,
      headers: JSON.stringify(email.message.headers),
      mail_from: email.message.mailFrom,
      html_bytes: email.message.htmlBytes,
      message_bytes: email.message.messageBytes,
    }),
    ...(email.checks && { checks: JSON.stringify(email.checks) }),
  };
}

/** One outbox row of an email, as the history and detail read it. */
export interface DeliveryRow {
  id: string;
  to: string[];
  state: OutboxState;
  attempts: number;
  code: number | null;
  error: string | null;
  /** ISO time from PostgreSQL's JSON. */
  sent_at: string | null;
  message_id: string;
  uncertain: boolean;
}

export interface EmailRow {
  id: string;
  to_addresses: string;
  subject: string;
  created_at: Date;
  thread_id: string;
  /** The thread's public link (migration 0018); expired when `share_expires_at` has passed. */
  share_slug: string | null;
  share_expires_at: Date | null;
  /** Every delivery of this email (one per recipient; at most five). */
  deliveries: DeliveryRow[];
}

/** The detail: the HTML as sent, and the source and message columns of migration 0010. */
export interface EmailRowWithHtml extends EmailRow {
  html: string;
  inline_css: boolean;
  format: SourceFormat;
  template_syntax: TemplateSyntax | null;
  template_data: Record<string, unknown> | null;
  source_html: string | null;
  text_override: string | null;
  text_part: string | null;
  headers: EmailHeader[] | null;
  html_bytes: number | null;
  message_bytes: number | null;
  checks: Check[] | null;
  /** Of the outbox row: what an email sent before migration 0010 is rebuilt from. */
  outbox_reply_to: string | null;
  outbox_text: string | null;
}

/**
 * Emails their owner has not deleted, each with its deliveries. The subquery runs only for the
 * rows a page returns (PostgreSQL evaluates it after ORDER BY … LIMIT).
 */
function emailsWithDelivery(db: Executor) {
  return db
    .selectFrom('emails as e')
    .leftJoin('email_shares as s', 's.thread_id', 'e.thread_id')
    .where('e.deleted_at', 'is', null)
    .select([
      'e.id',
      'e.to_addresses',
      'e.subject',
      'e.created_at',
      'e.thread_id',
      's.slug as share_slug',
      's.expires_at as share_expires_at',
      sql<DeliveryRow[]>`(
        select coalesce(jsonb_agg(jsonb_build_object(
                 'id', o.id, 'to', o.to_addresses, 'state', o.state, 'attempts', o.attempts,
                 'code', o.last_error_code, 'error', o.last_error, 'sent_at', o.sent_at,
                 'message_id', o.message_id, 'uncertain', o.uncertain) order by o.created_at, o.id), '[]'::jsonb)
          from mail_outbox o where o.email_id = e.id)`.as('deliveries'),
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
      'e.format',
      'e.template_syntax',
      'e.template_data',
      'e.source_html',
      'e.text_override',
      'e.text_part',
      'e.headers',
      'e.html_bytes',
      'e.message_bytes',
      'e.checks',
      // Of the first delivery: what an email sent before migration 0010 is rebuilt from.
      sql<string | null>`(select o.reply_to from mail_outbox o where o.email_id = e.id
                          order by o.created_at, o.id limit 1)`.as('outbox_reply_to'),
      sql<string | null>`(select o.text from mail_outbox o where o.email_id = e.id
                          order by o.created_at, o.id limit 1)`.as('outbox_text'),
    ])
    .where('e.user_id', '=', userId)
    .where('e.id', '=', id)
    .executeTakeFirst();
}

/**
 * Deletes an email. While one of its deliveries is still under way the row stays, hidden
 * (`deleted_at`), because the delivery reads its content from it; the housekeeping job
 * purges it once every delivery has settled (docs/decisions/0038-one-outbox-row-per-recipient.md).
 * Deleting or hiding a thread's last version withdraws its link and reviews (trigger of migration 0018).
 */
export async function deleteEmail(db: Db, userId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const deleted = await db
    .deleteFrom('emails as e')
    .where('e.user_id', '=', userId)
    .where('e.id', '=', id)
    .where('e.deleted_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('mail_outbox as o')
            .select('o.id')
            .whereRef('o.email_id', '=', 'e.id')
            .where('o.state', 'in', UNSETTLED_STATES),
        ),
      ),
    )
    .executeTakeFirst();
  if (deleted.numDeletedRows > 0n) return true;
  const hidden = await db
    .updateTable('emails')
    .set({ deleted_at: sql<Date>`now()` })
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return hidden.numUpdatedRows > 0n;
}

/** Deliveries that still need their email's content. */
const UNSETTLED_STATES: OutboxState[] = ['queued', 'sending', 'retry_wait'];

/** One recipient's message as it was sent: what `message.eml` is rebuilt from. */
export interface SentMessageRow {
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
): Promise<SentMessageRow | undefined> {
  if (!isUuid(emailId) || (deliveryId !== undefined && !isUuid(deliveryId))) return undefined;
  let query = db
    .selectFrom('mail_outbox as o')
    .innerJoin('emails as e', 'e.id', 'o.email_id')
    .select([
      'o.id',
      'o.message_id',
      'o.to_addresses',
      'o.reply_to',
      // A user's send keeps its content once, on the email (docs/decisions/0038-one-outbox-row-per-recipient.md);
      // rows queued before that carry their own copy.
      sql<string>`coalesce(o.subject, e.subject)`.as('subject'),
      sql<string>`coalesce(o.html, e.html)`.as('html'),
      sql<string | null>`coalesce(o.text, e.text_part)`.as('text'),
      'o.created_at',
      'e.mail_from',
    ])
    .where('e.user_id', '=', userId)
    .where('e.id', '=', emailId)
    .where('e.deleted_at', 'is', null);
  if (deliveryId !== undefined) query = query.where('o.id', '=', deliveryId);
  return query.orderBy('o.created_at').orderBy('o.id').limit(1).executeTakeFirst();
}
