import { useMutation } from '@tanstack/react-query';
import { ArrowLeft, MailCheck } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { Field, Input } from '../../components/ui/input.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError } from '../../lib/api.ts';
import { requestPasswordReset } from './api.ts';
import { AuthLayout, ResultIcon, authLink } from './auth-layout.tsx';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';

/**
 * /forgot-password: ask for a reset link. Afterwards the Check Your Email confirmation is shown
 * whatever the answer (docs/spec.md §4), so the page never reveals whether an account exists; only a
 * network failure also says the request did not go out.
 */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
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
    if (!email.trim()) return setFormError(AUTH_MESSAGES.fillAllFields);
    setFormError(null);
    request.mutate(email.trim());
  };

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
            <strong className="font-medium break-all text-slate-900 dark:text-white">{sentTo}</strong>, we
            have sent a link to reset your password. It expires in 30 minutes.
          </>
        }
      >
        <div className="grid gap-3">
          <Link to="/signin" className={buttonClasses({ className: 'w-full' })}>
            Back to sign in
          </Link>
          <Button
            variant="ghost"
            className="w-full"
            onClick={() => {
              request.reset();
              setSentTo(null);
            }}
          >
            Didn&apos;t get it? Try again
          </Button>
        </div>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title="Forgot your password?"
      description="Enter the email address of your account and we will send you a link to choose a new password."
      footer={
        <Link to="/signin" className={`${authLink} inline-flex items-center gap-1.5`}>
          <ArrowLeft aria-hidden="true" className="size-4" />
          Back to sign in
        </Link>
      }
    >
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <FormAlert>{formError}</FormAlert>
        <Field id="forgot-email" label="Email">
          <Input
            id="forgot-email"
            type="email"
            name="email"
            autoComplete="email"
            inputMode="email"
            autoFocus
            placeholder="you@example.com"
            value={email}
            invalid={formError !== null}
            onChange={(e) => setEmail(e.target.value)}
          />
        </Field>
        <Button type="submit" className="w-full" busy={request.isPending} busyLabel="Sending…">
          Send Reset Link
        </Button>
      </form>
    </AuthLayout>
  );
}
