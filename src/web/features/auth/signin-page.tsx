import { useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { Button } from '../../components/ui/button.tsx';
import { Field, Input } from '../../components/ui/input.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { AuthLayout, authLink } from './auth-layout.tsx';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import { noticeOf, returnTarget } from './navigation.ts';
import { PasswordInput } from '../../components/ui/password-input.tsx';
import { useSession } from '../../lib/session.ts';
import { useSignIn } from './session-actions.ts';
import { SocialButtons } from './social-buttons.tsx';
import { SocialErrorAlert } from './social-error-alert.tsx';

/** /signin: social buttons, email + password (show/hide), Forgot password, link to sign up. */
export function SignInPage() {
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const signIn = useSignIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [formError, setFormError] = useState<string | null>(null);

  const notice = noticeOf(location);

  // Already signed in (and not in the middle of signing in here): straight to the app.
  if (session.status === 'authenticated' && signIn.isIdle) {
    return <Navigate to={returnTarget(location)} replace />;
  }

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!email.trim() || !password) {
      setFormError(AUTH_MESSAGES.fillAllFields);
      return;
    }
    setFormError(null);
    signIn.mutate(
      { email: email.trim(), password },
      {
        onSuccess: () => {
          toast.success('Welcome back!');
          void navigate(returnTarget(location), { replace: true });
        },
        onError: (err) => toast.error('Sign in failed', errorMessage(err)),
      },
    );
  };

  return (
    <AuthLayout
      title="Welcome Back"
      description="Sign in to send and share your test emails."
      footer={
        <>
          Don&apos;t have an account?{' '}
          <Link to="/signup" className={authLink}>
            Sign up
          </Link>
        </>
      }
    >
      <div className="space-y-5">
        <SocialErrorAlert />
        {notice ? <FormAlert tone="info">{notice}</FormAlert> : null}
        <SocialButtons />
        <form noValidate onSubmit={onSubmit} className="space-y-4">
          <FormAlert id="signin-form-error">{formError}</FormAlert>
          <Field id="signin-email" label="Email">
            <Input
              id="signin-email"
              type="email"
              name="email"
              autoComplete="email"
              inputMode="email"
              autoFocus
              placeholder="you@example.com"
              value={email}
              invalid={formError !== null && !email.trim()}
              onChange={(e) => setEmail(e.target.value)}
            />
          </Field>
          <Field id="signin-password" label="Password">
            <PasswordInput
              id="signin-password"
              name="password"
              autoComplete="current-password"
              value={password}
              invalid={formError !== null && !password}
              onChange={(e) => setPassword(e.target.value)}
            />
            {/* After the field, not on its label's line: Tab goes from Email straight to Password. */}
            <p className="text-right">
              <Link to="/forgot-password" className={`${authLink} text-sm`}>
                Forgot password?
              </Link>
            </p>
          </Field>
          <Button type="submit" className="w-full" busy={signIn.isPending} busyLabel="Signing in…">
            Sign In
          </Button>
        </form>
      </div>
    </AuthLayout>
  );
}
