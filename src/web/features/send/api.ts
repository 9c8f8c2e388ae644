import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  Email,
  PreviewEmailRequest,
  PreviewEmailResponse,
  SendEmailRequest,
} from '../../../shared/contract/email.ts';
import { api, ApiError } from '../../lib/api.ts';
import { emailKeys, USAGE_KEY } from '../../lib/query-keys.ts';

export function useSendEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SendEmailRequest) => api<{ id: string }>('/api/email/send', { method: 'POST', body }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: USAGE_KEY });
      void queryClient.invalidateQueries({ queryKey: emailKeys.all });
    },
  });
}

/** A preview refused for now (too many a minute): asked again by itself once the wait is over. */
export function previewWait(err: unknown): number | undefined {
  return err instanceof ApiError && err.status === 429 ? err.retryAfterS : undefined;
}

/** Waits for the preview throttle, at most: a longer one is shown as an error. */
const MAX_PREVIEW_WAITS = 3;

/**
 * What a send of `body` would deliver (POST /api/email/preview, the same door as a send,
 * docs/architecture.md §9); null asks nothing. A new body cancels the request for the previous
 * one (TanStack Query aborts a query nobody watches any more), and the last answer stays on show
 * while the next one loads. Refused for being one too many this minute, it is asked again when
 * the server's Retry-After says (the composer says so meanwhile), not left failed until the next
 * keystroke.
 */
export function useEmailPreview(body: PreviewEmailRequest | null) {
  return useQuery({
    ...emailPreviewQuery(body),
    enabled: body !== null,
    placeholderData: keepPreviousData,
    // The same input gives the same message: no refetch on focus or remount.
    staleTime: Infinity,
    gcTime: 30_000,
    retry: (failures, err) => failures < MAX_PREVIEW_WAITS && previewWait(err) !== undefined,
    retryDelay: (_, err) => (previewWait(err) ?? 0) * 1000,
  });
}

/**
 * The preview query of `body`: the composer's panel watches it, and a send fetches it for exactly
 * what it sends (one request for both when the panel already has it).
 */
export function emailPreviewQuery(body: PreviewEmailRequest | null) {
  return {
    queryKey: ['email-preview', body] as const,
    queryFn: ({ signal }: { signal: AbortSignal }) =>
      api<PreviewEmailResponse>('/api/email/preview', { method: 'POST', body: body!, signal }),
  };
}

/**
 * The checklist with the live link and image checks (POST /api/email/preview with `live: true`):
 * run on demand, since it requests every link and image of the email.
 */
export function useLiveChecks() {
  return useMutation({
    mutationFn: (body: PreviewEmailRequest) =>
      api<PreviewEmailResponse>('/api/email/preview', { method: 'POST', body: { ...body, live: true } }),
  });
}

/**
 * The email an "Edit and Resend" starts from (GET /api/email/{id}, the detail's own query key):
 * its source and options fill the composer, and the send becomes its thread's next version.
 */
export function useEmailToEdit(id: string | null) {
  return useQuery({
    queryKey: emailKeys.detail(id ?? ''),
    queryFn: ({ signal }) => api<Email>(`/api/email/${encodeURIComponent(id!)}`, { signal }),
    enabled: id !== null,
    retry: false,
  });
}
