import { AUTH_MESSAGES } from './contract/auth.ts';
import { MIN_PASSWORD_LENGTH } from './plans.ts';

/**
 * The password rule every form and the server apply to a new password (sign-up, reset, change),
 * after NIST SP 800-63B §5.1.1.2 (docs/decisions/0035-password-rule.md): at least
 * MIN_PASSWORD_LENGTH characters, counted as the person typed them (never trimmed), not only
 * whitespace, and no composition rules. The server also refuses the most common passwords
 * (src/server/accounts/account-rules.ts), a list too large to ship to the browser.
 *
 * Returns the message to show, or undefined when the password passes.
 */
export function passwordRuleProblem(password: string): string | undefined {
  if ([...password].length < MIN_PASSWORD_LENGTH) return AUTH_MESSAGES.passwordTooShort;
  if (password.trim() === '') return AUTH_MESSAGES.passwordOnlySpaces;
  return undefined;
}

/** Whether a message is one of the password rule's (so a form marks the password field). */
export function isPasswordRuleMessage(message: string | null): boolean {
  return (
    message === AUTH_MESSAGES.passwordTooShort ||
    message === AUTH_MESSAGES.passwordOnlySpaces ||
    message === AUTH_MESSAGES.passwordTooCommon
  );
}
