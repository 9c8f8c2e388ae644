import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { isUuid } from '../../db/uuid.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import { PrepareError } from '../../prepare/prepare.ts';
import type { TransformPool } from '../../prepare/transform-pool.ts';
import type { Email, EmailSummary, PublicEmail, Usage } from '../../../shared/contract/email.ts';
import type { Plan } from '../../../shared/plans.ts';
import {
  countPublicLinks,
  deleteEmail,
  deleteThread,
  findEmail,
  findPublicEmail,
  listEmails,
  listVersions,
  setPublicSlug,
  withdrawPublicLinks,
  type Cursor,
  type EmailRow,
  type EmailRowWithHtml,
  type ThreadRow,
} from './email.repo.ts';
import { rollUpDelivery, toRecipientDeliveries } from './delivery-view.ts';
import { monthOf, nextMonthStart, usageOf } from './usage.repo.ts';

interface Deps {
  db: Db;
  config: Config;
  clock: Clock;
  transforms: TransformPool;
}

/** Builds the API shape by listing fields (docs/architecture.md §1.4): a new column stays private. */
export function toSummary(row: EmailRow): Omit<EmailSummary, 'matched' | 'versionCount'> {
  return {
    id: row.id,
    threadId: row.thread_id,
    version: row.version,
    to: row.to_addresses,
    subject: row.subject,
    createdAt: row.created_at.toISOString(),
    isPublic: row.public_slug !== null,
    publicSlug: row.public_slug,
    delivery: rollUpDelivery(toRecipientDeliveries(row.deliveries, row.to_addresses)),
  };
}

/** A history row: the thread's latest version, and which older version a search matched. */
function toThreadSummary(row: ThreadRow): EmailSummary {
  const matched = row.matched && row.matched.version !== row.version ? row.matched : null;
  return { ...toSummary(row), versionCount: row.version_count, matched };
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
  if (!id || !isUuid(id) || Number.isNaN(createdAt.getTime()))
    throw badRequest('Invalid cursor', 'invalid_cursor');
  return { createdAt, id };
}

export const PLAN_REQUIRED_HISTORY = 'Email history is a Pro feature. Upgrade to Pro to view your history.';
export const PLAN_REQUIRED_SHARE = 'Public share links are a Pro feature. Upgrade to Pro to share emails.';

export async function listHistory(
  deps: Deps,
  user: { id: string; plan: Plan },
  query: { cursor?: string; limit: number; q: string },
): Promise<{ items: EmailSummary[]; nextCursor: string | null }> {
  if (user.plan !== 'pro') throw forbidden(PLAN_REQUIRED_HISTORY, 'plan_required');
  const cursor = query.cursor ? decodeCursor(query.cursor) : undefined;
  const q = query.q.trim();
  const rows = await listEmails(deps.db, user.id, { limit: query.limit + 1, cursor, q: q || undefined });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toThreadSummary),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null,
  };
}

/** The text part, shared headers and sizes as stored, or rebuilt for an email sent before they were. */
async function messageOf(
  deps: Deps,
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
  return {
    ...toSummary(row),
    html: row.html,
    source: {
      format: row.format,
      // Null when inlining changed nothing, and on emails sent before the source was kept.
      html: row.source_html ?? row.html,
      ...(row.template_syntax && row.template_data
        ? { template: { syntax: row.template_syntax, data: row.template_data } }
        : {}),
      inlineCss: row.inline_css,
      text: row.text_override,
    },
    ...(await messageOf(deps, row)),
    deliveries: toRecipientDeliveries(row.deliveries, row.to_addresses),
    checks: row.checks,
    versions: (await listVersions(deps.db, userId, row.thread_id)).map((v) => ({
      id: v.id,
      version: v.version,
      subject: v.subject,
      createdAt: v.created_at.toISOString(),
    })),
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

/** ≥ 128 random bits (docs/decisions/0010-sharing-off-semantics.md): 18 bytes → 24 URL-safe characters. */
function newSlug(): string {
  return randomBytes(18).toString('base64url');
}

export async function shareEmail(
  deps: Deps,
  user: { id: string; plan: Plan },
  id: string,
): Promise<{ publicUrl: string; email: Email }> {
  // Ownership first: another user's id is a 404 whatever the plan.
  if (!(await findEmail(deps.db, user.id, id))) throw notFound('Email not found');
  if (user.plan !== 'pro') throw forbidden(PLAN_REQUIRED_SHARE, 'plan_required');
  await setPublicSlug(deps.db, user.id, id, newSlug(), deps.clock.now());
  const email = await getEmail(deps, user.id, id);
  return { publicUrl: publicUrlOf(deps.config, email.publicSlug!), email };
}

export async function unshareEmail(deps: Deps, userId: string, id: string): Promise<Email> {
  if (!(await setPublicSlug(deps.db, userId, id, null, deps.clock.now()))) throw notFound('Email not found');
  return getEmail(deps, userId, id);
}

/** Unknown, withdrawn and deleted slugs all answer this same 404. */
export async function getPublicEmail(deps: Deps, slug: string): Promise<PublicEmail> {
  const row = /^[A-Za-z0-9_-]{16,64}$/.test(slug) ? await findPublicEmail(deps.db, slug) : undefined;
  if (!row) throw notFound('Email not found');
  return { id: row.id, subject: row.subject, html: row.html, createdAt: row.created_at.toISOString() };
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

/**
 * The user's working public links, whatever the plan: links made on Pro keep working on Free
 * until the owner withdraws them, and the owner can always see and withdraw them
 * (docs/decisions/0036-public-links-after-pro.md).
 */
export function countSharedLinks(deps: Deps, userId: string): Promise<number> {
  return countPublicLinks(deps.db, userId);
}

export function withdrawSharedLinks(deps: Deps, userId: string): Promise<number> {
  return withdrawPublicLinks(deps.db, userId);
}
