import { useMutation, useQueryClient } from '@tanstack/react-query';
import { CircleCheck, Link2Off, ShieldAlert } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { CancelEmailChangeResponse } from '../../../shared/contract/auth.ts';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { cancelEmailChange } from './api.ts';
import { AuthLayout, ResultIcon } from './auth-layout.tsx';
import { clearSession } from './session-actions.ts';

/**
 * /cancel-email-change?token=: the "This wasn't me" link of the notice mailed to the old address
 * when an email change is asked for (docs/decisions/0033-email-change-needs-password.md). It
 * cancels the change, or puts the old address back if the change was confirmed, and signs out
 * every device. The page asks for one click rather than acting on load: mail scanners open links
 * and some run their scripts, and they must not cancel a change the owner wanted.
 */
export function CancelEmailChangePage() {
  const [params] = useSearchParams();
  const [token] = useState(() => params.get('token'));
  const queryClient = useQueryClient();
  const [deadLink, setDeadLink] = useState<string | null>(null);
  useEffect(() => {
    // Out of the address bar and history at once, like the reset and sign-in links.
    if (new URLSearchParams(window.location.search).has('token')) {
      window.history.replaceState(window.history.state, '', window.location.pathname);
    }
  }, []);

  const cancel = useMutation({
    mutationFn: () => cancelEmailChange(token ?? ''),
    onSuccess: () => clearSession(queryClient), // every session ended, this browser's too
    onError: (err) => {
      if (err instanceof ApiError && err.code === 'invalid_token') setDeadLink(err.message);
      else toast.error('Could not cancel the change', errorMessage(err));
    },
  });

  if (!token || deadLink !== null) {
    return (
      <AuthLayout
        title="Invalid or Expired Link"
        icon={
          <ResultIcon tone="error">
            <Link2Off aria-hidden="true" />
          </ResultIcon>
        }
        description={`${(deadLink ?? 'This link is incomplete').replace(/\.$/, '')}. It works once, for 7 days. If someone else may be using your account, reset your password.`}
      >
        <div className="grid gap-3">
          <Link to="/forgot-password" className={buttonClasses({ className: 'w-full' })}>
            Reset Password
          </Link>
          <Link to="/signin" className={buttonClasses({ variant: 'outline', className: 'w-full' })}>
            Back to Sign In
          </Link>
        </div>
      </AuthLayout>
    );
  }

  if (cancel.data) return <Cancelled result={cancel.data} />;

  return (
    <AuthLayout
      title="Not You? Cancel the Email Change"
      icon={
        <ResultIcon tone="error">
          <ShieldAlert aria-hidden="true" />
        </ResultIcon>
      }
      description="Someone asked to change the email address of your Proofmail account. Cancelling stops the change, or puts this address back if it already went through. It also signs out every device, including anyone else using your account, and revokes your API keys."
    >
      <div className="grid gap-3">
        <Button
          className="h-auto! min-h-10 w-full py-2 whitespace-normal!"
          variant="destructive"
          busy={cancel.isPending}
          busyLabel="Cancelling…"
          onClick={() => cancel.mutate()}
        >
          Cancel the Change and Sign Out Everywhere
        </Button>
        <Link to="/" className={buttonClasses({ variant: 'outline', className: 'w-full' })}>
          It Was Me: Keep the Change
        </Link>
      </div>
    </AuthLayout>
  );
}

function Cancelled({ result }: { result: CancelEmailChangeResponse }) {
  const what = result.restored
    ? `Your account's email address is ${result.email} again, and every device was signed out.`
    : 'The email change was cancelled and every device was signed out.';
  const next = result.passwordRemoved
    ? 'The password set since the change was removed: choose a new one with “Forgot password”.'
    : 'If someone else may know your password, reset it now.';
  return (
    <AuthLayout
      title="Email Change Cancelled"
      icon={
        <ResultIcon tone="success">
          <CircleCheck aria-hidden="true" />
        </ResultIcon>
      }
      description={
        <>
          <span className="block">{what}</span>
          <span className="mt-1 block">{next}</span>
        </>
      }
    >
      <div className="grid gap-3">
        <Link to="/forgot-password" className={buttonClasses({ className: 'w-full' })}>
          Reset Password
        </Link>
        <Link to="/signin" className={buttonClasses({ variant: 'outline', className: 'w-full' })}>
          Sign In
        </Link>
      </div>
    </AuthLayout>
  );
}
