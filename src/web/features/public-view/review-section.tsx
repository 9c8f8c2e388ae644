import type { PublicEmail } from '../../../shared/contract/email.ts';
import type { PickedPin } from '../../components/review/pin-markers.tsx';
import { ReviewList } from '../../components/review/review-list.tsx';
import { NewerVersionNotice } from './newer-version-notice.tsx';
import { ReviewForm } from './review-form.tsx';

/**
 * Below the email: the review form and what reviewers said (loaded when the reader gets near).
 * The list holds approvals and change requests as well as comments, so it is "Reviews", as on the
 * owner's page (src/web/features/email-detail/reviews-panel.tsx). Both columns may shrink below
 * their content (min-w-0): what reviewers type wraps instead of widening the card.
 */
export function ReviewSection({
  slug,
  token,
  email,
  pin,
  picking,
  onPickingChange,
  onClearPin,
  onVersionChange,
}: {
  slug: string;
  token: string | null;
  email: PublicEmail;
  pin: PickedPin | null;
  picking: boolean;
  onPickingChange: (picking: boolean) => void;
  onClearPin: () => void;
  /** Called when the reader leaves for another version. */
  onVersionChange: () => void;
}) {
  return (
    <>
      <div className="min-w-0 space-y-4">
        <h2 id="review-title" className="text-lg font-semibold text-slate-900 dark:text-white">
          Review
        </h2>
        <ReviewForm
          slug={slug}
          token={token}
          version={email.version}
          pin={pin}
          picking={picking}
          onPickingChange={onPickingChange}
          onClearPin={onClearPin}
          notice={
            <NewerVersionNotice
              versions={email.versions}
              current={email.version}
              onFollow={onVersionChange}
              className="mb-2"
            />
          }
        />
      </div>
      <div className="min-w-0 space-y-4">
        <h2 className="text-lg font-semibold text-slate-900 dark:text-white">
          Reviews ({email.reviews.length})
        </h2>
        <ReviewList reviews={email.reviews} emptyText="No reviews yet. Be the first to say what you think." />
      </div>
    </>
  );
}
