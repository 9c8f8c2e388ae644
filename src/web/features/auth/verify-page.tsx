import { useQueryClient } from '@tanstack/react-query';
import { CircleCheck, CircleX, MailCheck } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { Spinner } from '../../components/ui/spinner.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { verifyEmail } from './api.ts';
import { AuthLayout, ResultIcon } from './auth-layout.tsx';
import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import type { AuthLocationState } from './navigation.ts';
import { ME_KEY } from '../../lib/query-keys.ts';
import { clearSession } from './session-actions.ts';

type Outcome =
  | { phase: 'loading' }
  | { phase: 'success' }
  /** The server refused the link (unknown, used or expired token). */
  | { phase: 'invalid'; message: string }
  /** The server could not be reached or failed; the link may still be good. */
  | { phase: 'failed'; message: string };

// A token is single-use: one request per token per page load, whatever React re-runs.
const attempts = new Map<string, Promise<{ emailChanged: boolean }>>();
function verifyOnce(token: string) {
  let p = attempts.get(token);
  if (!p) {
    p = verifyEmail(token);
    attempts.set(token, p);
    p.catch(() => attempts.delete(token)); // a retry after a failure asks again
  }
  return p;
}

/**
 * /verify?token=: loading, then success or error (docs/spec.md §4). A changed email signs the user out and
 * sends them to sign in with the new address; otherwise the user is refreshed and offered Start
 * Sending Emails.
 */
export function VerifyPage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [outcome, setOutcome] = useState<Outcome>({ phase: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!token) return;
    let active = true;
    verifyOnce(token).then(
      async ({ emailChanged }) => {
        if (!active) return;
        if (emailChanged) {
          // The address changed and the server ended every session: forget ours, sign in again.
          clearSession(queryClient);
          const state: AuthLocationState = {
            notice: 'Your email address has been changed. Sign in with your new email address.',
          };
          await navigate('/signin', { replace: true, state });
          return;
        }
        await queryClient.invalidateQueries({ queryKey: ME_KEY });
        setOutcome({ phase: 'success' });
      },
      (err: unknown) => {
        if (!active) return;
        if (err instanceof ApiError && err.status === 400) {
          // Unknown, used, expired or malformed token.
          toast.error('Verification failed.', errorMessage(err));
          setOutcome({ phase: 'invalid', message: errorMessage(err) });
        } else if (err instanceof ApiError && err.status > 400 && err.status < 500) {
          // e.g. the new address was taken meanwhile, or too many attempts.
          toast.error('Verification failed.', errorMessage(err));
          setOutcome({ phase: 'failed', message: errorMessage(err) });
        } else {
          toast.error('Failed to verify email. Please try again.');
          setOutcome({ phase: 'failed', message: 'Failed to verify email. Please try again.' });
        }
      },
    );
    return () => {
      active = false;
    };
  }, [token, attempt, navigate, queryClient]);

  if (!token) {
    return (
      <InvalidLink message="This link is missing its verification code. Open the link from the email exactly as it was sent, or request a new one." />
    );
  }
  if (outcome.phase === 'invalid') return <InvalidLink message={outcome.message} />;

  if (outcome.phase === 'failed') {
    return (
      <AuthLayout
        title="Verification failed."
        icon={
          <ResultIcon tone="error">
            <CircleX aria-hidden="true" />
          </ResultIcon>
        }
        description={outcome.message}
      >
        <Button
          className="w-full"
          onClick={() => {
            setOutcome({ phase: 'loading' });
            setAttempt((n) => n + 1);
          }}
        >
          Try again
        </Button>
      </AuthLayout>
    );
  }

  if (outcome.phase === 'success') {
    return (
      <AuthLayout
        title="Email verified!"
        icon={
          <ResultIcon tone="success">
            <CircleCheck aria-hidden="true" />
          </ResultIcon>
        }
        description="Your email address is confirmed. You can now send test emails."
      >
        <Link to="/app/send" className={buttonClasses({ className: 'w-full' })}>
          Start Sending Emails
        </Link>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title="Verifying your email"
      icon={
        <ResultIcon tone="info">
          <MailCheck aria-hidden="true" />
        </ResultIcon>
      }
      description="This takes just a moment."
    >
      <div className="flex justify-center py-2 text-brand-600 dark:text-brand-400">
        <Spinner className="size-6" label="Verifying your email" />
      </div>
    </AuthLayout>
  );
}

function InvalidLink({ message }: { message: string }) {
  return (
    <AuthLayout
      title={AUTH_MESSAGES.invalidVerificationLink}
      icon={
        <ResultIcon tone="error">
          <CircleX aria-hidden="true" />
        </ResultIcon>
      }
      description={message}
    >
      <div className="grid gap-3">
        <Link to="/app/account" className={buttonClasses({ className: 'w-full' })}>
          Request a new link
        </Link>
        <Link to="/signin" className={buttonClasses({ variant: 'outline', className: 'w-full' })}>
          Back to sign in
        </Link>
      </div>
    </AuthLayout>
  );
}
