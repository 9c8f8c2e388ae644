import { useState, type FormEvent } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { Field, Input } from '../../components/ui/input.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { useChangeEmail } from './api.ts';
import { Section } from './section.tsx';

/**
 * Change email: a confirmation link goes to the new address (and a notice to the old one); the
 * address changes when the link is opened, which signs the user out everywhere.
 */
export function ChangeEmailCard({ currentEmail }: { currentEmail: string }) {
  const [newEmail, setNewEmail] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const change = useChangeEmail();

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const address = newEmail.trim();
    if (!address) return setFormError('Please enter a new email address');
    if (address.toLowerCase() === currentEmail.toLowerCase())
      return setFormError('This is already your email address');
    setFormError(null);
    change.mutate(address, {
      onSuccess: () => {
        toast.success(
          'Verification Email Sent',
          `Open the link we sent to ${address} to confirm your new email address.`,
        );
        setNewEmail('');
      },
      onError: (err) => toast.error('Failed to change email', errorMessage(err)),
    });
  };

  return (
    <Section
      id="change-email"
      title="Change Email"
      description="We will send a confirmation link to the new address. Your email changes when you open it, and you then sign in again with the new address."
    >
      <form noValidate onSubmit={onSubmit} className="space-y-4">
        <FormAlert>{formError}</FormAlert>
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
            invalid={formError !== null}
            onChange={(e) => setNewEmail(e.target.value)}
          />
        </Field>
        <div className="flex justify-end">
          <Button type="submit" busy={change.isPending} busyLabel="Sending…">
            Change Email
          </Button>
        </div>
      </form>
    </Section>
  );
}
