import type { FastifyReply } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { verifyPassword } from '../../accounts/credentials.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { enforceRateLimits, rateRule, refundRateLimits } from '../../http/rate-limit.ts';
import type { PublicEmail } from '../../../shared/contract/email.ts';
import { REVIEW_MESSAGES, type UnlockResponse } from '../../../shared/contract/review.ts';
import { listReviews } from './review.repo.ts';
import { toReview } from './share-view.ts';
import {
  findShareBySlug,
  findVersionContent,
  listThreadVersions,
  recordView,
  type ShareRow,
} from './share.repo.ts';
import { isValidViewerToken, issueViewerToken } from './viewer-token.ts';

/**
 * The public view /s/{slug} and its password gate (docs/decisions/0083-share-per-thread.md,
 * docs/decisions/0084-viewer-tokens.md). Unknown, revoked, rotated-away, expired and deleted
 * links all answer the same 404; a protected link answers 401 `password_required` with nothing
 * of the email until a viewer token comes with the call.
 */

interface Deps {
  db: Db;
  clock: Clock;
}

const MINUTE = 60_000;

/** Wrong viewing passwords: per link (whoever guesses) and per client address (whatever link). */
export const UNLOCK_RULES = {
  perLink: rateRule('unlock-link', 20, 15 * MINUTE, 'wrong passwords'),
  perIp: rateRule('unlock-ip', 50, 15 * MINUTE, 'wrong passwords'),
} as const;

const SLUG_SHAPE = /^[A-Za-z0-9_-]{16,64}$/;

export const linkNotFound = () => notFound('Email not found');

/** The link behind a slug while it works; undefined for anything else. */
export async function liveShare(deps: Deps, slug: string): Promise<ShareRow | undefined> {
  if (!SLUG_SHAPE.test(slug)) return undefined;
  const share = await findShareBySlug(deps.db, slug);
  if (!share) return undefined;
  if (share.expires_at !== null && share.expires_at <= deps.clock.now()) return undefined;
  return share;
}

/** The link, checked for its password: 404 like a random slug, or 401 before the unlock. */
export async function openShare(
  deps: Deps,
  slug: string,
  viewerToken: string | undefined,
): Promise<ShareRow> {
  const share = await liveShare(deps, slug);
  if (!share) throw linkNotFound();
  if (share.password_hash !== null && !isValidViewerToken(share, viewerToken, deps.clock.now()))
    throw new AppError(401, REVIEW_MESSAGES.passwordRequired, 'password_required');
  return share;
}

export async function getPublicEmail(
  deps: Deps,
  slug: string,
  version: number | undefined,
  viewerToken: string | undefined,
): Promise<PublicEmail> {
  const share = await openShare(deps, slug, viewerToken);
  const versions = await listThreadVersions(deps.db, share.user_id, share.thread_id);
  const chosen = version === undefined ? versions[0] : versions.find((v) => v.version === version);
  if (!chosen)
    throw version === undefined ? linkNotFound() : notFound(REVIEW_MESSAGES.version, 'version_not_found');
  const [row, reviews] = await Promise.all([
    findVersionContent(deps.db, chosen.id),
    listReviews(deps.db, share.user_id, share.thread_id),
  ]);
  if (!row) throw linkNotFound();
  await recordView(deps.db, share.thread_id, deps.clock.now());
  return {
    id: row.id,
    subject: row.subject,
    html: row.html,
    createdAt: row.created_at.toISOString(),
    version: chosen.version,
    versions: versions.map((v) => ({ version: v.version, createdAt: v.created_at.toISOString() })),
    reviews: reviews.map(toReview),
  };
}

/**
 * Trades the viewing password for a viewer token. Only wrong guesses count against the limits.
 * A missing link, an unprotected one and a wrong password all answer the same 401 after the same
 * work (a dummy argon2 check), so guessing tells nothing about which slugs exist.
 */
export async function unlockShare(
  deps: Deps,
  reply: FastifyReply,
  slug: string,
  password: string,
  clientIp: string,
): Promise<UnlockResponse> {
  const now = deps.clock.now();
  const checks = [
    { rule: UNLOCK_RULES.perLink, subject: slug },
    { rule: UNLOCK_RULES.perIp, subject: clientIp },
  ];
  await enforceRateLimits(deps.db, reply, checks, now);
  const share = await liveShare(deps, slug);
  const ok = await verifyPassword(share?.password_hash ?? null, password);
  if (!share || !ok) throw new AppError(401, REVIEW_MESSAGES.wrongPassword, 'wrong_password');
  await refundRateLimits(deps.db, checks, now);
  const { token, expiresAt } = issueViewerToken(share, now);
  return { token, expiresAt: expiresAt.toISOString() };
}
