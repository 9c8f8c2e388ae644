import type { Review, ShareInfo } from '../../../shared/contract/review.ts';
import type { ReviewRow } from './review.repo.ts';
import type { ShareRow } from './share.repo.ts';

/** API shapes of a link and a review, built by listing fields (docs/architecture.md §1.4). */

export function toShareInfo(share: ShareRow | undefined): ShareInfo | null {
  if (!share) return null;
  return {
    views: share.views,
    lastViewedAt: share.last_viewed_at?.toISOString() ?? null,
    expiresAt: share.expires_at?.toISOString() ?? null,
    expiresInDays: share.expires_in_days,
    protected: share.password_hash !== null,
  };
}

export function toReview(row: ReviewRow): Review {
  return {
    id: row.id,
    name: row.name,
    decision: row.decision,
    comment: row.comment,
    version: row.version,
    pin:
      row.pin_x !== null && row.pin_y !== null ? { x: row.pin_x, y: row.pin_y, width: row.pin_width } : null,
    createdAt: row.created_at.toISOString(),
  };
}
