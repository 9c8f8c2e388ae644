import {
  useIsMutating,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import type { DeleteVersionsResponse, Email, ShareResponse } from '../../../shared/contract/email.ts';
import type { ShareRequest } from '../../../shared/contract/review.ts';
import { api, apiBlob } from '../../lib/api.ts';
import { emailKeys } from '../../lib/query-keys.ts';

/** One sent email (docs/spec.md §7): its detail, and sharing it. */

const IN_FLIGHT = new Set<Email['delivery']['state']>(['queued', 'sending', 'retrying']);

/** The delete mutations, so a detail knows to stop polling while one is on its way. */
const DELETING = [...emailKeys.all, 'deleting'] as const;

/**
 * One email with its HTML; while its delivery is still under way the state is polled, but not
 * while a delete is on its way: a poll that reached the server after the delete came back 404,
 * and the leaving page showed the error for an instant.
 */
export function useEmail(id: string) {
  const deleting = useIsMutating({ mutationKey: DELETING }) > 0;
  return useQuery({
    queryKey: emailKeys.detail(id),
    queryFn: ({ signal }) => api<Email>(`/api/email/${encodeURIComponent(id)}`, { signal }),
    // Every 2 s at first, slowing down to every 30 s for a delivery that keeps retrying.
    refetchInterval: (query) =>
      !deleting && query.state.data && IN_FLIGHT.has(query.state.data.delivery.state)
        ? Math.min(30_000, 2000 * 1.25 ** query.state.dataUpdateCount)
        : false,
  });
}

async function storeEmail(queryClient: QueryClient, email: Email): Promise<void> {
  // A poll of the detail (every 2 s while a delivery is under way) that left before this answer
  // can come back after it with the state from before: it is dropped, not stored over this one.
  await queryClient.cancelQueries({ queryKey: emailKeys.detail(email.id) });
  queryClient.setQueryData(emailKeys.detail(email.id), email);
  // The history's Status column (Public Link / Not Shared) follows.
  void queryClient.invalidateQueries({ queryKey: emailKeys.lists() });
}

/** Shares the email's thread, or changes its link's settings (expiry, password). */
export function useShareEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, settings }: { id: string; settings?: NonNullable<ShareRequest> }) =>
      api<ShareResponse>(`/api/email/${encodeURIComponent(id)}/share`, {
        method: 'POST',
        ...(settings ? { body: settings } : {}),
      }),
    onSuccess: (res) => storeEmail(queryClient, res.email),
  });
}

/**
 * Deletes one review of the email's thread, or all of them (no `reviewId`). Reviews belong to the
 * thread, so every cached version's detail is read again, and the history's badge with them.
 */
export function useDeleteReviews() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, reviewId }: { id: string; reviewId?: string }) =>
      api<{ deleted: number }>(
        `/api/email/${encodeURIComponent(id)}/reviews${reviewId ? `/${encodeURIComponent(reviewId)}` : ''}`,
        { method: 'DELETE' },
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: emailKeys.all }),
  });
}

/** A new address for the link; the old one stops working. */
export function useRotateShare() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api<ShareResponse>(`/api/email/${encodeURIComponent(id)}/share/rotate`, { method: 'POST' }),
    onSuccess: (res) => storeEmail(queryClient, res.email),
  });
}

export function useUnshareEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api<{ ok: true; email: Email }>(`/api/email/${encodeURIComponent(id)}/share`, { method: 'DELETE' }),
    onSuccess: (res) => storeEmail(queryClient, res.email),
  });
}

/**
 * The message as it left for one recipient (GET /api/email/{id}/message.eml?delivery=…; the first
 * without a delivery id): the Blob to download and its text to read. Fetched when first shown; it
 * never changes.
 */
export function useMessageSource(id: string, deliveryId?: string) {
  return useQuery({
    queryKey: [...emailKeys.detail(id), 'message.eml', deliveryId ?? 'first'],
    queryFn: async ({ signal }) => {
      const query = deliveryId ? `?delivery=${encodeURIComponent(deliveryId)}` : '';
      const blob = await apiBlob(`/api/email/${encodeURIComponent(id)}/message.eml${query}`, { signal });
      return { blob, text: await blob.text() };
    },
    staleTime: Infinity,
  });
}

/**
 * After a delete: every other version's list of versions and the history follow; the deleted
 * versions' details are never asked for again. A detail still shown (the page that is leaving) is
 * not refetched, nor removed: a removed query its page renders once more would be built again and
 * ask for the deleted email. It goes with its page (the cache's garbage collection).
 */
const isDetailOf = (ids: string[]) => {
  const deleted = new Set(ids);
  return (key: readonly unknown[]) =>
    key[0] === emailKeys.all[0] && key[1] === 'detail' && deleted.has(key[2] as string);
};

/** Before a delete: a poll of what is being deleted already on its way is dropped. */
function stopAsking(queryClient: QueryClient, ids: string[]): Promise<void> {
  const isDeleted = isDetailOf(ids);
  return queryClient.cancelQueries({ predicate: (q) => isDeleted(q.queryKey) });
}

function forgetDeleted(queryClient: QueryClient, ids: string[]): void {
  const isDeleted = isDetailOf(ids);
  void stopAsking(queryClient, ids);
  for (const id of ids) queryClient.removeQueries({ queryKey: emailKeys.detail(id), type: 'inactive' });
  void queryClient.invalidateQueries({
    queryKey: emailKeys.all,
    predicate: (q) => !isDeleted(q.queryKey),
  });
}

/** Deletes one version (DELETE /api/email/{id}); the thread's other versions stay. */
export function useDeleteVersion() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: DELETING,
    mutationFn: (id: string) =>
      api<{ ok: true }>(`/api/email/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onMutate: (id) => stopAsking(queryClient, [id]),
    onSuccess: (_res, id) => forgetDeleted(queryClient, [id]),
  });
}

/** Deletes every version of the email's thread (DELETE /api/email/{id}/versions). */
export function useDeleteAllVersions() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: DELETING,
    mutationFn: (email: Email) =>
      api<DeleteVersionsResponse>(`/api/email/${encodeURIComponent(email.id)}/versions`, {
        method: 'DELETE',
      }),
    onMutate: (email) =>
      stopAsking(
        queryClient,
        email.versions.map((v) => v.id),
      ),
    onSuccess: (_res, email) =>
      forgetDeleted(
        queryClient,
        email.versions.map((v) => v.id),
      ),
  });
}
