import type { User } from '../../shared/contract/auth.ts';
import type { AccountUser } from './users.repo.ts';

/**
 * Views already built for users that cannot change: the session lookup hands the same frozen
 * user to every request of a cached session (src/server/accounts/sessions.ts), so GET
 * /api/auth/me does not rebuild it (and format its date) each time.
 */
const frozenViews = new WeakMap<AccountUser, User>();

/** The user as the API shows it: allowed fields listed one by one (docs/architecture.md §1.4). */
export function toUserResponse(user: AccountUser): User {
  if (!Object.isFrozen(user)) return buildView(user);
  let view = frozenViews.get(user);
  if (!view) frozenViews.set(user, (view = Object.freeze(buildView(user))));
  return view;
}

function buildView(user: AccountUser): User {
  return {
    id: user.id,
    email: user.email,
    verified: user.verified,
    plan: user.plan,
    createdAt: user.createdAt.toISOString(),
    subscriptionStatus: user.subscriptionStatus,
    hasPassword: user.hasPassword,
  };
}
