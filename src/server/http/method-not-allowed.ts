import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';
import { isDocumented } from './openapi.ts';

/**
 * 405 Method Not Allowed, with `Allow`, for an /api address that exists with other methods (RFC
 * 9110 §15.5.6; docs/decisions/0114-answers-that-say-what-the-api-takes.md): `PUT
 * /api/email/{id}` names GET, HEAD and DELETE instead of a bare 404.
 *
 * The router keeps one tree per method, so two requests reach no route of their own: a method the
 * address does not have at all (PUT /api/email/{id}: the not-found handler, src/server/http/spa.ts,
 * asks `allowedMethods`), and a fixed address read as another route's parameter (GET
 * /api/email/send would be GET /api/email/:id with the id "send": the hook below, before
 * authentication). Which address a path is follows the router's own order: at the first segment
 * where two patterns differ, a fixed segment wins over a parameter.
 *
 * Only the routes of the OpenAPI document count (`isDocumented`): the dev mailbox, for one, says
 * nothing to a client it does not answer (docs/decisions/0029-dev-mailbox-local-clients-only.md).
 */

/** A path pattern's segments: the text of a fixed one, null for a parameter. */
type Segments = (string | null)[];

interface Address {
  segments: Segments;
  methods: Set<string>;
  /** The Allow header: HEAD with GET (Fastify answers it), in RFC 9110's order. */
  allow: string;
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

const segmentsOf = (pattern: string): Segments =>
  pattern
    .split('/')
    .slice(1)
    .map((s) => (s.startsWith(':') ? null : s));

/** The path of a request URL as the router matches it: no query, no trailing slash, decoded segments. */
function pathSegments(url: string): string[] {
  const query = url.indexOf('?');
  let path = query === -1 ? url : url.slice(0, query);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path
    .split('/')
    .slice(1)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

const matches = (address: Address, parts: string[]): boolean =>
  address.segments.length === parts.length &&
  address.segments.every((s, i) => (s === null ? parts[i] !== '' : s === parts[i]));

/** Negative when `a` comes first in the router's order (at the first difference, fixed before parameter). */
function routerOrder(a: Segments, b: Segments): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if ((a[i] === null) !== (b[i] === null)) return a[i] === null ? 1 : -1;
  }
  return 0;
}

export interface MethodTable {
  /** The Allow header of the address a path is, or undefined when no documented address matches. */
  allowedMethods(url: string): string | undefined;
  /**
   * For a request that reached `pattern` with `method`: the Allow header of a fixed address that
   * the path really is and that does not take the method, or undefined.
   */
  shadowedBy(method: string, pattern: string, url: string): string | undefined;
}

export function methodTable(routes: readonly { method: string; url: string }[]): MethodTable {
  const byPattern = new Map<string, Address>();
  for (const route of routes.filter(isDocumented)) {
    let address = byPattern.get(route.url);
    if (!address) {
      address = { segments: segmentsOf(route.url), methods: new Set(), allow: '' };
      byPattern.set(route.url, address);
    }
    address.methods.add(route.method);
    if (route.method === 'GET') address.methods.add('HEAD');
  }
  for (const address of byPattern.values()) {
    address.allow = [...address.methods]
      .sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99))
      .join(', ');
  }
  const addresses = [...byPattern.values()].sort((a, b) => routerOrder(a.segments, b.segments));

  // Per (method, pattern): the addresses without that method that the router would prefer for some
  // path of the pattern. Empty for nearly every route, so the hook costs one lookup.
  const shadows = new Map<string, Address[]>();
  const shadowsOf = (method: string, pattern: string): Address[] => {
    const key = `${method} ${pattern}`;
    let found = shadows.get(key);
    if (!found) {
      const own = segmentsOf(pattern);
      found = addresses.filter(
        (other) =>
          !other.methods.has(method) &&
          other.segments.length === own.length &&
          other.segments.every((s, i) => s === null || own[i] === null || s === own[i]) &&
          routerOrder(other.segments, own) < 0,
      );
      shadows.set(key, found);
    }
    return found;
  };

  return {
    allowedMethods(url) {
      const parts = pathSegments(url);
      return addresses.find((a) => matches(a, parts))?.allow;
    },
    shadowedBy(method, pattern, url) {
      const candidates = shadowsOf(method, pattern);
      if (candidates.length === 0) return undefined;
      const parts = pathSegments(url);
      return candidates.find((a) => matches(a, parts))?.allow;
    },
  };
}

/** The 405 answer, with its Allow header. */
export function methodNotAllowed(reply: FastifyReply, allow: string): AppError {
  void reply.header('Allow', allow);
  return new AppError(405, `Method not allowed: this address takes ${allow}.`, 'method_not_allowed');
}

/**
 * Registers the hook for fixed addresses read as a parameter, and answers the table the not-found
 * handler asks (built at the first request, when every route is registered). An onRequest hook:
 * after the host check, before the session check (which runs before parsing), so the answer is
 * the same signed in or not, as the not-found handler's is.
 */
export function registerMethodNotAllowed(
  app: FastifyInstance,
  routes: readonly { method: string; url: string }[],
): MethodTable {
  let built: MethodTable | undefined;
  const table = () => (built ??= methodTable(routes));
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const pattern = request.routeOptions.url;
    if (pattern === undefined || !pattern.startsWith('/api/') || !pattern.includes(':')) return done();
    const allow = table().shadowedBy(request.method, pattern, request.url);
    done(allow === undefined ? undefined : methodNotAllowed(reply, allow));
  });
  return {
    allowedMethods: (url) => table().allowedMethods(url),
    shadowedBy: (method, pattern, url) => table().shadowedBy(method, pattern, url),
  };
}
