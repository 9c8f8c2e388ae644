import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { hashPassword } from '../../accounts/credentials.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import type { TransformPool } from '../../prepare/transform-pool.ts';
import type { Email } from '../../../shared/contract/email.ts';
import { renewedExpiryDays, type ShareRequest } from '../../../shared/contract/review.ts';
import {
  REVIEW_MESSAGES,
  SHARE_EXPIRY_DAYS,
  SHARE_PASSWORD_MAX,
  SHARE_PASSWORD_MIN,
} from '../../../shared/review-rules.ts';
import type { Plan } from '../../../shared/plans.ts';
import { getEmail, PLAN_REQUIRED_SHARE, publicUrlOf } from './email.service.ts';
import {
  countLiveShares,
  createShare,
  deleteAllShares,
  deleteShare,
  findShareOfThread,
  rotateShare,
  threadOfEmail,
  updateShareSettings,
  type ShareExpiry,
  type ShareRow,
} from './share.repo.ts';

/**
 * Sharing a thread (docs/decisions/0083-share-per-thread.md): one link for every version of an
 * email, with an expiry, a viewing password, rotation and revocation. A link that died (expired,
 * revoked, rotated away) never works again: sharing anew mints a new slug. A new slug made to
 * replace an expired link keeps what protected it (`settingsKeptFrom`).
 */

interface Deps {
  db: Db;
  config: Config;
  clock: Clock;
  transforms: TransformPool;
}

const DAY_MS = 24 * 3600_000;

/** ≥ 128 random bits (docs/decisions/0010-sharing-off-semantics.md): 18 bytes → 24 URL-safe characters. */
export function newSlug(): string {
  return randomBytes(18).toString('base64url');
}

export function isLive(share: { expires_at: Date | null }, now: Date): boolean {
  return share.expires_at === null || share.expires_at > now;
}

/** The settings of a share call, checked with messages naming the field; undefined: unchanged. */
async function settingsOf(
  body: ShareRequest,
  now: Date,
): Promise<{ expiry?: ShareExpiry; passwordHash?: string | null }> {
  const out: { expiry?: ShareExpiry; passwordHash?: string | null } = {};
  const days = body?.expiresInDays;
  if (days !== undefined) {
    if (days !== null && !(SHARE_EXPIRY_DAYS as readonly number[]).includes(days))
      throw badRequest(REVIEW_MESSAGES.expiry, 'invalid_expiry');
    out.expiry =
      days === null ? { at: null, days: null } : { at: new Date(now.getTime() + days * DAY_MS), days };
  }
  const password = body?.password;
  if (password !== undefined) {
    if (password !== null) {
      if (password.length < SHARE_PASSWORD_MIN)
        throw badRequest(REVIEW_MESSAGES.passwordShort, 'invalid_password');
      if (password.length > SHARE_PASSWORD_MAX)
        throw badRequest(REVIEW_MESSAGES.passwordLong, 'invalid_password');
    }
    out.passwordHash = password === null ? null : await hashPassword(password);
  }
  return out;
}

const NEVER: ShareExpiry = { at: null, days: null };

/**
 * What a new link takes from the expired one it replaces, for each setting the call leaves out
 * (docs/decisions/0123-renewed-link-keeps-its-protection.md): the password, and an expiry of the
 * same length counted from now. The owner protected the email on purpose (an embargo, a client's
 * confidential launch), so making a fresh link never publishes it open or for good by itself; an
 * explicit `password: null` or `expiresInDays: null` still does.
 */
function settingsKeptFrom(dead: ShareRow, now: Date): { expiry: ShareExpiry; passwordHash: string | null } {
  const days = dead.expires_at === null ? null : renewedExpiryDays(dead.expires_in_days);
  return {
    expiry: days === null ? NEVER : { at: new Date(now.getTime() + days * DAY_MS), days },
    passwordHash: dead.password_hash,
  };
}

async function ownedThread(deps: Deps, userId: string, id: string): Promise<string> {
  const threadId = await threadOfEmail(deps.db, userId, id);
  if (!threadId) throw notFound('Email not found');
  return threadId;
}

export async function shareEmail(
  deps: Deps,
  user: { id: string; plan: Plan },
  id: string,
  body: ShareRequest,
): Promise<{ publicUrl: string; email: Email }> {
  // Ownership first: another user's id is a 404 whatever the plan.
  const threadId = await ownedThread(deps, user.id, id);
  if (user.plan !== 'pro') throw forbidden(PLAN_REQUIRED_SHARE, 'plan_required');
  const now = deps.clock.now();
  const settings = await settingsOf(body, now);
  const current = await findShareOfThread(deps.db, user.id, threadId);
  if (current && isLive(current, now)) {
    await updateShareSettings(deps.db, user.id, threadId, settings);
  } else {
    const kept = current ? settingsKeptFrom(current, now) : { expiry: NEVER, passwordHash: null };
    await createShare(deps.db, {
      threadId,
      userId: user.id,
      slug: newSlug(),
      now,
      expiry: settings.expiry ?? kept.expiry,
      passwordHash: settings.passwordHash !== undefined ? settings.passwordHash : kept.passwordHash,
      replacing: current?.slug,
    });
  }
  const email = await getEmail(deps, user.id, id);
  return { publicUrl: publicUrlOf(deps.config, email.publicSlug!), email };
}

/** A new slug for a live link; the old one answers like a random slug from now on. */
export async function rotateShareLink(
  deps: Deps,
  user: { id: string; plan: Plan },
  id: string,
): Promise<{ publicUrl: string; email: Email }> {
  const threadId = await ownedThread(deps, user.id, id);
  if (user.plan !== 'pro') throw forbidden(PLAN_REQUIRED_SHARE, 'plan_required');
  const current = await findShareOfThread(deps.db, user.id, threadId);
  if (!current || !isLive(current, deps.clock.now()))
    throw badRequest('This email has no working public link to rotate', 'not_shared');
  await rotateShare(deps.db, user.id, threadId, newSlug());
  const email = await getEmail(deps, user.id, id);
  return { publicUrl: publicUrlOf(deps.config, email.publicSlug!), email };
}

export async function unshareEmail(deps: Deps, userId: string, id: string): Promise<Email> {
  await deleteShare(deps.db, userId, await ownedThread(deps, userId, id));
  return getEmail(deps, userId, id);
}

/**
 * The user's working public links, whatever the plan: links made on Pro keep working on Free
 * until the owner withdraws them, and the owner can always see and withdraw them
 * (docs/decisions/0036-public-links-after-pro.md).
 */
export function countSharedLinks(deps: Deps, userId: string): Promise<number> {
  return countLiveShares(deps.db, userId, deps.clock.now());
}

export function withdrawSharedLinks(deps: Deps, userId: string): Promise<number> {
  return deleteAllShares(deps.db, userId, deps.clock.now());
}
