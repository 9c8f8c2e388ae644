import { useState, type FormEvent } from 'react';
import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import { Button } from '../../components/ui/button.tsx';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { Field, Input } from '../../components/ui/input.tsx';
import { PasswordInput } from '../../components/ui/password-input.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { useChangeEmail } from './api.ts';
import { Section } from './section.tsx';

const MISSING_NEW_EMAIL = 'Please enter a new email address';
const SAME_EMAIL = 'This is already your email address';

/**
 * Change email: the current password proves it is the owner asking (an account without one needs
 * a recent sign-in; the server says so and the card offers to sign in again). A confirmation link
 * goes to the new address and a notice to the old one; the address changes when the link is
 * opened, which signs the user out everywhere (docs/decisions/0033-email-change-needs-password.md).
 */
export function ChangeEmailCard({
  currentEmail,
  hasPassword,
  onSignInAgain,
}: {
  currentEmail: string;
  hasPassword: boolean;
  /** Ends this session and goes to sign-in (the server asked for a fresh sign-in). */
  onSignInAgain: () => void;
}) {
  const [newEmail, setNewEmail] = useState('');
  const [password, setPassword] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [reauth, setReauth] = useState<string | null>(null);
  const change = useChangeEmail();

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const address = newEmail.trim();
    if (!address) return setFormError(MISSING_NEW_EMAIL);
    if (address.toLowerCase() === currentEmail.toLowerCase()) return setFormError(SAME_EMAIL);
    if (hasPassword && !password) return setFormError(AUTH_MESSAGES.currentPasswordRequired);
    setFormError(null);
    setReauth(null);
    change.mutate(
      { newEmail: address, ...(hasPassword ? { currentPassword: password } : {}) },
      {
        onSuccess: () => {
          toast.success(
            'Verification Email Sent',
            `Open the link we sent to ${address} to confirm your new email address.`,
          );
          setNewEmail('');
          setPassword('');
        },
        onError: (err) => {
          if (err instanceof ApiError && err.code === 'reauth_required') return setReauth(err.message);
          toast.error('Failed to change email', errorMessage(err));
          if (err instanceof ApiError && (err.code === 'wrong_password' || err.code === 'password_required'))
            setFormError(err.message);
        },
      },
    );
  };

  const passwordError =
    formError === AUTH_MESSAGES.currentPasswordRequired ||
    formError === AUTH_MESSAGES.currentPasswordIncorrect;
  return (
    <Section
      id="change-email"
      title="Change Email"
      description="We will send a confirmation link to the new address and a notice to this one. Your email changes when you open the link, and you then sign in again with the new address."
    >
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <FormAlert>{formError}</FormAlert>
        {reauth ? (
          <FormAlert tone="warning">
            <p>{reauth}</p>
            <Button type="button" variant="outline" size="sm" className="mt-2" onClick={onSignInAgain}>
              Sign in again
            </Button>
          </FormAlert>
        ) : null}
        <Field id="current-email" label="Current email">
          <Input id="current-email" type="email" value={currentEmail} readOnly />
        </Field>
        <Field id="new-email" label="New email">
          <Input
            id="new-email"
            type="email"
            name="new-email"
            autoComplete="email"
            inputMode="email"
            placeholder="new@example.com"
            value={newEmail}
            invalid={formError === MISSING_NEW_EMAIL || formError === SAME_EMAIL}
            onChange={(e) => setNewEmail(e.target.value)}
          />
        </Field>
        {hasPassword ? (
          <Field id="change-email-password" label="Current password">
            <PasswordInput
              id="change-email-password"
              name="current-password"
              autoComplete="current-password"
              value={password}
              invalid={passwordError}
              onChange={(e) => setPassword(e.target.value)}
            />
          </Field>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            You sign in with Google or GitHub, so instead of a password we ask for a sign-in from the last 10
            minutes.
          </p>
        )}
        <div className="flex justify-end">
          <Button type="submit" busy={change.isPending} busyLabel="Sending…">
            Change Email
          </Button>
        </div>
      </form>
    </Section>
  );
}
