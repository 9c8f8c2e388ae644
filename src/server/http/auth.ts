import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import type { AccountUser } from '../accounts/users.repo.ts';
import { API_KEY_MESSAGES, API_KEY_PREFIX } from '../../shared/contract/api-keys.ts';
import { forbidden, unauthorized } from './errors.ts';

/**
 * Bearer-token authentication (docs/architecture.md §6). Which session a token opens is not
 * decided here: the SessionResolver that app.ts passes in owns that lookup
 * (src/server/accounts/sessions.ts, with the per-process cache of
 * src/server/accounts/session-cache.ts in front of the database in main.ts), so this hook and the
 * routes do not change with it. Another kind of credential gets a resolver of its own beside it.
 *
 * Usage in a route:  const user = requireUser(request);   // 401 when not signed in
 *
 * A bearer token that starts with `pm_` is a personal API key (src/server/accounts/api-keys.ts,
 * docs/decisions/0073-personal-api-keys.md), never tried as a session. A key opens only routes
 * whose options say `config: API_KEY_ROUTE`; every other route answers a key 403, so a new route
 * is closed to keys until someone decides it may be opened.
 */

export type AuthUser = AccountUser;

export interface RequestAuth {
  user: AuthUser;
  sessionId: string;
  /** When this session was opened: a sensitive change may ask for a recent sign-in. */
  signedInAt: Date;
}

export interface SessionResolver {
  /**
   * The live session a bearer token opens now, or undefined: malformed, unknown, expired, idle
   * too long or revoked tokens all look the same. A resolver that knows the answer without I/O
   * (a cache hit) may return it as is: the auth hook then spends no promise on it.
   */
  resolve(token: string): RequestAuth | undefined | Promise<RequestAuth | undefined>;
  /**
   * Called after a commit that ended sessions of this user or changed what `RequestAuth.user`
   * carries: whatever this process remembers of them is dropped, so the same client's next
   * request reads the database. Other processes learn it from the database itself (a trigger's
   * NOTIFY, src/server/accounts/session-cache.ts); a resolver that remembers nothing ignores it.
   */
  forgetUser(userId: string): void;
}

/** A request made with a personal API key. */
export interface ApiKeyAuth {
  user: AuthUser;
  keyId: string;
}

export interface ApiKeyResolver {
  /** The live key and its owner, or undefined: malformed, unknown and revoked keys look the same. */
  resolve(key: string): Promise<ApiKeyAuth | undefined>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook for a valid bearer session; null otherwise. */
    auth: RequestAuth | null;
    /** Set by the auth hook for a request that presented an API key: null when it is not valid. */
    apiKey: ApiKeyAuth | null | undefined;
  }
  interface FastifyContextConfig {
    /** Marks an /api route that answers without a session (see PUBLIC_ROUTE). */
    public?: boolean;
    /** Marks an /api route a personal API key may call (see API_KEY_ROUTE). */
    apiKey?: boolean;
  }
}

/**
 * Every /api route needs a session unless its options say `config: PUBLIC_ROUTE`: secure by
 * default, and a 401 comes before any validation, so an anonymous caller learns nothing else.
 */
export const PUBLIC_ROUTE = { public: true } as const;

/**
 * A route an API key may call as its owner. Never on a route that changes the account (email,
 * password, keys, billing, sessions): tests/api/api-keys.test.ts walks the route table.
 */
export const API_KEY_ROUTE = { apiKey: true } as const;

/** The token of an `Authorization: Bearer <token>` header, if there is one. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/** Resolves the session of every /api request that carries a bearer token. Call before features. */
export function registerAuthentication(
  app: FastifyInstance,
  sessions: SessionResolver,
  apiKeys: ApiKeyResolver,
): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('apiKey', undefined);
  // Before the body is read: a caller who may not use the route costs no parsing at all.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.config?.public) return;
    const existing = route.preParsing ? [route.preParsing].flat() : [];
    route.preParsing = [requireSessionHook, ...existing];
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.startsWith('/api/')) return done();
    const token = bearerToken(request);
    if (!token) return done();
    if (token.startsWith(API_KEY_PREFIX)) {
      apiKeys.resolve(token).then((found) => {
        request.apiKey = found ?? null;
        done();
      }, done);
      return;
    }
    let found: ReturnType<SessionResolver['resolve']>;
    try {
      found = sessions.resolve(token);
    } catch (err) {
      return done(err as Error);
    }
    if (found instanceof Promise) {
      found.then((auth) => {
        request.auth = auth ?? null;
        done();
      }, done);
      return;
    }
    request.auth = found ?? null;
    done();
  });
}

/**
 * A callback hook, not an async one: the check is synchronous, and a promise per request costs.
 * It runs before parsing (`preParsing`), so it hands the body stream on untouched.
 */
function requireSessionHook(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: RequestPayload,
  done: (err: Error | null, payload?: RequestPayload) => void,
): void {
  if (request.apiKey !== undefined) {
    if (!request.apiKey) return done(unauthorized(API_KEY_MESSAGES.invalidKey, 'invalid_api_key'));
    if (!request.routeOptions.config.apiKey)
      return done(forbidden(API_KEY_MESSAGES.accountOnly, 'api_key_not_allowed'));
    return done(null, payload);
  }
  if (!request.auth) return done(unauthorized());
  done(null, payload);
}

function requireApiKey(request: FastifyRequest): ApiKeyAuth {
  if (!request.apiKey) throw unauthorized(API_KEY_MESSAGES.invalidKey, 'invalid_api_key');
  return request.apiKey;
}

/**
 * The user the request acts for (signed in, or the owner of its API key), or a 401
 * `{ error: 'Not authenticated', code: 'unauthenticated' }`.
 */
export function requireUser(request: FastifyRequest): AuthUser {
  if (request.apiKey !== undefined) return requireApiKey(request).user;
  return requireSession(request).user;
}

/** The signed-in user and the id of the session making this request (never an API key). */
export function requireSession(request: FastifyRequest): RequestAuth {
  if (request.apiKey !== undefined) throw forbidden(API_KEY_MESSAGES.accountOnly, 'api_key_not_allowed');
  if (!request.auth) throw unauthorized();
  return request.auth;
}
