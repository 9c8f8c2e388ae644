import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SettingsResponse, User } from '../../../shared/contract/auth.ts';
import { api } from '../../lib/api.ts';

/** Account and profile data (docs/spec.md §7: /api/user/*). */

const SETTINGS_KEY = ['settings'] as const;
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
