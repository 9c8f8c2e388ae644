import { useMutation } from '@tanstack/react-query';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { resendVerification } from './api.ts';

/** Sends a new verification link, with the spec's toasts (§8). */
export function useResendVerification() {
  return useMutation({
    mutationFn: resendVerification,
    onSuccess: () => toast.success('Verification email sent', 'Check your inbox for a new verification link'),
    onError: (err) => toast.error('Failed to send verification email', errorMessage(err)),
  });
}
