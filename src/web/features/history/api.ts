import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQueryClient,
  type InfiniteData,
} from '@tanstack/react-query';
import type { EmailListResponse, EmailSummary } from '../../../shared/contract/email.ts';
import { HISTORY_PAGE_SIZE } from '../../../shared/plans.ts';
import { api } from '../../lib/api.ts';
import { emailKeys } from '../../lib/query-keys.ts';

/** The history, 20 at a time (docs/spec.md §9), newest first; `q` searches recipient, subject and HTML. */
export function useEmailList(q: string, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: emailKeys.list(q),
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams({ limit: String(HISTORY_PAGE_SIZE) });
      if (pageParam) params.set('cursor', pageParam);
      if (q) params.set('q', q);
      return api<EmailListResponse>(`/api/email?${params.toString()}`, { signal });
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    enabled,
    // While a new search loads, the old results stay on screen (no flash of skeletons).
    placeholderData: keepPreviousData,
  });
}

/**
 * Deletes a history row: the email, or every version of its thread when it has several (the
 * confirmation names how many).
 */
export function useDeleteEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: EmailSummary) =>
      api<{ ok: true }>(
        `/api/email/${encodeURIComponent(email.id)}${email.versionCount > 1 ? '/versions' : ''}`,
        { method: 'DELETE' },
      ),
    onSuccess: (_res, { id }) => {
      // The thread's other versions' details are dropped by the invalidation below.
      queryClient.removeQueries({ queryKey: emailKeys.detail(id) });
      // Drop the row at once, then refetch the loaded pages so paging stays consistent.
      queryClient.setQueriesData<InfiniteData<EmailListResponse>>({ queryKey: emailKeys.lists() }, (data) =>
        data
          ? { ...data, pages: data.pages.map((p) => ({ ...p, items: p.items.filter((e) => e.id !== id) })) }
          : data,
      );
      void queryClient.invalidateQueries({ queryKey: emailKeys.all });
    },
  });
}
