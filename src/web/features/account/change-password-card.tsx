import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/ui/button.tsx';
import { Field } from '../../components/ui/input.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import { passwordRuleProblem } from '../../../shared/password-rules.ts';
import { PasswordInput } from '../../components/ui/password-input.tsx';
import { NewPasswordFields } from '../../components/forms/new-password-fields.tsx';
import { useChangePassword } from './api.ts';
import { Section } from './section.tsx';

/** Change password (docs/spec.md §5): current, new (8+), confirmation; other sessions end. */
export function ChangePasswordCard({ hasPassword }: { hasPassword: boolean }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const change = useChangePassword();

  if (!hasPassword) {
    return (
      <Section id="change-password" title="Change Password">
        <p className="text-sm text-slate-600 dark:text-slate-400">
          You sign in with Google or GitHub, so your account has no password yet. To add one, use{' '}
          <Link
            to="/forgot-password"
            className="font-medium text-brand-600 hover:underline dark:text-brand-400"
          >
            Forgot password
          </Link>{' '}
          with your email address.
        </p>
      </Section>
    );
  }

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!current || !next || !confirm) return setFormError(AUTH_MESSAGES.fillAllFields);
    const passwordProblem = passwordRuleProblem(next);
    if (passwordProblem) return setFormError(passwordProblem);
    if (next !== confirm) return setFormError(AUTH_MESSAGES.passwordsDoNotMatch);
    setFormError(null);
    change.mutate(
      { currentPassword: current, newPassword: next },
      {
        onSuccess: () => {
          toast.success(
            'Password Changed',
            'Your password was updated and your other sessions were signed out.',
          );
          setCurrent('');
          setNext('');
          setConfirm('');
        },
        onError: (err) => {
          toast.error('Failed to change password', errorMessage(err));
          if (err instanceof ApiError && err.code === 'weak_password') setFormError(err.message);
        },
      },
    );
  };

  return (
    <Section
      id="change-password"
      title="Change Password"
      description="Signing in elsewhere ends when you change it."
    >
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <FormAlert>{formError}</FormAlert>
        <Field id="current-password" label="Current password">
          <PasswordInput
            id="current-password"
            name="current-password"
            autoComplete="current-password"
            value={current}
            invalid={formError === AUTH_MESSAGES.fillAllFields && !current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <NewPasswordFields
            ids={{ password: 'new-password', confirm: 'confirm-password' }}
            password={next}
            confirm={confirm}
            onPasswordChange={setNext}
            onConfirmChange={setConfirm}
            formError={formError}
          />
        </div>
        <div className="flex justify-end">
          <Button type="submit" busy={change.isPending} busyLabel="Changing…">
            Change Password
          </Button>
        </div>
      </form>
    </Section>
  );
}
