import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  MailboxClearResponse,
  MailboxMessageResponse,
  MailboxResponse,
} from '../../../shared/contract/dev-mailbox.ts';
import { api } from '../../lib/api.ts';

/** The local mail catcher's mailbox (/api/dev/mailbox, loopback only). */

const MAILBOX_KEY = ['dev-mailbox'] as const;

/** How many of the newest caught mails the page lists. */
export const MAILBOX_PAGE_SIZE = 100;

/**
 * Newest first, without their parts (a caught mail may be 1 MB; MessageView reads the one shown);
 * refreshed every few seconds (while the tab is visible) so new mail shows up.
 */
export function useMailbox() {
  return useQuery({
    queryKey: MAILBOX_KEY,
    queryFn: ({ signal }) =>
      api<MailboxResponse>(`/api/dev/mailbox?limit=${MAILBOX_PAGE_SIZE}&bodies=none`, { signal }),
    refetchInterval: 4_000,
    retry: false,
  });
}

export function useMailboxMessage(id: string | undefined) {
  return useQuery({
    queryKey: [...MAILBOX_KEY, id],
    queryFn: async ({ signal }) =>
      (await api<MailboxMessageResponse>(`/api/dev/mailbox/${encodeURIComponent(id!)}`, { signal })).message,
    enabled: Boolean(id),
    staleTime: Infinity, // a caught mail never changes
    retry: false,
  });
}

export function useClearMailbox() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<MailboxClearResponse>('/api/dev/mailbox', { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: MAILBOX_KEY }),
  });
}
