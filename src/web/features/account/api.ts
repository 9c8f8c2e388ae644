import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SettingsResponse, User } from '../../../shared/contract/auth.ts';
import type { TargetClientsResponse } from '../../../shared/contract/checks.ts';
import type { SharedLinksResponse, WithdrawSharedLinksResponse } from '../../../shared/contract/email.ts';
import { api } from '../../lib/api.ts';

/** Account and profile data (docs/spec.md §7: /api/user/*). */

const SETTINGS_KEY = ['settings'] as const;
const SHARED_LINKS_KEY = ['shared-links'] as const;
const PROFILE_KEY = ['profile'] as const;

export function useSettings() {
  return useQuery({
    queryKey: SETTINGS_KEY,
    queryFn: ({ signal }) => api<SettingsResponse>('/api/user/settings', { signal }),
  });
}

export function useProfile() {
  return useQuery({
    queryKey: PROFILE_KEY,
    queryFn: async ({ signal }) => (await api<{ user: User }>('/api/user/me', { signal })).user,
  });
}

/**
 * The login alerts switch (docs/spec.md §4): optimistic, so the switch moves at once; a failure puts the
 * cached value back.
 */
export function useUpdateLoginAlerts() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (loginAlerts: boolean) =>
      api<{ ok: true; prefs: { loginAlerts: boolean } }>('/api/user/settings', {
        method: 'PATCH',
        body: { loginAlerts },
      }),
    onMutate: async (loginAlerts) => {
      await queryClient.cancelQueries({ queryKey: SETTINGS_KEY });
      const previous = queryClient.getQueryData<SettingsResponse>(SETTINGS_KEY);
      if (previous)
        queryClient.setQueryData<SettingsResponse>(SETTINGS_KEY, {
          ...previous,
          prefs: { ...previous.prefs, loginAlerts },
        });
      return { previous };
    },
    onError: (_err, _value, context) => {
      if (context?.previous) queryClient.setQueryData(SETTINGS_KEY, context.previous);
    },
    onSuccess: (res) => {
      queryClient.setQueryData<SettingsResponse>(SETTINGS_KEY, (old) =>
        old ? { ...old, prefs: res.prefs } : old,
      );
    },
  });
}

export function useChangeEmail() {
  return useMutation({
    mutationFn: (body: { newEmail: string; currentPassword?: string }) =>
      api<{ ok: true }>('/api/user/change-email', { method: 'POST', body }),
  });
}

export function useChangePassword() {
  return useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) =>
      api<{ ok: true }>('/api/user/change-password', { method: 'POST', body }),
  });
}

/** How many public links the user has out (GET /api/email/shared), on any plan. */
export function useSharedLinks() {
  return useQuery({
    queryKey: SHARED_LINKS_KEY,
    queryFn: ({ signal }) => api<SharedLinksResponse>('/api/email/shared', { signal }),
  });
}

export function useWithdrawSharedLinks() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<WithdrawSharedLinksResponse>('/api/email/shared', { method: 'DELETE' }),
    onSuccess: () => {
      queryClient.setQueryData<SharedLinksResponse>(SHARED_LINKS_KEY, { count: 0 });
      // Open email pages show the share switch: they must not say "shared" any more.
      void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== SHARED_LINKS_KEY[0] });
    },
  });
}

const TARGET_CLIENTS_KEY = ['target-clients'] as const;

/** The clients the checklist's compatibility check scores (GET/PUT /api/user/target-clients). */
export function useTargetClients() {
  return useQuery({
    queryKey: TARGET_CLIENTS_KEY,
    queryFn: ({ signal }) => api<TargetClientsResponse>('/api/user/target-clients', { signal }),
  });
}

export function useSaveTargetClients() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (targetClients: string[]) =>
      api<TargetClientsResponse>('/api/user/target-clients', { method: 'PUT', body: { targetClients } }),
    onSuccess: (data) => {
      queryClient.setQueryData(TARGET_CLIENTS_KEY, data);
      // Every checklist shown so far was scored for the old set.
      void queryClient.invalidateQueries({ queryKey: ['email-preview'] });
    },
  });
}
