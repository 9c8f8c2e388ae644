import { useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { Button } from '../../components/ui/button.tsx';
import { Field, Input, fieldDescription } from '../../components/ui/input.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { usePublicConfig } from '../../lib/public-config.ts';
import { MIN_PASSWORD_LENGTH } from '../../../shared/plans.ts';
import { asciiAddress, isPlainAddress } from '../../../shared/recipients.ts';
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
import { SocialErrorAlert } from './social-error-alert.tsx';

/**
 * After a failed sign-up, whether the solved challenge is gone: the server refused it, redeemed it
 * (it checks an existing address after the challenge, so a taken address spends it), or may have
 * (a 5xx). Refused input and rate limits are answered before the challenge is looked at, and a
 * request that never reached the server changed nothing: then the solution is kept, and the
 * widget itself drops it when it expires.
 */
export function challengeSpent(err: unknown): boolean {
  if (!(err instanceof ApiError) || err.status === 0) return false;
  if (err.status >= 500) return true;
  return err.code === 'captcha_required' || err.code === 'email_taken';
}

/**
 * /signup: social buttons, email + password, the ALTCHA challenge, and the free allowance from the
 * server in the footer. Submit looks and reads as disabled until the challenge is solved
 * (docs/spec.md §2) but is aria-disabled, not disabled, so Enter or a password manager submitting
 * early gets "Please complete the CAPTCHA" instead of nothing.
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
  const [emailError, setEmailError] = useState<string | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);

  if (session.status === 'authenticated' && signUp.isIdle)
    return <Navigate to={HOME_AFTER_SIGN_IN} replace />;

  const captcha = config.data?.captcha;
  const challengeUrl = captcha?.provider === 'altcha' ? captcha.challengeUrl : null;
  const captchaRequired = challengeUrl !== null;
  const captchaReady = captcha !== undefined && (!captchaRequired || captchaToken !== null);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (signUp.isPending) return;
    setEmailError(null);
    if (!email.trim() || !password) return setFormError(AUTH_MESSAGES.fillAllFields);
    if (!isPlainAddress(asciiAddress(email.trim()))) {
      setFormError(null);
      setEmailError(AUTH_MESSAGES.invalidEmail);
      emailRef.current?.focus();
      return;
    }
    if (!captchaReady) {
      captchaRef.current?.start(); // a password manager may submit before anything was focused
      return setFormError(AUTH_MESSAGES.completeCaptcha);
    }
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
          if (err instanceof ApiError && err.code === 'invalid_email') {
            setEmailError(errorMessage(err));
            emailRef.current?.focus();
          } else if (err instanceof ApiError && err.code === 'captcha_required') {
            setFormError(AUTH_MESSAGES.completeCaptcha);
          } else if (err instanceof ApiError && err.code === 'weak_password') {
            setFormError(err.message); // a password the server refuses (a common one), at the form too
          }
          // A solution is accepted once: only a spent one is replaced by a fresh challenge.
          if (challengeSpent(err)) captchaRef.current?.reset();
        },
      },
    );
  };

  const onCaptcha = (token: string | null) => {
    setCaptchaToken(token);
    if (token) setFormError((shown) => (shown === AUTH_MESSAGES.completeCaptcha ? null : shown));
  };

  const emailDesc = fieldDescription('signup-email', { error: emailError });
  const passwordDesc = fieldDescription('signup-password', { hint: true });
  const freeLimit = config.data?.freeMonthlyLimit;
  return (
    <AuthLayout
      title="Create Your Account"
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
        <SocialErrorAlert />
        <SocialButtons />
        <form noValidate onSubmit={onSubmit} className="space-y-4">
          <FormAlert id="signup-form-error">{formError}</FormAlert>
          <Field id="signup-email" label="Email" error={emailError}>
            <Input
              ref={emailRef}
              id="signup-email"
              type="email"
              name="email"
              autoComplete="email"
              inputMode="email"
              autoFocus
              placeholder="you@example.com"
              value={email}
              invalid={emailError !== null || (formError === AUTH_MESSAGES.fillAllFields && !email.trim())}
              aria-describedby={emailDesc.describedBy}
              onChange={(e) => {
                setEmail(e.target.value);
                setEmailError(null);
              }}
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
            <AltchaChallenge ref={captchaRef} challengeUrl={challengeUrl} onChange={onCaptcha} />
          ) : null}
          {config.isError ? (
            <FormAlert>
              Could not reach the server to prepare sign-up. Check your connection and reload the page.
            </FormAlert>
          ) : null}
          <Button
            type="submit"
            className="w-full"
            aria-disabled={!captchaReady || undefined}
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
