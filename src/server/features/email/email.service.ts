import { Buffer } from 'node:buffer';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { ConnectionTurns } from '../../db/connection-turns.ts';
import type { Db } from '../../db/database.ts';
import { isUuid } from '../../db/uuid.ts';
import { AppError, badRequest, forbidden, notFound, tooManyRequests } from '../../http/errors.ts';
import { PrepareError } from '../../prepare/prepare-error.ts';
import type { TransformPool } from '../../prepare/transform-pool.ts';
import type { Email, EmailSummary, Usage } from '../../../shared/contract/email.ts';
import type { Plan } from '../../../shared/plans.ts';
import {
  deleteEmail,
  deleteThread,
  findEmail,
  listEmails,
  listVersions,
  SEARCH_TIMED_OUT,
  type Cursor,
  type EmailRow,
  type EmailRowWithHtml,
  type ThreadRow,
} from './email.repo.ts';
import { rollUpDelivery, toRecipientDeliveries } from './delivery-view.ts';
import { monthOf, nextMonthStart, usageOf } from './usage.repo.ts';
import { latestDecisions, listReviews } from './review.repo.ts';
import { toReview, toShareInfo } from './share-view.ts';
import { findShareOfThread } from './share.repo.ts';

interface Deps {
  db: Db;
  config: Config;
  clock: Clock;
  transforms: TransformPool;
}

/** Builds the API shape by listing fields (docs/architecture.md §1.4): a new column stays private. */
export function toSummary(
  row: EmailRow,
  now: Date,
): Omit<EmailSummary, 'matched' | 'versionCount' | 'latestDecision'> {
  // The thread's link (docs/decisions/0083-share-per-thread.md); an expired one is not public.
  const live = row.share_slug !== null && (row.share_expires_at === null || row.share_expires_at > now);
  return {
    id: row.id,
    threadId: row.thread_id,
    version: row.version,
    to: row.to_addresses,
    subject: row.subject,
    createdAt: row.created_at.toISOString(),
    isPublic: live,
    publicSlug: live ? row.share_slug : null,
    delivery: rollUpDelivery(toRecipientDeliveries(row.deliveries, row.to_addresses)),
  };
}

/** A history row: the thread's latest version, and which older version a search matched. */
function toThreadSummary(
  row: ThreadRow,
  now: Date,
  latestDecision: EmailSummary['latestDecision'],
): EmailSummary {
  const matched = row.matched && row.matched.version !== row.version ? row.matched : null;
  return { ...toSummary(row, now), versionCount: row.version_count, matched, latestDecision };
}

export function publicUrlOf(config: Config, slug: string): string {
  return `${config.publicUrl}/s/${slug}`;
}

// Cursor: the (created_at, id) of the last row of a page, opaque to clients.
function encodeCursor(row: EmailRow): string {
  return Buffer.from(`${row.created_at.toISOString()}|${row.id}`).toString('base64url');
}

