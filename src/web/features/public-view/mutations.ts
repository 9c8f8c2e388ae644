import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReviewRequest, ReviewResponse, UnlockResponse } from '../../../shared/contract/review.ts';
import { api } from '../../lib/api.ts';
import { base, publicEmailKey, tokenHeaders } from './api.ts';

/** The public link's writes: unlock and review (loaded with the gate and the form, not the page). */

export function useUnlock(slug: string) {
  return useMutation({
    mutationFn: (password: string) =>
      api<UnlockResponse>(`${base(slug)}/unlock`, { method: 'POST', body: { password } }),
  });
}

/**
 * Sends a review, then reads the page's email again for the list. Should that bring a newer
 * version, the page keeps the reviewed one on show and says a newer one exists
 * (use-version-on-show.ts); the answer says so as well, and whether the sender was mailed.
 */
export function usePostReview(slug: string, token: string | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ReviewRequest) =>
      api<ReviewResponse>(`${base(slug)}/reviews`, {
        method: 'POST',
        body,
        headers: tokenHeaders(token),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: publicEmailKey(slug) }),
  });
}
