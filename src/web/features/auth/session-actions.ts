import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { useNavigate } from 'react-router';
import type { SessionResponse, User } from '../../../shared/contract/auth.ts';
import { ApiError, getToken } from '../../lib/api.ts';
import { isUserData, ME_KEY } from '../../lib/query-keys.ts';
import { meQuery, setSessionToken } from '../../lib/session.ts';
import { signIn, signOutRequest, signUp } from './api.ts';

/**
 * What starts and ends a session (docs/spec.md §4). Sign-in and sign-up set the token and the user;
 * sign-out clears the token and the whole query cache. Reading the session is lib/session.ts.
 */

/**
 * Stores a token and fetches its user (docs/spec.md §4: setting a token triggers a fetch of the current
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
  queryClient.removeQueries({ predicate: isUserData });
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
