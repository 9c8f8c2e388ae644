import { CodeChallengeMethod, OAuth2Client, generateCodeVerifier, generateState } from 'arctic';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { OAuthProvider } from '../../../shared/contract/auth.ts';
import { normaliseEmail } from '../../accounts/account-rules.ts';
import { issueToken, TOKEN_TTL_MS } from '../../accounts/account-mail.ts';
import { browserBinding, newSecretToken } from '../../accounts/credentials.ts';
import { deleteUserSessions } from '../../accounts/sessions.repo.ts';
import { deleteUserApiKeys } from '../../accounts/api-keys.repo.ts';
import { retireTokens } from '../../accounts/tokens.repo.ts';
import { findUserByEmail, insertUser, markVerified, setPasswordHash } from '../../accounts/users.repo.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import type { Config } from '../../config.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { findUserIdByIdentity, insertIdentity } from './identities.repo.ts';

/**
 * Social sign-in (docs/architecture.md §6, docs/decisions/0019-social-sign-in-state-and-ticket.md,
 * docs/decisions/0020-provider-email-claims-unverified-account.md): authorization code + PKCE (S256) + state through arctic's generic
 * OAuth2Client, with every endpoint taken from config (Google and GitHub by default, local fakes
 * in tests). Google: the OIDC id token is verified against the provider's JWKS (iss, aud, exp,
 * email_verified). GitHub: /user and /user/emails, and only a verified primary email counts.
 */

/** A failure that the callback reports to the page as `?error=<code>`. */
export class OAuthFlowError extends Error {
  constructor(
    readonly code: 'auth_failed' | 'email_not_verified',
    message: string,
  ) {
    super(message);
    this.name = 'OAuthFlowError';
  }
}

export interface ProviderIdentity {
  provider: OAuthProvider;
  providerUserId: string;
  /** Null when the provider has no usable address. */
  email: string | null;
  emailVerified: boolean;
}

const SCOPES: Record<OAuthProvider, string[]> = {
  google: ['openid', 'email', 'profile'],
  github: ['read:user', 'user:email'],
};

const HTTP_TIMEOUT_MS = 10_000;

export function isProviderEnabled(config: Config, provider: OAuthProvider): boolean {
  return Boolean(config[provider]);
}

export function redirectUri(config: Config, provider: OAuthProvider): string {
  return `${config.publicUrl}/api/auth/${provider}/callback`;
}

function clientFor(
  config: Config,
  provider: OAuthProvider,
): { client: OAuth2Client; tokenUrl: string; authorizationUrl: string } {
  const settings = config[provider];
  if (!settings) throw new OAuthFlowError('auth_failed', `${provider} sign-in is not configured`);
  return {
    client: new OAuth2Client(settings.clientId, settings.clientSecret, redirectUri(config, provider)),
    tokenUrl: settings.tokenUrl,
    authorizationUrl: settings.authorizationUrl,
  };
}

/** Where to send the browser, plus the state and PKCE verifier to keep until it comes back. */
export function startAuthorization(
  config: Config,
  provider: OAuthProvider,
): { url: string; state: string; codeVerifier: string } {
  const { client, authorizationUrl } = clientFor(config, provider);
  const state = generateState();
  const codeVerifier = generateCodeVerifier();
  const url = client.createAuthorizationURLWithPKCE(
    authorizationUrl,
    state,
    CodeChallengeMethod.S256,
    codeVerifier,
    SCOPES[provider],
  );
  if (provider === 'google') url.searchParams.set('prompt', 'select_account');
  return { url: url.toString(), state, codeVerifier };
}

// One remote key set per JWKS URL: jose caches the keys and refetches on an unknown `kid`.
const keySets = new Map<string, JWTVerifyGetKey>();
function keySet(url: string): JWTVerifyGetKey {
  let found = keySets.get(url);
  if (!found) {
    found = createRemoteJWKSet(new URL(url), { timeoutDuration: HTTP_TIMEOUT_MS });
    keySets.set(url, found);
  }
  return found;
}

const googleClaims = z.object({
  sub: z.string().min(1).max(255),
  email: z.string().max(254).optional(),
  // Google sends a boolean; very old tokens sent the string "true".
  email_verified: z.union([z.boolean(), z.literal('true'), z.literal('false')]).optional(),
});

async function googleIdentity(
  deps: FeatureDeps,
  code: string,
  codeVerifier: string,
): Promise<ProviderIdentity> {
  const settings = deps.config.google!;
  const { client, tokenUrl } = clientFor(deps.config, 'google');
  const tokens = await client.validateAuthorizationCode(tokenUrl, code, codeVerifier);
  const issuers =
    settings.issuer === 'https://accounts.google.com'
      ? [settings.issuer, 'accounts.google.com']
      : [settings.issuer];
  const { payload } = await jwtVerify(tokens.idToken(), keySet(settings.jwksUrl), {
    issuer: issuers,
    audience: settings.clientId,
    requiredClaims: ['exp', 'sub'],
    currentDate: deps.clock.now(),
    clockTolerance: 60,
  });
  const claims = googleClaims.parse(payload);
  return {
    provider: 'google',
    providerUserId: claims.sub,
    email: claims.email ? normaliseEmail(claims.email) || null : null,
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
  };
}

