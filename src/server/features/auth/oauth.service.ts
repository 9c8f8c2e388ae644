import { CodeChallengeMethod, OAuth2Client, OAuth2Tokens, generateCodeVerifier, generateState } from 'arctic';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { OAuthProvider } from '../../../shared/contract/auth.ts';
import { normaliseEmail } from '../../accounts/account-rules.ts';
import { issueToken, TOKEN_TTL_MS } from '../../accounts/account-mail.ts';
import { browserBinding, newSecretToken } from '../../accounts/credentials.ts';
import { deleteUserSessions } from '../../accounts/sessions.repo.ts';
import { deleteUserApiKeys } from '../../accounts/api-keys.repo.ts';
import { retireTokens } from '../../accounts/tokens.repo.ts';
import {
  findUserByEmail,
  insertUser,
  lockAccount,
  markVerified,
  setPasswordHash,
} from '../../accounts/users.repo.ts';
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

/** How long each request to a provider may take, from connecting to the end of its answer. */
export const HTTP_TIMEOUT_MS = 10_000;

/** What the code exchange reads: the providers' settings, and the clock id tokens are checked at. */
type IdentityDeps = Pick<FeatureDeps, 'config' | 'clock'>;

export function isProviderEnabled(config: Config, provider: OAuthProvider): boolean {
  return Boolean(config[provider]);
}

export function redirectUri(config: Config, provider: OAuthProvider): string {
  return `${config.publicUrl}/api/auth/${provider}/callback`;
}

function settingsOf<P extends OAuthProvider>(config: Config, provider: P): NonNullable<Config[P]> {
  const settings = config[provider];
  if (!settings) throw new OAuthFlowError('auth_failed', `${provider} sign-in is not configured`);
  return settings;
}

/** Where to send the browser, plus the state and PKCE verifier to keep until it comes back. */
export function startAuthorization(
  config: Config,
  provider: OAuthProvider,
): { url: string; state: string; codeVerifier: string } {
  const settings = settingsOf(config, provider);
  const client = new OAuth2Client(settings.clientId, settings.clientSecret, redirectUri(config, provider));
  const state = generateState();
  const codeVerifier = generateCodeVerifier();
  const url = client.createAuthorizationURLWithPKCE(
    settings.authorizationUrl,
    state,
    CodeChallengeMethod.S256,
    codeVerifier,
    SCOPES[provider],
  );
  if (provider === 'google') url.searchParams.set('prompt', 'select_account');
  return { url: url.toString(), state, codeVerifier };
}

/**
 * One request to a provider and its JSON answer, bounded by `timeoutMs` from connecting to the
 * end of the body. Anything but a 200, a body that is not JSON, or a refusal (`{ error }`, which
 * GitHub's token endpoint sends with a 200) throws, naming the status and the provider's error
 * code, never the body.
 */
async function providerJson(
  url: string,
  init: RequestInit,
  timeoutMs: number,
  what: string,
): Promise<unknown> {
  const res = await fetch(url, {
    ...init,
    headers: { Accept: 'application/json', 'User-Agent': 'Proofmail', ...init.headers },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`${what} answered ${res.status} without JSON`);
  }
  const error = typeof data === 'object' && data !== null && 'error' in data ? data.error : undefined;
  if (res.status !== 200 || error !== undefined) {
    const code = typeof error === 'string' && /^[a-z0-9_]{1,64}$/i.test(error) ? ` ${error}` : '';
    throw new Error(`${what} answered ${res.status}${code}`);
  }
  return data;
}

/**
 * Trades the authorization code for the provider's tokens (RFC 6749 §4.1.3, with the PKCE
 * verifier and the client's credentials in Basic auth), as arctic's
 * OAuth2Client.validateAuthorizationCode sends it, but bounded like every other request to a
 * provider: arctic's takes no signal, and a token endpoint that never answered held the callback
 * until Node's fetch gave up, 5 minutes later.
 */
async function exchangeCode(
  config: Config,
  provider: OAuthProvider,
  code: string,
  codeVerifier: string,
  timeoutMs: number,
): Promise<OAuth2Tokens> {
  const settings = settingsOf(config, provider);
  const credentials = Buffer.from(`${settings.clientId}:${settings.clientSecret}`).toString('base64');
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri(config, provider),
    code_verifier: codeVerifier,
  });
  const init = { method: 'POST', headers: { Authorization: `Basic ${credentials}` }, body };
  const data = await providerJson(settings.tokenUrl, init, timeoutMs, `${provider} token endpoint`);
  if (typeof data !== 'object' || data === null)
    throw new Error(`${provider} token endpoint answered no object`);
  return new OAuth2Tokens(data);
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
  deps: IdentityDeps,
  code: string,
  codeVerifier: string,
  timeoutMs: number,
): Promise<ProviderIdentity> {
  const settings = settingsOf(deps.config, 'google');
  const tokens = await exchangeCode(deps.config, 'google', code, codeVerifier, timeoutMs);
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

function githubGet(apiUrl: string, path: string, accessToken: string, timeoutMs: number): Promise<unknown> {
  const headers = {
    Authorization: `Bearer ${accessToken}`,
    Accept: 'application/vnd.github+json',
    'X-GitHub-Api-Version': '2022-11-28',
  };
  return providerJson(`${apiUrl}${path}`, { headers }, timeoutMs, `GitHub API ${path}`);
}

async function githubIdentity(
  deps: IdentityDeps,
  code: string,
  codeVerifier: string,
  timeoutMs: number,
): Promise<ProviderIdentity> {
  const settings = settingsOf(deps.config, 'github');
  // GitHub reports a bad code as 200 { error }, which providerJson refuses.
  const tokens = await exchangeCode(deps.config, 'github', code, codeVerifier, timeoutMs);
  const accessToken = tokens.accessToken();
  const get = (path: string) => githubGet(settings.apiUrl, path, accessToken, timeoutMs);
  const user = githubUser.parse(await get('/user'));
  const emails = githubEmails.parse(await get('/user/emails'));
  const primary = emails.find((e) => e.primary && e.verified);
  return {
    provider: 'github',
    providerUserId: String(user.id),
    email: normaliseEmail(primary?.email ?? emails.find((e) => e.primary)?.email ?? '') || null,
    emailVerified: primary !== undefined,
  };
}

/**
 * Trades the authorization code for the provider's account (id and email). Each request to the
 * provider may take `timeoutMs` (the Google key set keeps HTTP_TIMEOUT_MS); a provider that does
 * not answer in time fails the sign-in like any other provider failure.
 */
export function fetchIdentity(
  deps: IdentityDeps,
  provider: OAuthProvider,
  code: string,
  codeVerifier: string,
  timeoutMs = HTTP_TIMEOUT_MS,
): Promise<ProviderIdentity> {
  return provider === 'google'
    ? googleIdentity(deps, code, codeVerifier, timeoutMs)
    : githubIdentity(deps, code, codeVerifier, timeoutMs);
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
        const found = await findUserByEmail(trx, identity.email);
        // Judged under its row lock, taken before its sessions end: a sign-in with the squatter's
        // password either opens its session first (and it ends here) or finds the password gone
        // (docs/decisions/0020-provider-email-claims-unverified-account.md).
        const existing = found && (await lockAccount(trx, found.id));
        if (existing && existing.email !== found.email) {
          throw new OAuthFlowError('auth_failed', 'the account changed its email during sign-in');
        }
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
