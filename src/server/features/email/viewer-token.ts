import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Viewer tokens of a password-protected link (docs/decisions/0084-viewer-tokens.md):
 * `<expiry ms>.<HMAC-SHA256(link secret, slug + expiry)>`. The secret is the link's
 * `viewer_secret`, renewed when the password changes or the link rotates, so both end every
 * unlock at once; nothing is stored per token.
 */

export const VIEWER_TOKEN_TTL_MS = 2 * 3600_000;

function sign(secret: Buffer, slug: string, expires: number): string {
  return createHmac('sha256', secret).update(`${slug}.${expires}`).digest('base64url');
}

export function issueViewerToken(
  share: { slug: string; viewer_secret: Buffer },
  now: Date,
): { token: string; expiresAt: Date } {
  const expires = now.getTime() + VIEWER_TOKEN_TTL_MS;
  return {
    token: `${expires}.${sign(share.viewer_secret, share.slug, expires)}`,
    expiresAt: new Date(expires),
  };
}

export function isValidViewerToken(
  share: { slug: string; viewer_secret: Buffer },
  token: string | undefined,
  now: Date,
): boolean {
  const match = token ? /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token) : null;
  if (!match) return false;
  const expires = Number(match[1]);
  if (!(expires > now.getTime()) || expires > now.getTime() + VIEWER_TOKEN_TTL_MS) return false;
  const expected = Buffer.from(sign(share.viewer_secret, share.slug, expires));
  const given = Buffer.from(match[2]!);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
