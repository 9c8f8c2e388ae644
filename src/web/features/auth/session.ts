import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { useNavigate } from 'react-router';
import type { SessionResponse, User } from '../../../shared/contract/auth.ts';
import { ApiError, getToken, setToken, TOKEN_KEY } from '../../lib/api.ts';
import { queryClient } from '../../lib/query-client.ts';
import { fetchMe, signIn, signOutRequest, signUp } from './api.ts';

/**
 * The session (spec §4): the token lives in localStorage under `auth_token`; the user is the
 * TanStack Query entry ['me'] (GET /api/auth/me), fetched only while a token exists. Sign-in and
 * sign-up set both; sign-out clears the token and the whole query cache.
 */

export const ME_KEY = ['me'] as const;

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

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (listeners.size === 1) window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) window.removeEventListener('storage', onStorage);
  };
}

export function useSessionToken(): string | null {
  return useSyncExternalStore(subscribe, getToken, () => null);
}

// --- the current user ---

export function meQuery() {
  return queryOptions({
    queryKey: ME_KEY,
    queryFn: async ({ signal }): Promise<User> => {
      try {
        return await fetchMe(signal);
      } catch (err) {
        // 401: the stored token is expired or revoked; forget it (the user is signed out).
        if (err instanceof ApiError && err.status === 401) setSessionToken(null);
        throw err;
      }
    },
    staleTime: 60_000,
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
    if (query.error instanceof ApiError && query.error.status === 401) return { status: 'anonymous', user: null };
    return { status: 'error', user: null, error: query.error, retry };
  }
  return { status: 'loading', user: null };
}

/** The signed-in user, or null (anonymous or still loading). */
export function useOptionalUser(): User | null {
  return useSession().user;
}

/**
 * Stores a token and fetches its user (spec §4: setting a token triggers a fetch of the current
 * user; if that fails the token is removed).
 */
export async function establishSession(queryClient: QueryClient, token: string): Promise<User> {
  setSessionToken(token);
  try {
    return await queryClient.fetchQuery({ ...meQuery(), staleTime: 0 });
  } catch (err) {
    setSessionToken(null);
    queryClient.removeQueries({ queryKey: ME_KEY });
    throw err;
  }
}

/** A sign-in or sign-up answer: keep the token, show the user at once, drop another user's data. */
function acceptSession(queryClient: QueryClient, res: SessionResponse): void {
  queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'config' });
  setSessionToken(res.token);
  queryClient.setQueryData(ME_KEY, res.user);
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signIn,
    onSuccess: (res) => acceptSession(queryClient, res),
  });
}

export function useSignUp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signUp,
    onSuccess: (res) => acceptSession(queryClient, res),
  });
}

/** Forget the session in this browser: token and every cached answer. */
export function clearSession(queryClient: QueryClient): void {
  setSessionToken(null);
  queryClient.clear();
}

/**
 * Sign out (POST /api/auth/signout), then clear the token and the cache and go to /signin. The
 * local session is cleared even when the server call fails; the failure (`signout failed:
 * {status}`) is passed to onError so the caller can tell the user.
 */
export function useSignOut(options: { onError?: (err: Error) => void } = {}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { onError } = options;
  return useCallback(
    async (to = '/signin') => {
      let failure: Error | null = null;
      try {
        await signOutRequest();
      } catch (err) {
        failure = err as Error;
      }
      clearSession(queryClient);
      await navigate(to, { replace: true });
      if (failure) onError?.(failure);
    },
    [queryClient, navigate, onError],
  );
}

/**
 * While mounted, a 401 on any query (the session was revoked elsewhere, e.g. by a password change)
 * signs this browser out; the app shell then sends the user to /signin.
 */
export function useSignOutOnUnauthorized(onSignedOut?: () => void): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    return queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== 'updated' || event.action.type !== 'error') return;
      const err = event.action.error;
      if (err instanceof ApiError && err.status === 401 && getToken() !== null) {
        setSessionToken(null);
        onSignedOut?.();
      }
    });
  }, [queryClient, onSignedOut]);
}
