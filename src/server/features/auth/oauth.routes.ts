import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { OAUTH_PROVIDERS, type OAuthProvider } from '../../../shared/contract/auth.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { PUBLIC_ROUTE } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import {
  fetchIdentity,
  isProviderEnabled,
  OAuthFlowError,
  startAuthorization,
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
 */

const COOKIE_TTL_S = 600;
const cookieName = (provider: OAuthProvider) => `pm_oauth_${provider}`;
const callbackPath = (provider: OAuthProvider) => `/api/auth/${provider}/callback`;

const callbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(256).optional(),
});

function cookie(deps: FeatureDeps, provider: OAuthProvider, value: string, maxAge: number): string {
  const secure = deps.config.publicUrl.startsWith('https:') ? '; Secure' : '';
  return `${cookieName(provider)}=${value}; Max-Age=${maxAge}; Path=${callbackPath(provider)}; HttpOnly; SameSite=Lax${secure}`;
}

function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
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
      { config: PUBLIC_ROUTE, schema: { response: { 302: z.undefined() } } },
      async (_request, reply) => {
        if (!isProviderEnabled(deps.config, provider)) throw notFound();
        const { url, state, codeVerifier } = startAuthorization(deps.config, provider);
        void reply.header('Set-Cookie', cookie(deps, provider, `${state}.${codeVerifier}`, COOKIE_TTL_S));
        return reply.redirect(url, 302);
      },
    );

    r.get(
      callbackPath(provider),
      { config: PUBLIC_ROUTE, schema: { querystring: callbackQuery, response: { 302: z.undefined() } } },
      async (request, reply) => {
        if (!isProviderEnabled(deps.config, provider)) throw notFound();
        void reply.header('Set-Cookie', cookie(deps, provider, '', 0));
        const fail = (error: string) => reply.redirect(toCallbackPage(deps, { error, provider }), 302);
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
          const ticket = await ticketForIdentity(deps, identity);
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
