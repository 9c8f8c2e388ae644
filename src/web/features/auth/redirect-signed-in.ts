import { redirect } from 'react-router';
import { getToken } from '../../lib/api.ts';
import { queryClient } from '../../lib/query-client.ts';
import { HOME_AFTER_SIGN_IN } from './navigation.ts';
import { meQuery } from '../../lib/session.ts';

/**
 * Route loader for `/` (docs/spec.md §2): a signed-in visitor goes to /app/send before the landing page
 * renders. Without a stored token it costs nothing; a dead token is forgotten and the landing
 * page shows.
 */
export async function redirectSignedInLoader() {
  if (getToken() === null) return null;
  try {
    await queryClient.ensureQueryData(meQuery());
  } catch {
    return null;
  }
  return redirect(HOME_AFTER_SIGN_IN);
}
