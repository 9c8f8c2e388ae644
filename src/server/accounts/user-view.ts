import type { User } from '../../shared/contract/auth.ts';
import type { AccountUser } from './users.repo.ts';

/** The user as the API shows it: allowed fields listed one by one (docs/architecture.md §1.4). */
export function toUserResponse(user: AccountUser): User {
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
