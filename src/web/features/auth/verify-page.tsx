import { useQueryClient } from '@tanstack/react-query';
import { CircleCheck, CircleX, MailCheck } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { EmailAddress } from '../../components/ui/email-address.tsx';
import { Spinner } from '../../components/ui/spinner.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage, getToken } from '../../lib/api.ts';
import { useResendVerification } from '../../lib/resend-verification.ts';
import { announceVerified, meQuery, useSession } from '../../lib/session.ts';
import { verifyEmail } from './api.ts';
import { AuthLayout, ResultIcon } from './auth-layout.tsx';
import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import type { AuthLocationState } from './navigation.ts';
import { ME_KEY } from '../../lib/query-keys.ts';
import { clearSession } from './session-actions.ts';

type Outcome =
  | { phase: 'loading' }
  | { phase: 'success' }
  /** The link is dead, but the signed-in user's address is verified (an earlier click did it). */
  | { phase: 'already'; email: string }
  /** The server refused the link (unknown, used or expired token). */
  | { phase: 'invalid' }
  /** The server refused for another reason (address taken meanwhile, too many attempts). */
  | { phase: 'refused'; message: string }
  /** The server could not be reached or failed; the link may still be good. */
  | { phase: 'failed' };

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
 * /verify?token=: loading, then success or error (docs/spec.md §4). A changed email signs the user out
 * and sends them to sign in with the new address; otherwise the user is refreshed (in every tab)
 * and offered Start Sending Emails. A dead link says so once, on the page; for a signed-in user
 * whose address is verified already it says that instead.
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
        announceVerified();
        setOutcome({ phase: 'success' });
      },
      async (err: unknown) => {
        if (!active) return;
        if (err instanceof ApiError && err.status === 400) {
          // Unknown, used, expired or malformed token. Signed in and verified: nothing to do.
          const me = getToken()
            ? await queryClient.fetchQuery({ ...meQuery(), staleTime: 0 }).catch(() => null)
            : null;
          if (!active) return;
          setOutcome(me?.verified ? { phase: 'already', email: me.email } : { phase: 'invalid' });
        } else if (err instanceof ApiError && err.status > 400 && err.status < 500) {
          // e.g. the new address was taken meanwhile, or too many attempts.
          toast.error('Verification failed.');
          setOutcome({ phase: 'refused', message: errorMessage(err) });
        } else {
          toast.error('Failed to verify email. Please try again.');
          setOutcome({ phase: 'failed' });
        }
      },
    );
    return () => {
      active = false;
    };
  }, [token, attempt, navigate, queryClient]);

  if (!token || outcome.phase === 'invalid') {
    return (
      <InvalidLink
        reason={
          token
            ? 'This link has expired or has already been used. Verification links work once and expire after 24 hours.'
            : 'This link is missing its verification code. Open the link from the email exactly as it was sent.'
        }
      />
    );
  }

  if (outcome.phase === 'refused' || outcome.phase === 'failed') {
    return (
      <AuthLayout
        title="We Could Not Verify Your Email"
        icon={
          <ResultIcon tone="error">
            <CircleX aria-hidden="true" />
          </ResultIcon>
        }
        description={
          outcome.phase === 'refused'
            ? outcome.message
            : 'Proofmail could not be reached. Check your connection, then try again.'
        }
      >
        <Button
          className="w-full"
          onClick={() => {
            setOutcome({ phase: 'loading' });
            setAttempt((n) => n + 1);
          }}
        >
          Try Again
        </Button>
      </AuthLayout>
    );
  }

  if (outcome.phase === 'success' || outcome.phase === 'already') {
    return (
      <AuthLayout
        title={outcome.phase === 'success' ? 'Email Verified!' : 'Email Already Verified'}
        icon={
          <ResultIcon tone="success">
            <CircleCheck aria-hidden="true" />
          </ResultIcon>
        }
        description={
          outcome.phase === 'success' ? (
            'Your email address is confirmed. You can now send test emails.'
          ) : (
            <>
              <EmailAddress address={outcome.email} className="font-medium text-slate-900 dark:text-white" />{' '}
              is verified, so there is nothing more to do here. You can send test emails.
            </>
          )
        }
      >
        <Link to="/app/send" className={buttonClasses({ className: 'w-full' })}>
          Start Sending Emails
        </Link>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title="Verifying Your Email"
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

/**
 * Invalid verification link (docs/spec.md §5), said once: the heading is the spec's text, the
 * body says why and what to do. A signed-in, unverified user can get a new link right here.
 */
function InvalidLink({ reason }: { reason: string }) {
  const session = useSession();
  const resend = useResendVerification();
  const canResend = session.status === 'authenticated' && !session.user.verified;
  return (
    <AuthLayout
      title={AUTH_MESSAGES.invalidVerificationLink}
      icon={
        <ResultIcon tone="error">
          <CircleX aria-hidden="true" />
        </ResultIcon>
      }
      description={
        canResend
          ? `${reason} Send yourself a new one.`
          : session.status === 'authenticated'
            ? reason
            : `${reason} Sign in to get a new one.`
      }
    >
      <div className="grid gap-3">
        {canResend ? (
          <Button className="w-full" busy={resend.isPending} onClick={() => resend.mutate()}>
            Send a New Link
          </Button>
        ) : session.status === 'authenticated' ? (
          <Link to="/app/send" className={buttonClasses({ className: 'w-full' })}>
            Start Sending Emails
          </Link>
        ) : (
          <Link to="/signin" className={buttonClasses({ className: 'w-full' })}>
            Sign In
          </Link>
        )}
      </div>
    </AuthLayout>
  );
}
