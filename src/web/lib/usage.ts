import { useQuery } from '@tanstack/react-query';
import type { User } from '../../shared/contract/auth.ts';
import type { Usage } from '../../shared/contract/email.ts';
import { api } from './api.ts';
import { USAGE_KEY } from './query-keys.ts';

interface UsageResponse {
  ok: true;
  user: User;
  usage: Usage;
}

/** This month's sends and the plan's limit (GET /api/user/usage): the send screen, profile and account. */
export function useUsage(enabled = true) {
  return useQuery({
    queryKey: USAGE_KEY,
    queryFn: () => api<UsageResponse>('/api/user/usage'),
    enabled,
    staleTime: 10_000,
  });
}
