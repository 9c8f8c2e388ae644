import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PublicEmail } from '../../../shared/contract/email.ts';
import type { ReviewRequest, Review, UnlockResponse } from '../../../shared/contract/review.ts';
import { api } from '../../lib/api.ts';

/**
 * The public link's calls (docs/decisions/0084-viewer-tokens.md). A protected link's viewer token
 * lives in sessionStorage, per link: the unlock lasts for this browser session only, and it is
 * sent as X-Viewer-Token, never as a cookie the app's session could share.
 */

const tokenKey = (slug: string) => `proofmail.viewer.${slug}`;

export function readViewerToken(slug: string): string | null {
  try {
    return sessionStorage.getItem(tokenKey(slug));
  } catch {
    return null;
  }
}

export function storeViewerToken(slug: string, token: string | null): void {
  try {
    if (token) sessionStorage.setItem(tokenKey(slug), token);
    else sessionStorage.removeItem(tokenKey(slug));
  } catch {
    // Storage off (private mode): the unlock lasts for this page only.
  }
}

const base = (slug: string) => `/api/email/public/${encodeURIComponent(slug)}`;
const tokenHeaders = (token: string | null) => (token ? { 'X-Viewer-Token': token } : undefined);

export const publicEmailKey = (slug: string) => ['public-email', slug] as const;

export function usePublicEmail(slug: string, version: number | undefined, token: string | null) {
  return useQuery({
    queryKey: [...publicEmailKey(slug), version ?? 'latest', token],
    queryFn: ({ signal }) =>
      api<PublicEmail>(`${base(slug)}${version ? `?v=${version}` : ''}`, {
        signal,
        headers: tokenHeaders(token),
      }),
    staleTime: 60_000,
  });
}

export function useUnlock(slug: string) {
  return useMutation({
    mutationFn: (password: string) =>
      api<UnlockResponse>(`${base(slug)}/unlock`, { method: 'POST', body: { password } }),
  });
}

export function usePostReview(slug: string, token: string | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ReviewRequest) =>
      api<{ review: Review }>(`${base(slug)}/reviews`, {
        method: 'POST',
        body,
        headers: tokenHeaders(token),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: publicEmailKey(slug) }),
  });
}
