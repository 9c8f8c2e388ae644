import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyListResponse, CreateApiKeyResponse } from '../../../shared/contract/api-keys.ts';
import { api } from '../../lib/api.ts';

/** Personal API keys (GET, POST, DELETE /api/keys; docs/decisions/0073-personal-api-keys.md). */

const KEYS_KEY = ['api-keys'] as const;

export function useApiKeys() {
  return useQuery({
    queryKey: KEYS_KEY,
    queryFn: ({ signal }) => api<ApiKeyListResponse>('/api/keys', { signal }),
  });
}

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<CreateApiKeyResponse>('/api/keys', { method: 'POST', body: { name } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEYS_KEY }),
  });
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api<{ ok: true }>(`/api/keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: KEYS_KEY }),
  });
}
