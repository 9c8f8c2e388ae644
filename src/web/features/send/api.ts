import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { User } from '../../../shared/contract/auth.ts';
import type { SendEmailRequest, Usage } from '../../../shared/contract/email.ts';
import { api } from '../../lib/api.ts';

export interface UsageResponse {
  ok: true;
  user: User;
  usage: Usage;
}

export const usageQueryKey = ['usage'] as const;

export function useUsage(enabled = true) {
  return useQuery({
    queryKey: usageQueryKey,
    queryFn: () => api<UsageResponse>('/api/user/usage'),
    enabled,
    staleTime: 10_000,
  });
}

export function useSendEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SendEmailRequest) => api<{ id: string }>('/api/email/send', { method: 'POST', body }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: usageQueryKey });
      void queryClient.invalidateQueries({ queryKey: ['emails'] });
    },
  });
}
