import type { FastifyRequest } from 'fastify';

/**
 * The few cookies the API sets (social sign-in's state and ticket binding, the known-device mark)
 * are all HttpOnly, SameSite=Lax and scoped to the one path that reads them; Secure when
 * PUBLIC_URL is https. No session ever lives in a cookie (docs/decisions/0013-bearer-session-tokens.md).
 */

export interface CookieOptions {
  path: string;
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
  secure: boolean;
}

export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const secure = options.secure ? '; Secure' : '';
  return `${name}=${value}; Max-Age=${options.maxAge}; Path=${options.path}; HttpOnly; SameSite=Lax${secure}`;
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
