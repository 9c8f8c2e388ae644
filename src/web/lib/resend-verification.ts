import { useMutation } from '@tanstack/react-query';
import { toast } from '../components/ui/toast.tsx';
import { api, errorMessage } from './api.ts';

/**
 * Sends a new verification link (POST /api/auth/resend-verification) with the toasts of docs/spec.md §8.
 * Offered wherever an unverified user is held up: the send screen and the account page.
 */
export function useResendVerification() {
  return useMutation({
    mutationFn: () => api<{ ok: true }>('/api/auth/resend-verification', { method: 'POST' }),
    onSuccess: () => toast.success('Verification email sent', 'Check your inbox for a new verification link'),
    onError: (err) => toast.error('Failed to send verification email', errorMessage(err)),
  });
}