const githubUser = z.object({ id: z.union([z.number().int(), z.string().regex(/^\d+$/)]) });
const githubEmails = z.array(
  z.object({ email: z.string().max(254), primary: z.boolean(), verified: z.boolean() }),
);

async function githubGet(apiUrl: string, path: string, accessToken: string): Promise<unknown> {
  const res = await fetch(`${apiUrl}${path}`, {
    headers: {
      Authorization: `Bearer ${accessToken}`,
      Accept: 'application/vnd.github+json',
      'X-GitHub-Api-Version': '2022-11-28',
      'User-Agent': 'Proofmail',
    },
    signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`GitHub API ${path} answered ${res.status}`);
  }
  return res.json();
}

async function githubIdentity(
  deps: FeatureDeps,
  code: string,
  codeVerifier: string,
): Promise<ProviderIdentity> {
  const settings = deps.config.github!;
  const { client, tokenUrl } = clientFor(deps.config, 'github');
  // GitHub reports a bad code as 200 { error }; accessToken() then throws, which we treat as failure.
  const tokens = await client.validateAuthorizationCode(tokenUrl, code, codeVerifier);
  const accessToken = tokens.accessToken();
  const user = githubUser.parse(await githubGet(settings.apiUrl, '/user', accessToken));
  const emails = githubEmails.parse(await githubGet(settings.apiUrl, '/user/emails', accessToken));
  const primary = emails.find((e) => e.primary && e.verified);
  return {
    provider: 'github',
    providerUserId: String(user.id),
    email: normaliseEmail(primary?.email ?? emails.find((e) => e.primary)?.email ?? '') || null,
    emailVerified: primary !== undefined,
  };
}

/** Trades the authorization code for the provider's account (id and email). */
export function fetchIdentity(
  deps: FeatureDeps,
  provider: OAuthProvider,
  code: string,
  codeVerifier: string,
): Promise<ProviderIdentity> {
  return provider === 'google'
    ? googleIdentity(deps, code, codeVerifier)
    : githubIdentity(deps, code, codeVerifier);
}

/** How long a sign-in ticket (and the cookie binding it to the browser) lives. */
export const TICKET_TTL_S = TOKEN_TTL_MS.oauth_ticket / 1000;

/**
 * Finds or creates the account of a provider identity and returns a one-time, 60-second ticket
 * for it (the page exchanges the ticket for a session; no session token ever goes in a URL),
 * with the browser key the callback puts in a cookie: the exchange requires both.
 *
 * - A known identity signs in to its account.
 * - Otherwise the identity is linked to the account with the same email, but only when the
 *   provider says it verified that email. If that account was never verified, whoever set its
 *   password never proved they own the address: the password is removed, its sessions end and
 *   its API keys are revoked,
 *   so a squatter cannot keep access to the real owner's account (pre-hijacking defence).
 * - Otherwise a new, verified, password-less account is created.
 */
export async function ticketForIdentity(
  deps: FeatureDeps,
  identity: ProviderIdentity,
): Promise<{ ticket: string; browserKey: string }> {
  const now = deps.clock.now();
  let squatted: string | undefined;
  try {
    const result = await deps.db.transaction().execute(async (trx) => {
      let userId = await findUserIdByIdentity(trx, identity.provider, identity.providerUserId);
      if (!userId) {
        if (!identity.email || !identity.emailVerified) {
          throw new OAuthFlowError(
            'email_not_verified',
            'the provider has no verified email for this account',
          );
        }
        const existing = await findUserByEmail(trx, identity.email);
        if (existing) {
          if (!existing.verified) {
            await setPasswordHash(trx, existing.id, null, now);
            await deleteUserSessions(trx, existing.id);
            await deleteUserApiKeys(trx, existing.id);
            await retireTokens(trx, existing.id, now);
            await markVerified(trx, existing.id, now);
            squatted = existing.id;
          }
          userId = existing.id;
        } else {
          const created = await insertUser(trx, {
            email: identity.email,
            passwordHash: null,
            verifiedAt: now,
            now,
          });
          userId = created.id;
        }
        await insertIdentity(trx, {
          provider: identity.provider,
          providerUserId: identity.providerUserId,
          userId,
          email: identity.email,
          now,
        });
      }
      const browserKey = newSecretToken();
      const ticket = await issueToken(trx, {
        userId,
        purpose: 'oauth_ticket',
        payload: { browser: browserBinding(browserKey) },
        now,
      });
      return { ticket, browserKey };
    });
    if (squatted) deps.sessions.forgetUser(squatted);
    return result;
  } catch (err) {
    // Two callbacks racing to create the same account: the loser simply fails this attempt.
    if (isUniqueViolation(err))
      throw new OAuthFlowError('auth_failed', 'concurrent sign-in for the same account');
    throw err;
  }
}
