import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Review, ReviewRequest, UnlockResponse } from '../../../shared/contract/review.ts';
import { api } from '../../lib/api.ts';
import { base, publicEmailKey, tokenHeaders } from './api.ts';

/** The public link's writes: unlock and review (loaded with the gate and the form, not the page). */

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
