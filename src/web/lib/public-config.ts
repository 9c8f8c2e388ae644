import { useQuery } from '@tanstack/react-query';
import type { PublicConfig } from '../../shared/contract/system.ts';
import { api } from './api.ts';
import { CONFIG_KEY } from './query-keys.ts';

/** Server-supplied limits, price and switches (GET /api/config); the free allowance comes from here. */
export function usePublicConfig() {
  return useQuery({
    queryKey: CONFIG_KEY,
    queryFn: () => api<PublicConfig>('/api/config'),
    staleTime: 5 * 60_000,
  });
}
