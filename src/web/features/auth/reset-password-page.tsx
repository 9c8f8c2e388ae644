import { useMutation, useQueryClient } from '@tanstack/react-query';
import { KeyRound, Link2Off } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { resetPassword } from './api.ts';
import { AuthLayout, ResultIcon, authLink } from './auth-layout.tsx';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import { passwordRuleProblem } from '../../../shared/password-rules.ts';
import type { AuthLocationState } from './navigation.ts';
import { NewPasswordFields } from '../../components/forms/new-password-fields.tsx';
import { clearSession } from './session-actions.ts';

/** The server refused the link itself (unknown, used, expired or malformed token). */
function isDeadLink(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  return err.code === 'invalid_token' || (err.code === 'invalid_request' && err.message.startsWith('token'));
}

/**
 * /reset-password?token=: choose a new password (the rule of src/shared/password-rules.ts, typed
 * twice). A missing or dead token shows the Invalid Reset Link page with a way to request a new
 * link. The token leaves the address bar as soon as the page has read it, like the social sign-in
 * ticket: it stays out of history, bookmarks, screenshots and anything that reads the URL later.
 */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const [token] = useState(() => params.get('token'));
  useEffect(() => {
    if (new URLSearchParams(window.location.search).has('token')) {
      window.history.replaceState(window.history.state, '', window.location.pathname);
    }
  }, []);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [deadLink, setDeadLink] = useState(false);

  const reset = useMutation({
    mutationFn: (newPassword: string) => resetPassword(token ?? '', newPassword),
    onSuccess: async () => {
      // A reset ends every session, this browser's included.
      clearSession(queryClient);
      toast.success('Password reset successfully.');
      const state: AuthLocationState = {
        notice: 'Your password has been changed. Sign in with your new password.',
      };
      await navigate('/signin', { replace: true, state });
    },
    onError: (err) => {
      if (isDeadLink(err)) return setDeadLink(true);
      toast.error('Failed to reset password', errorMessage(err));
      if (err instanceof ApiError && err.code === 'weak_password') setFormError(err.message);
    },
  });

  if (!token || deadLink) {
    // The Invalid Reset Link page (docs/spec.md §2) says it once: the spec's message (§5) as the
    // heading, then why and what next.
    return (
      <AuthLayout
        title={AUTH_MESSAGES.invalidResetLink}
        icon={
          <ResultIcon tone="error">
            <Link2Off aria-hidden="true" />
          </ResultIcon>
        }
        description={
          token
            ? 'This link has expired or has already been used. Reset links work once and expire after 30 minutes.'
            : 'This link is missing its reset code. Open the link from the email exactly as it was sent, or request a new one.'
        }
      >
        <div className="grid gap-3">
          <Link to="/forgot-password" className={buttonClasses({ className: 'w-full' })}>
            Request a New Link
          </Link>
          <Link to="/signin" className={buttonClasses({ variant: 'outline', className: 'w-full' })}>
            Back to Sign In
          </Link>
        </div>
      </AuthLayout>
    );
  }

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!password || !confirm) return setFormError(AUTH_MESSAGES.fillAllFields);
    const passwordProblem = passwordRuleProblem(password);
    if (passwordProblem) return setFormError(passwordProblem);
    if (password !== confirm) return setFormError(AUTH_MESSAGES.passwordsDoNotMatch);
    setFormError(null);
    reset.mutate(password);
  };

  return (
    <AuthLayout
      title="Choose a New Password"
      icon={
        <ResultIcon tone="info">
          <KeyRound aria-hidden="true" />
        </ResultIcon>
      }
      description="After the change you will be signed out everywhere and your API keys will be revoked; sign in again with the new password."
      footer={
        <Link to="/signin" className={authLink}>
          Back to Sign In
        </Link>
      }
    >
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <FormAlert>{formError}</FormAlert>
        <NewPasswordFields
          ids={{ password: 'reset-password', confirm: 'reset-confirm' }}
          password={password}
          confirm={confirm}
          onPasswordChange={setPassword}
          onConfirmChange={setConfirm}
          formError={formError}
          autoFocus
        />
        <Button type="submit" className="w-full" busy={reset.isPending} busyLabel="Saving…">
          Reset Password
        </Button>
      </form>
    </AuthLayout>
  );
}
