import type { CancelEmailChangeResponse, SessionResponse } from '../../../shared/contract/auth.ts';
import { api, ApiError } from '../../lib/api.ts';

/**
 * Fetchers for the auth API (docs/spec.md §7). Failures are ApiError with the server's `error` text; where
 * the server sent none, the spec's fallbacks apply (`signin failed: {status}`, `signup failed:
 * {status}`, `signout failed: {status}`).
 */

/** api.ts says "Unknown error" when a failing answer carried no `error` text. */
function withFallback(err: unknown, action: 'signin' | 'signup'): never {
  if (err instanceof ApiError && err.status > 0 && err.message === 'Unknown error') {
    throw new ApiError(err.status, `${action} failed: ${err.status}`, err.code);
  }
  throw err;
}

export async function signIn(body: { email: string; password: string }): Promise<SessionResponse> {
  try {
    return await api<SessionResponse>('/api/auth/signin', { method: 'POST', body });
  } catch (err) {
    withFallback(err, 'signin');
  }
}

export async function signUp(body: {
  email: string;
  password: string;
  captchaToken?: string;
}): Promise<SessionResponse> {
  try {
    return await api<SessionResponse>('/api/auth/signup', { method: 'POST', body });
  } catch (err) {
    withFallback(err, 'signup');
  }
}

export async function signOutRequest(): Promise<void> {
  try {
    await api<{ ok: true }>('/api/auth/signout', { method: 'POST' });
  } catch (err) {
    // An expired or revoked session is already signed out.
    if (err instanceof ApiError && err.status === 401) return;
    const status = err instanceof ApiError ? err.status : 0;
    throw new Error(`signout failed: ${status}`);
  }
}

export function verifyEmail(token: string): Promise<{ ok: true; emailChanged: boolean }> {
  return api<{ ok: true; emailChanged: boolean }>('/api/auth/verify-email', {
    method: 'POST',
    body: { token },
  });
}

export function requestPasswordReset(email: string): Promise<unknown> {
  return api<unknown>('/api/auth/request-password-reset', { method: 'POST', body: { email } });
}

export function resetPassword(token: string, newPassword: string): Promise<{ ok: true }> {
  return api<{ ok: true }>('/api/auth/reset-password', { method: 'POST', body: { token, newPassword } });
}

export function exchangeTicket(ticket: string): Promise<SessionResponse> {
  return api<SessionResponse>('/api/auth/exchange', { method: 'POST', body: { ticket } });
}

export function cancelEmailChange(token: string): Promise<CancelEmailChangeResponse> {
  return api<CancelEmailChangeResponse>('/api/auth/cancel-email-change', { method: 'POST', body: { token } });
}