function decodeCursor(value: string): Cursor {
  const [at, id] = Buffer.from(value, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  // Years PostgreSQL's timestamptz and every real row hold; JavaScript's dates reach much further.
  const year = createdAt.getUTCFullYear();
  if (!id || !isUuid(id) || Number.isNaN(year) || year < 1 || year > 9999)
    throw badRequest('Invalid cursor', 'invalid_cursor');
  return { createdAt, id };
}

export const SEARCH_TOO_SLOW =
  'This search took too long to finish. Search for a more distinctive word, a subject or a recipient.';

export const TOO_MANY_SEARCHES = 'Too many searches at once: wait for your last search to finish.';

export const PLAN_REQUIRED_HISTORY = 'Email history is a Pro feature. Upgrade to Pro to view your history.';
export const PLAN_REQUIRED_SHARE = 'Public share links are a Pro feature. Upgrade to Pro to share emails.';

export async function listHistory(
  deps: Deps & { slowTurns: ConnectionTurns },
  user: { id: string; plan: Plan },
  query: { cursor?: string; limit: number; q: string },
): Promise<{ items: EmailSummary[]; nextCursor: string | null }> {
  if (user.plan !== 'pro') throw forbidden(PLAN_REQUIRED_HISTORY, 'plan_required');
  const cursor = query.cursor ? decodeCursor(query.cursor) : undefined;
  const q = query.q.trim();
  const options = { limit: query.limit + 1, cursor };
  const rows = q
    ? await deps.slowTurns.run(
        `search:${user.id}`,
        () =>
          listEmails(deps.db, user.id, { ...options, q, searchTimeoutMs: deps.config.searchBudgetMs }).catch(
            (err: unknown) => {
              if ((err as { code?: unknown }).code === SEARCH_TIMED_OUT)
                throw new AppError(422, SEARCH_TOO_SLOW, 'search_timeout');
              throw err;
            },
          ),
        () => tooManyRequests(TOO_MANY_SEARCHES, 'too_many_searches', 1),
      )
    : await listEmails(deps.db, user.id, options);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  const now = deps.clock.now();
  // The review badge: a separate small query over the listed threads.
  const decisions = await latestDecisions(
    deps.db,
    user.id,
    page.map((row) => row.thread_id),
  );
  return {
    items: page.map((row) => toThreadSummary(row, now, decisions.get(row.thread_id) ?? null)),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null,
  };
}

/** The text part, shared headers and sizes as stored, or rebuilt for an email sent before they were. */
async function messageOf(
  deps: Deps,
  userId: string,
  row: EmailRowWithHtml,
): Promise<Pick<Email, 'text' | 'headers' | 'bytes'>> {
  if (
    row.text_part !== null &&
    row.headers !== null &&
    row.html_bytes !== null &&
    row.message_bytes !== null
  ) {
    return {
      text: row.text_part,
      headers: row.headers,
      bytes: { html: row.html_bytes, message: row.message_bytes },
    };
  }
  // Sent before migration 0010: today's pipeline over the HTML as sent (no inlining again).
  try {
    const rebuilt = await deps.transforms.prepare(
      { html: row.html, subject: row.subject, inlineCss: false, text: row.outbox_text },
      {
        from: deps.config.mailFrom,
        to: row.to_addresses.split(',')[0]!.trim(),
        replyTo: row.outbox_reply_to,
        messageIdDomain: deps.config.mailDomain,
        date: row.created_at,
      },
      { owner: userId },
    );
    return {
      text: rebuilt.text,
      headers: rebuilt.headers,
      bytes: { html: rebuilt.bytes.html, message: rebuilt.bytes.message },
    };
  } catch (err) {
    if (!(err instanceof PrepareError)) throw err;
    const html = Buffer.byteLength(row.html, 'utf8');
    return { text: row.outbox_text ?? '', headers: [], bytes: { html, message: html } };
  }
}

export async function getEmail(deps: Deps, userId: string, id: string): Promise<Email> {
  const row = await findEmail(deps.db, userId, id);
  if (!row) throw notFound('Email not found');
  const [share, reviews, versions] = await Promise.all([
    findShareOfThread(deps.db, userId, row.thread_id),
    listReviews(deps.db, userId, row.thread_id),
    listVersions(deps.db, userId, row.thread_id),
  ]);
  return {
    ...toSummary(row, deps.clock.now()),
    html: row.html,
    source: {
      format: row.format,
      // Null when inlining changed nothing, and on emails sent before the source was kept.
      html: row.source_html ?? row.html,
      subject: row.source_subject ?? row.subject,
      ...(row.template_syntax && row.template_data
        ? { template: { syntax: row.template_syntax, data: row.template_data } }
        : {}),
      inlineCss: row.inline_css,
      text: row.text_override,
    },
    ...(await messageOf(deps, userId, row)),
    deliveries: toRecipientDeliveries(row.deliveries, row.to_addresses),
    checks: row.checks,
    versions: versions.map((v) => ({
      id: v.id,
      version: v.version,
      subject: v.subject,
      createdAt: v.created_at.toISOString(),
    })),
    share: toShareInfo(share),
    reviews: reviews.map(toReview),
  };
}

export async function removeEmail(deps: Deps, userId: string, id: string): Promise<void> {
  if (!(await deleteEmail(deps.db, userId, id))) throw notFound('Email not found');
}

/** Deletes every version of the email's thread; returns how many there were. */
export async function removeThread(deps: Deps, userId: string, id: string): Promise<number> {
  const deleted = await deleteThread(deps.db, userId, id);
  if (deleted === 0) throw notFound('Email not found');
  return deleted;
}

export async function usageFor(deps: Deps, user: { id: string; plan: Plan }): Promise<Usage> {
  const now = deps.clock.now();
  const { thisMonth, total } = await usageOf(deps.db, user.id, monthOf(now));
  const limit = user.plan === 'pro' ? null : deps.config.freeMonthlyLimit;
  return {
    emailsThisMonth: thisMonth,
    limit,
    remaining: limit === null ? null : Math.max(0, limit - thisMonth),
    totalEmails: total,
    resetsAt: nextMonthStart(now).toISOString(),
  };
}
