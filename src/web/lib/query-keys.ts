import type { Query } from '@tanstack/react-query';

/**
 * The TanStack Query keys that more than one feature reads, invalidates or clears. A key only
 * its own feature uses (settings, subscription, mailbox, …) stays in that feature's api.ts.
 */

/** GET /api/config: public and the same for everyone, so it survives sign-in and sign-out. */
export const CONFIG_KEY = ['config'] as const;

/** GET /api/auth/me: the signed-in user. */
export const ME_KEY = ['me'] as const;

/** GET /api/user/usage: this month's sends; a send changes it. */
export const USAGE_KEY = ['usage'] as const;

/** Sent emails: the history's lists and each email's detail; a send or a share changes them. */
export const emailKeys = {
  all: ['emails'] as const,
  lists: () => ['emails', 'list'] as const,
  list: (q: string) => ['emails', 'list', q] as const,
  detail: (id: string) => ['emails', 'detail', id] as const,
};

/** Every cached answer that belongs to the signed-in user: all but the public config. */
export function isUserData(query: Pick<Query, 'queryKey'>): boolean {
  return query.queryKey[0] !== CONFIG_KEY[0];
}

/** The OpenAPI document the API Reference page renders (GET /api/openapi.json). */
export const OPENAPI_KEY = ['openapi'] as const;
