import { useMutation } from '@tanstack/react-query';
import { ArrowLeft, MailCheck } from 'lucide-react';
import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { EmailAddress } from '../../components/ui/email-address.tsx';
import { Field, Input, fieldDescription } from '../../components/ui/input.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError } from '../../lib/api.ts';
import { requestPasswordReset } from './api.ts';
import { AuthLayout, ResultIcon, authLink } from './auth-layout.tsx';
import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import { asciiAddress, isPlainAddress } from '../../../shared/recipients.ts';

/**
 * /forgot-password: ask for a reset link. Afterwards the Check Your Email confirmation is shown
 * whatever the answer (docs/spec.md §4), so the page never reveals whether an account exists; only a
 * network failure also says the request did not go out.
 */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [emailError, setEmailError] = useState<string | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const request = useMutation({
    mutationFn: requestPasswordReset,
    onSettled: (_data, err, address) => {
      if (err && !(err instanceof ApiError && err.status > 0)) {
        toast.error('Failed to send reset email. Please try again.');
      }
      setSentTo(address);
    },
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const address = email.trim();
    const problem = !address
      ? AUTH_MESSAGES.missingEmail
      : isPlainAddress(asciiAddress(address))
        ? null
        : AUTH_MESSAGES.invalidEmail;
    setEmailError(problem);
    if (problem) return emailRef.current?.focus();
    request.mutate(address);
  };
  const emailDesc = fieldDescription('forgot-email', { error: emailError });

  if (sentTo !== null) {
    return (
      <AuthLayout
        title="Check Your Email"
        icon={
          <ResultIcon tone="info">
            <MailCheck aria-hidden="true" />
          </ResultIcon>
        }
        description={
          <>
            If an account exists for{' '}
            <strong className="font-medium text-slate-900 dark:text-white">
              <EmailAddress address={sentTo} />
            </strong>
            , we have sent a link to reset your password. It expires in 30 minutes.
          </>
        }
      >
        <div className="grid gap-3">
          <Link to="/signin" className={buttonClasses({ className: 'w-full' })}>
            Back to Sign In
          </Link>
          <Button
            variant="ghost"
            className="w-full"
            onClick={() => {
              request.reset();
              setSentTo(null);
            }}
          >
            Didn&apos;t Get It? Try Again
          </Button>
        </div>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title="Forgot Your Password?"
      description="Enter the email address of your account and we will send you a link to choose a new password."
      footer={
        <Link to="/signin" className={`${authLink} inline-flex items-center gap-1.5`}>
          <ArrowLeft aria-hidden="true" className="size-4" />
          Back to Sign In
        </Link>
      }
    >
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <Field id="forgot-email" label="Email" error={emailError}>
          <Input
            ref={emailRef}
            id="forgot-email"
            type="email"
            name="email"
            autoComplete="email"
            inputMode="email"
            autoFocus
            placeholder="you@example.com"
            value={email}
            invalid={emailError !== null}
            aria-describedby={emailDesc.describedBy}
            onChange={(e) => {
              setEmail(e.target.value);
              setEmailError(null);
            }}
          />
        </Field>
        <Button type="submit" className="w-full" busy={request.isPending} busyLabel="Sending…">
          Send Reset Link
        </Button>
      </form>
    </AuthLayout>
  );
}
