import { useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { Button } from '../../components/ui/button.tsx';
import { Field, Input, fieldDescription } from '../../components/ui/input.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { usePublicConfig } from '../../lib/public-config.ts';
import { MIN_PASSWORD_LENGTH } from '../../../shared/plans.ts';
import { AltchaChallenge, type AltchaChallengeHandle } from './altcha-challenge.tsx';
import { AuthLayout, authLink } from './auth-layout.tsx';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import { isPasswordRuleMessage, passwordRuleProblem } from '../../../shared/password-rules.ts';
import { HOME_AFTER_SIGN_IN } from './navigation.ts';
import { PasswordInput } from '../../components/ui/password-input.tsx';
import { useSession } from '../../lib/session.ts';
import { useSignUp } from './session-actions.ts';
import { SocialButtons } from './social-buttons.tsx';

/**
 * /signup: social buttons, email + password, the ALTCHA challenge (Submit stays disabled until it
 * is solved), and the free allowance from the server in the footer.
 */
export function SignUpPage() {
  const session = useSession();
  const navigate = useNavigate();
  const config = usePublicConfig();
  const signUp = useSignUp();
  const captchaRef = useRef<AltchaChallengeHandle>(null);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [captchaToken, setCaptchaToken] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);

  if (session.status === 'authenticated' && signUp.isIdle)
    return <Navigate to={HOME_AFTER_SIGN_IN} replace />;

  const captcha = config.data?.captcha;
  const challengeUrl = captcha?.provider === 'altcha' ? captcha.challengeUrl : null;
  const captchaRequired = challengeUrl !== null;
  const captchaReady = captcha !== undefined && (!captchaRequired || captchaToken !== null);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!email.trim() || !password) return setFormError(AUTH_MESSAGES.fillAllFields);
    if (captchaRequired && !captchaToken) return setFormError(AUTH_MESSAGES.completeCaptcha);
    const passwordProblem = passwordRuleProblem(password);
    if (passwordProblem) return setFormError(passwordProblem);
    setFormError(null);
    signUp.mutate(
      { email: email.trim(), password, ...(captchaToken ? { captchaToken } : {}) },
      {
        onSuccess: () => {
          toast.success('Account created successfully!');
          void navigate(HOME_AFTER_SIGN_IN, { replace: true });
        },
        onError: (err) => {
          toast.error('Sign up failed', errorMessage(err));
          // A password the server refuses (a common one) is shown at the field too.
          if (err instanceof ApiError && err.code === 'weak_password') setFormError(err.message);
          // A solution is accepted once; the next attempt needs a fresh one.
          captchaRef.current?.reset();
        },
      },
    );
  };

  const passwordDesc = fieldDescription('signup-password', { hint: true });
  const freeLimit = config.data?.freeMonthlyLimit;
  return (
    <AuthLayout
      title="Create your account"
      description="Send real test emails and share them with your clients."
      footer={
        <div className="space-y-2">
          <p>
            Already have an account?{' '}
            <Link to="/signin" className={authLink}>
              Sign in
            </Link>
          </p>
          <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="free-plan-note">
            {freeLimit === undefined ? (
              <Skeleton className="h-3 w-56 align-middle" />
            ) : (
              `Free plan includes ${freeLimit} email sends per month`
            )}
          </p>
        </div>
      }
    >
      <div className="space-y-5">
        <SocialButtons />
        <form noValidate onSubmit={onSubmit} className="space-y-4">
          <FormAlert id="signup-form-error">{formError}</FormAlert>
          <Field id="signup-email" label="Email">
            <Input
              id="signup-email"
              type="email"
              name="email"
              autoComplete="email"
              inputMode="email"
              autoFocus
              placeholder="you@example.com"
              value={email}
              invalid={formError === AUTH_MESSAGES.fillAllFields && !email.trim()}
              onChange={(e) => setEmail(e.target.value)}
            />
          </Field>
          <Field id="signup-password" label="Password" hint={`At least ${MIN_PASSWORD_LENGTH} characters`}>
            <PasswordInput
              id="signup-password"
              name="password"
              autoComplete="new-password"
              value={password}
              invalid={
                (formError === AUTH_MESSAGES.fillAllFields && !password) || isPasswordRuleMessage(formError)
              }
              aria-describedby={passwordDesc.describedBy}
              onChange={(e) => setPassword(e.target.value)}
            />
          </Field>
          {challengeUrl !== null ? (
            <AltchaChallenge ref={captchaRef} challengeUrl={challengeUrl} onChange={setCaptchaToken} />
          ) : null}
          {config.isError ? (
            <FormAlert>
              Could not reach the server to prepare sign-up. Check your connection and reload the page.
            </FormAlert>
          ) : null}
          <Button
            type="submit"
            className="w-full"
            disabled={!captchaReady}
            busy={signUp.isPending}
            busyLabel="Creating account…"
            title={captchaReady ? undefined : 'Complete the security check first'}
          >
            Create Account
          </Button>
          <p className="text-center text-xs leading-5 text-slate-500 dark:text-slate-400">
            By creating an account you agree to our{' '}
            <Link to="/terms" className={authLink}>
              Terms of Service
            </Link>{' '}
            and{' '}
            <Link to="/privacy" className={authLink}>
              Privacy Policy
            </Link>
            .
          </p>
        </form>
      </div>
    </AuthLayout>
  );
}
