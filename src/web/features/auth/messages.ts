/**
 * What /signin says for the `error` parameter social sign-in leaves there (docs/spec.md §4, §8). Only known
 * codes get their own text; anything else (a provider's own error code) gets a generic message,
 * so a crafted link cannot put arbitrary words on our page.
 */
const SOCIAL_ERRORS: Record<string, string> = {
  no_token: 'Sign-in did not complete: no sign-in token came back from the provider. Please try again.',
  auth_failed: 'We could not sign you in with that account. Please try again or use your email and password.',
  access_denied: 'Sign-in was cancelled at the provider. Choose a sign-in method to try again.',
  invalid_state: 'The sign-in attempt expired or was started in another window. Please try again.',
  state_mismatch: 'The sign-in attempt expired or was started in another window. Please try again.',
  email_not_verified:
    'Your email address at the provider is not verified, so we cannot sign you in with it. Verify it there, or sign in with your email and password.',
  unverified_email:
    'Your email address at the provider is not verified, so we cannot sign you in with it. Verify it there, or sign in with your email and password.',
  no_verified_email:
    'Your account at the provider has no verified email address, so we cannot sign you in with it. Verify one there, or sign in with your email and password.',
  provider_not_configured: 'That sign-in method is not available on this server.',
  provider_error: 'The sign-in provider reported a problem. Please try again in a moment.',
};

/** The text for an `error` code, plus the code itself when it is an unknown (but harmless) one. */
export function socialErrorMessage(code: string): { message: string; code: string | null } {
  const known = Object.hasOwn(SOCIAL_ERRORS, code) ? SOCIAL_ERRORS[code] : undefined;
  if (known) return { message: known, code: null };
  const safeCode = /^[a-z0-9_.-]{1,64}$/i.test(code) ? code : null;
  return {
    message: 'Social sign-in failed. Please try again or use your email and password.',
    code: safeCode,
  };
}
