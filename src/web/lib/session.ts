import { queryOptions, useQuery } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';
import type { User } from '../../shared/contract/auth.ts';
import { api, ApiError, getToken, setToken, TOKEN_KEY } from './api.ts';
import { queryClient } from './query-client.ts';
import { isUserData, ME_KEY } from './query-keys.ts';

/**
 * The session (docs/spec.md §4): the token lives in localStorage under `auth_token`; the user is the
 * TanStack Query entry ['me'] (GET /api/auth/me), fetched only while a token exists. Every feature
 * reads the session here; the auth feature owns the flows that change it (sign in, up and out).
 */

// --- token store: localStorage plus listeners, so components re-render when the token changes ---

const listeners = new Set<() => void>();

function notify(): void {
  listeners.forEach((l) => l());
}

/** Stores (or with null removes) the session token and tells every session consumer. */
export function setSessionToken(token: string | null): void {
  setToken(token);
  notify();
}

function onStorage(e: StorageEvent): void {
  // Another tab signed in or out: drop this tab's answers (they may be another user's), re-render.
  if (e.key === TOKEN_KEY || e.key === null) {
    void queryClient.resetQueries();
    notify();
  }
}

// --- news between this browser's tabs (storage events only carry the token) ---

type SessionNews = { type: 'verified' };
const CHANNEL = 'proofmail-session';
let channel: BroadcastChannel | null = null;

function onNews(e: MessageEvent<SessionNews>): void {
  // The address was verified in another tab: ask again (meQuery then reloads the rest).
  if (e.data?.type === 'verified') void queryClient.invalidateQueries({ queryKey: ME_KEY });
}

/** Tells this browser's other tabs that the signed-in user's address is now verified. */
export function announceVerified(): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const sender = new BroadcastChannel(CHANNEL);
  sender.postMessage({ type: 'verified' } satisfies SessionNews);
  sender.close();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (listeners.size === 1) {
    window.addEventListener('storage', onStorage);
    if (typeof BroadcastChannel !== 'undefined') {
      channel = new BroadcastChannel(CHANNEL);
      channel.addEventListener('message', onNews);
    }
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      window.removeEventListener('storage', onStorage);
      channel?.close();
      channel = null;
    }
  };
}

function useSessionToken(): string | null {
  return useSyncExternalStore(subscribe, getToken, () => null);
}

// --- the current user ---

export function meQuery() {
  return queryOptions({
    queryKey: ME_KEY,
    queryFn: async ({ signal }): Promise<User> => {
      try {
        const { user } = await api<{ user: User }>('/api/auth/me', { signal });
        const before = queryClient.getQueryData<User>(ME_KEY);
        if (before?.id === user.id && !before.verified && user.verified) {
          // Verified elsewhere: every other view of the account (the send screen's notice, the
          // account page's warning, the settings) reloads too.
          void queryClient.invalidateQueries({
            predicate: (q) => isUserData(q) && q.queryKey[0] !== ME_KEY[0],
          });
        }
        return user;
      } catch (err) {
        // 401: the stored token is expired or revoked; forget it (the user is signed out).
        if (err instanceof ApiError && err.status === 401) setSessionToken(null);
        throw err;
      }
    },
    staleTime: 60_000,
    // An unverified user may verify from a mail opened elsewhere (another browser, the phone):
    // coming back to this tab asks again. A verified user's answer follows the app's default.
    refetchOnWindowFocus: (query) => (query.state.data?.verified === false ? 'always' : false),
  });
}

export type SessionState =
  | { status: 'loading'; user: null }
  | { status: 'anonymous'; user: null }
  | { status: 'authenticated'; user: User }
  /** A token exists but the server could not be reached (network trouble or 5xx). */
  | { status: 'error'; user: null; error: Error; retry: () => void };

export function useSession(): SessionState {
  const token = useSessionToken();
  const query = useQuery({ ...meQuery(), enabled: token !== null });
  const { refetch } = query;
  const retry = useCallback(() => void refetch(), [refetch]);
  if (token === null) return { status: 'anonymous', user: null };
  if (query.data) return { status: 'authenticated', user: query.data };
  if (query.isError) {
    if (query.error instanceof ApiError && query.error.status === 401)
      return { status: 'anonymous', user: null };
    return { status: 'error', user: null, error: query.error, retry };
  }
  return { status: 'loading', user: null };
}

/** The signed-in user, or null (anonymous or still loading). */
export function useOptionalUser(): User | null {
  return useSession().user;
}
