import type { Location } from 'react-router';

/** Router state the auth pages pass along (never in the URL). */
export interface AuthLocationState {
  /** Where a signed-out visitor was headed; sign-in returns there. */
  from?: string;
  /** A notice for the sign-in page (e.g. after an email change). */
  notice?: string;
}

export const HOME_AFTER_SIGN_IN = '/app/send';

/** Only an in-app path is a valid return target (no open redirect). */
export function returnTarget(location: Location): string {
  const from = (location.state as AuthLocationState | null)?.from;
  const inApp =
    typeof from === 'string' && (from === '/app' || from.startsWith('/app/') || from.startsWith('/app?'));
  return inApp ? from : HOME_AFTER_SIGN_IN;
}

export function noticeOf(location: Location): string | null {
  const notice = (location.state as AuthLocationState | null)?.notice;
  return typeof notice === 'string' ? notice : null;
}
