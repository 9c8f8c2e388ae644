import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Check } from '../../../shared/contract/checks.ts';
import type { Executor } from '../../db/executor.ts';
import type { EmailHeader, OutboxState } from '../../db/schema.ts';
import { isUuid } from '../../db/uuid.ts';
import type { EmailTemplate, SourceFormat, TemplateSyntax } from '../../../shared/contract/email.ts';
import { asciiSearchForm } from '../../../shared/recipients.ts';
import { searchTokens } from '../../db/search-words.ts';

export interface NewEmail {
  userId: string;
  to: string;
  subject: string;
  /** The HTML part as sent. */
  html: string;
  /** Its words for the search index (src/server/db/search-words.ts); absent: the trigger of migration 0023 makes them. */
  searchWords?: string;
  inlineCss: boolean;
  createdAt: Date;
  /** The source's language and its merge tags with their sample data (migration 0013). */
  format?: SourceFormat;
  template?: EmailTemplate | null;
  /** Source and message (migration 0010); absent only for rows made outside a send (tests, benchmarks). */
  message?: {
    /** The HTML as written, when it differs from `html`. */
    sourceHtml: string | null;
    /** The subject as written, when it differs from `subject`. */
    sourceSubject?: string | null;
    textOverride: string | null;
    textPart: string;
    headers: EmailHeader[];
    mailFrom: string;
    htmlBytes: number;
    messageBytes: number;
  };
  /** The pre-send checklist computed at sending (migration 0012). */
  checks?: Check[];
  /**
   * The next version of this thread (migration 0016); absent: a new thread, version 1. The
   * version number is computed in the statement that stores the row.
   */
  threadId?: string;
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
    ...(email.searchWords !== undefined && { search_words: email.searchWords }),
    inline_css: email.inlineCss,
    created_at: email.createdAt,
    format: email.format ?? 'html',
    template_syntax: email.template?.syntax ?? null,
    template_data: email.template ? JSON.stringify(email.template.data) : null,
    ...(email.message && {
      source_html: email.message.sourceHtml,
      source_subject: email.message.sourceSubject ?? null,
      text_override: email.message.textOverride,
      text_part: email.message.textPart,
      headers: JSON.stringify(email.message.headers),
      mail_from: email.message.mailFrom,
      html_bytes: email.message.htmlBytes,
      message_bytes: email.message.messageBytes,
    }),
    ...(email.checks && { checks: JSON.stringify(email.checks) }),
    ...(email.threadId && {
      thread_id: email.threadId,
      // Soft-deleted versions count, so their number is never reused while their row exists; so
      // do purged ones (migration 0028 keeps their highest number), and versions that reviews
      // speak of: a deleted v3's "Approved v3" stays in the thread's conversation, and a link's
      // ?v=3 a client has seen, and must never be read as being about a new v3. Two sends racing
      // for the same number meet the unique index emails_thread_version.
      version: sql<number>`(select greatest(
          (select coalesce(max(v.version), 0) from emails v where v.thread_id = ${email.threadId}),
          (select coalesce(max(r.version), 0) from email_reviews r where r.thread_id = ${email.threadId}),
          (select coalesce(max(n.last_version), 0) from email_thread_numbers n
            where n.thread_id = ${email.threadId})
        ) + 1)`,
    }),
  };
}

/** The unique index a racing next version meets (migration 0016). */
export const THREAD_VERSION_INDEX = 'emails_thread_version';

/** The thread of one of the user's emails (not deleted), or undefined. */
export async function findThreadId(db: Executor, userId: string, id: string): Promise<string | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db
    .selectFrom('emails')
    .select('thread_id')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.thread_id;
}

export interface VersionRow {
  id: string;
  version: number;
  subject: string;
  created_at: Date;
}

