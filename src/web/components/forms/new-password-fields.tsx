import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import { isPasswordRuleMessage } from '../../../shared/password-rules.ts';
import { MIN_PASSWORD_LENGTH } from '../../../shared/plans.ts';
import { Field } from '../ui/input.tsx';
import { PasswordInput } from '../ui/password-input.tsx';

export interface NewPasswordFieldsProps {
  /** The element ids of the two inputs (each page has its own). */
  ids: { password: string; confirm: string };
  password: string;
  confirm: string;
  onPasswordChange: (value: string) => void;
  onConfirmChange: (value: string) => void;
  /** The form's current message: it decides which field is marked invalid. */
  formError: string | null;
  autoFocus?: boolean;
}

/**
 * "New password" and "Confirm new password", as change password (account) and reset password
 * (auth) both ask for them: the length hint, browser password-manager hints, and the field marked
 * invalid by the message the form shows (a rule of the password, the two differing, or empty).
 */
export function NewPasswordFields({
  ids,
  password,
  confirm,
  onPasswordChange,
  onConfirmChange,
  formError,
  autoFocus,
}: NewPasswordFieldsProps) {
  const empty = formError === AUTH_MESSAGES.fillAllFields;
  return (
    <>
      <Field id={ids.password} label="New password" hint={`At least ${MIN_PASSWORD_LENGTH} characters`}>
        <PasswordInput
          id={ids.password}
          name="new-password"
          autoComplete="new-password"
          autoFocus={autoFocus}
          value={password}
          aria-describedby={`${ids.password}-hint`}
          invalid={isPasswordRuleMessage(formError) || (empty && !password)}
          onChange={(e) => onPasswordChange(e.target.value)}
        />
      </Field>
      <Field id={ids.confirm} label="Confirm new password">
        <PasswordInput
          id={ids.confirm}
          name="confirm-password"
          autoComplete="new-password"
          value={confirm}
          invalid={formError === AUTH_MESSAGES.passwordsDoNotMatch || (empty && !confirm)}
          onChange={(e) => onConfirmChange(e.target.value)}
        />
      </Field>
    </>
  );
}
