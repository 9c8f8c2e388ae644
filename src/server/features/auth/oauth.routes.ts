import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { OAUTH_PROVIDERS, type OAuthProvider } from '../../../shared/contract/auth.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { PUBLIC_ROUTE } from '../../http/auth.ts';
import { readCookie, serializeCookie } from '../../http/cookies.ts';
import {
  fetchIdentity,
  isProviderEnabled,
  OAuthFlowError,
  startAuthorization,
  TICKET_TTL_S,
  ticketForIdentity,
} from './oauth.service.ts';

/**
 * GET /api/auth/<provider> and its callback.
 *
 * Where the state and PKCE verifier live between the two requests: an HttpOnly, SameSite=Lax
 * cookie scoped to the callback path, not a database row. The cookie binds the flow to the
 * browser that started it, so a callback URL with someone else's code and state (login CSRF:
 * signing a victim in to the attacker's account) is rejected; a server-side row alone would not
 * know which browser started the flow. It also needs no shared state between app processes.
 * The cookie lives 10 minutes, is cleared by the callback, and holds nothing that works alone:
 * the verifier is useless without the provider's one-time code.
 *
 * The callback hands the page a one-time ticket, and binds it to this browser too: a second
 * cookie, scoped to POST /api/auth/exchange, whose hash the ticket carries. A ticket opened in
 * any other browser (an attacker's own sign-in, sent to a victim) is refused at the exchange
 * (docs/decisions/0032-sign-in-ticket-bound-to-browser.md).
 */

const COOKIE_TTL_S = 600;
const cookieName = (provider: OAuthProvider) => `pm_oauth_${provider}`;
const callbackPath = (provider: OAuthProvider) => `/api/auth/${provider}/callback`;

/** The cookie that binds a sign-in ticket to the browser that finished the flow. */
export const TICKET_COOKIE = 'pm_oauth_ticket';
export const EXCHANGE_PATH = '/api/auth/exchange';

/** The pages a social sign-in starts from; an unconfigured provider sends the browser back to one. */
const START_PAGES = ['/signin', '/signup'] as const;

const startQuery = z.object({ from: z.string().max(32).optional() });

const callbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(256).optional(),
});

function isSecure(deps: FeatureDeps): boolean {
  return deps.config.publicUrl.startsWith('https:');
}

function stateCookie(deps: FeatureDeps, provider: OAuthProvider, value: string, maxAge: number): string {
  return serializeCookie(cookieName(provider), value, {
    path: callbackPath(provider),
    maxAge,
    secure: isSecure(deps),
  });
}

/** Sets (or, with an empty value, clears) the cookie the ticket exchange requires. */
export function ticketCookie(deps: FeatureDeps, value: string, maxAge: number): string {
  return serializeCookie(TICKET_COOKIE, value, { path: EXCHANGE_PATH, maxAge, secure: isSecure(deps) });
}

/**
 * The sign-in or sign-up page the flow started from: `?from=signup`, else the Referer when it is
 * one of our own start pages, else /signin. Only those two paths, so nothing here can redirect
 * anywhere else.
 */
function startPage(deps: FeatureDeps, request: FastifyRequest, from: string | undefined): string {
  const named = START_PAGES.find((page) => page === `/${from ?? ''}`);
  if (named) return named;
  try {
    const referer = new URL(request.headers.referer ?? '');
    if (referer.origin === new URL(deps.config.publicUrl).origin) {
      const page = START_PAGES.find((p) => p === referer.pathname);
      if (page) return page;
    }
  } catch {
    // no Referer, or not a URL
  }
  return '/signin';
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The page's return point; it never carries a session token, only a one-time ticket or an error. */
function toCallbackPage(deps: FeatureDeps, params: Record<string, string>): string {
  return `${deps.config.publicUrl}/auth/callback?${new URLSearchParams(params).toString()}`;
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 300);
  return 'unknown error';
}

export function registerOAuthRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  for (const provider of OAUTH_PROVIDERS) {
    r.get(
      `/api/auth/${provider}`,
      { config: PUBLIC_ROUTE, schema: { querystring: startQuery, response: { 302: z.undefined() } } },
      async (request, reply) => {
        if (!isProviderEnabled(deps.config, provider)) {
          // Back to the page the person came from, which explains (not a bare JSON 404).
          const page = startPage(deps, request, request.query.from);
          const query = new URLSearchParams({ error: 'provider_not_configured', provider });
          return reply.redirect(`${deps.config.publicUrl}${page}?${query.toString()}`, 302);
        }
        const { url, state, codeVerifier } = startAuthorization(deps.config, provider);
        void reply.header(
          'Set-Cookie',
          stateCookie(deps, provider, `${state}.${codeVerifier}`, COOKIE_TTL_S),
        );
        return reply.redirect(url, 302);
      },
    );

    r.get(
      callbackPath(provider),
      { config: PUBLIC_ROUTE, schema: { querystring: callbackQuery, response: { 302: z.undefined() } } },
      async (request, reply) => {
        void reply.header('Set-Cookie', stateCookie(deps, provider, '', 0));
        const fail = (error: string) => reply.redirect(toCallbackPage(deps, { error, provider }), 302);
        if (!isProviderEnabled(deps.config, provider)) return fail('provider_not_configured');
        const { code, state, error } = request.query;
        if (error) {
          // The provider's own code (e.g. access_denied) when it is a plain word; else generic.
          return fail(/^[a-z0-9_]{1,64}$/i.test(error) ? error : 'auth_failed');
        }
        const [savedState, codeVerifier] = (readCookie(request, cookieName(provider)) ?? '').split('.');
        if (!code || !state || !savedState || !codeVerifier || !sameString(state, savedState)) {
          request.log.warn(
            { provider },
            'social sign-in: missing code, or state does not match this browser',
          );
          return fail('auth_failed');
        }
        try {
          const identity = await fetchIdentity(deps, provider, code, codeVerifier);
          const { ticket, browserKey } = await ticketForIdentity(deps, identity);
          void reply.header('Set-Cookie', ticketCookie(deps, browserKey, TICKET_TTL_S));
          return reply.redirect(toCallbackPage(deps, { token: ticket, provider }), 302);
        } catch (err) {
          // Log the reason, never the code, tokens or claims.
          request.log.warn({ provider, reason: describe(err) }, 'social sign-in failed');
          return fail(err instanceof OAuthFlowError ? err.code : 'auth_failed');
        }
      },
    );
  }
}