/** The versions of a thread that are not deleted, newest first, scoped to their owner. */
export async function listVersions(db: Executor, userId: string, threadId: string): Promise<VersionRow[]> {
  return db
    .selectFrom('emails')
    .select(['id', 'version', 'subject', 'created_at'])
    .where('user_id', '=', userId)
    .where('thread_id', '=', threadId)
    .where('deleted_at', 'is', null)
    .orderBy('version', 'desc')
    .execute();
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
  thread_id: string;
  version: number;
  to_addresses: string;
  subject: string;
  created_at: Date;
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
  source_subject: string | null;
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
      'e.thread_id',
      'e.version',
      'e.to_addresses',
      'e.subject',
      'e.created_at',
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

/** A history row: the latest version of a thread, and in a search the newest version that matched. */
export interface ThreadRow extends EmailRow {
  version_count: number;
  matched: { id: string; version: number } | null;
}

/**
 * A search: its LIKE pattern, that of the ASCII form of an internationalised recipient in it, and
 * its words that the HTML's indexed words must contain.
 */
interface SearchPatterns {
  pattern: string;
  recipient?: string;
  tokens: string[];
}

function searchPatterns(q: string): SearchPatterns {
  const ascii = asciiSearchForm(q);
  return {
    pattern: likePattern(q),
    tokens: searchTokens(q),
    ...(ascii && { recipient: likePattern(ascii) }),
  };
}

/**
 * One of the user's email rows (alias `v`) matches the search: recipients are stored in ASCII
 * (`ann@xn--bcher-kva.example`), so "bücher" looks for their ASCII form too.
 */
function versionMatches({ pattern, recipient, tokens }: SearchPatterns) {
  const to = recipient
    ? sql<boolean>`(v.to_addresses ilike ${pattern} or v.to_addresses ilike ${recipient})`
    : sql<boolean>`v.to_addresses ilike ${pattern}`;
  // The HTML's words narrow, the HTML decides (src/server/db/search-words.ts).
  const html = sql.join(
    [
      ...tokens.map((t) => sql<boolean>`v.search_words ilike ${likePattern(t)}`),
      sql`v.html ilike ${pattern}`,
    ],
    sql` and `,
  );
  return sql<boolean>`(${to} or v.subject ilike ${pattern} or (${html}))`;
}

/**
 * The history: one row per thread, its latest version that is not deleted, newest first
 * (docs/decisions/0079-history-one-row-per-thread.md). It walks emails_user_created in order and
 * keeps a row when no later version of its thread is alive (one probe of emails_thread_version),
 * so a page costs about its own rows. A search keeps a thread when any of its live versions
 * matches; PostgreSQL runs that either as a probe per row (common words) or from the trigram
 * indexes (rare ones).
 */
export async function listEmails(
  db: Db,
  userId: string,
  options: { limit: number; cursor?: Cursor; q?: string; searchTimeoutMs?: number },
): Promise<ThreadRow[]> {
  const { searchTimeoutMs, ...query } = options;
  if (!query.q || searchTimeoutMs === undefined) return historyQuery(db, userId, query).execute();
  // A search reads HTML, which crafted content can make slow: PostgreSQL stops it at its budget
  // (SQLSTATE 57014, SEARCH_TIMED_OUT), which the service answers as a 422
  // (docs/decisions/0126-history-search-bounded.md).
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('statement_timeout', ${String(searchTimeoutMs)}, true)`.execute(trx);
    return historyQuery(trx, userId, query).execute();
  });
}

/** PostgreSQL's query_canceled, which a statement over its statement_timeout ends with. */
export const SEARCH_TIMED_OUT = '57014';

/** The query of `listEmails`, unexecuted (the history bench prints its plan). */
export function historyQuery(
  db: Executor,
  userId: string,
  options: { limit: number; cursor?: Cursor; q?: string },
) {
  const pattern = options.q ? searchPatterns(options.q) : null;
  let query = emailsWithDelivery(db)
    .select(
      sql<number>`(select count(*)::int from emails c
                    where c.thread_id = e.thread_id and c.deleted_at is null)`.as('version_count'),
    )
    .select(
      pattern === null
        ? sql<null>`null`.as('matched')
        : sql<ThreadRow['matched']>`(
            select jsonb_build_object('id', v.id, 'version', v.version) from emails v
             where v.thread_id = e.thread_id and v.user_id = e.user_id and v.deleted_at is null
               and ${versionMatches(pattern)}
             order by v.version desc limit 1)`.as('matched'),
    )
    .where('e.user_id', '=', userId)
    .where(
      sql<boolean>`not exists (
        select 1 from emails n
         where n.thread_id = e.thread_id and n.version > e.version and n.deleted_at is null)`,
    );
  if (options.cursor) {
    const { createdAt, id } = options.cursor;
    query = query.where(sql<boolean>`(e.created_at, e.id) < (${createdAt}, ${id}::uuid)`);
  }
  if (pattern !== null) {
    query = query.where(
      sql<boolean>`exists (
        select 1 from emails v
         where v.thread_id = e.thread_id and v.user_id = e.user_id and v.deleted_at is null
           and ${versionMatches(pattern)})`,
    );
  }
  return query.orderBy('e.created_at', 'desc').orderBy('e.id', 'desc').limit(options.limit);
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
      'e.source_subject',
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
 * Deletes the user's live emails of one scope (one email, or every version of a thread). While one
 * of an email's deliveries is still under way its row stays, hidden (`deleted_at`), because the
 * delivery reads its content from it; the housekeeping job purges it once every delivery has
 * settled (docs/decisions/0038-one-outbox-row-per-recipient.md). Deleting or hiding a thread's last
 * version withdraws its link and reviews (trigger of migration 0018). Returns how many were deleted.
 */
async function purgeOrHide(
  db: Executor,
  userId: string,
  column: 'id' | 'thread_id',
  value: string,
): Promise<number> {
  const deleted = await db
    .deleteFrom('emails as e')
    .where('e.user_id', '=', userId)
    .where(column === 'id' ? 'e.id' : 'e.thread_id', '=', value)
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
  // One email, gone already: nothing is left to hide.
  if (column === 'id' && deleted.numDeletedRows > 0n) return 1;
  const hidden = await db
    .updateTable('emails')
    .set({ deleted_at: sql<Date>`now()` })
    .where('user_id', '=', userId)
    .where(column, '=', value)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) + Number(hidden.numUpdatedRows);
}

/** Deletes one of the user's emails (purged now, or hidden until its deliveries settle). */
export async function deleteEmail(db: Db, userId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  return (await purgeOrHide(db, userId, 'id', id)) > 0;
}

/**
 * Deletes every version of the thread of one of the user's emails, each as `deleteEmail` does.
 * Returns how many versions were deleted; 0 when the email is not the user's (or already deleted).
 */
export async function deleteThread(db: Db, userId: string, id: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const threadId = await findThreadId(trx, userId, id);
    if (threadId === undefined) return 0;
    return purgeOrHide(trx, userId, 'thread_id', threadId);
  });
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
