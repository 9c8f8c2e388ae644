import type { PublicEmail } from '../../../shared/contract/email.ts';
import type { PickedPin } from '../../components/review/pin-markers.tsx';
import { ReviewList } from '../../components/review/review-list.tsx';
import { ReviewForm } from './review-form.tsx';

/** Below the email: the review form and what reviewers said (loaded when the reader gets near). */
export function ReviewSection({
  slug,
  token,
  email,
  pin,
  picking,
  onPickingChange,
  onClearPin,
}: {
  slug: string;
  token: string | null;
  email: PublicEmail;
  pin: PickedPin | null;
  picking: boolean;
  onPickingChange: (picking: boolean) => void;
  onClearPin: () => void;
}) {
  return (
    <>
      <div className="space-y-4">
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
        />
      </div>
      <div className="space-y-4">
        <h2 className="text-lg font-semibold text-slate-900 dark:text-white">
          Comments ({email.reviews.length})
        </h2>
        <ReviewList reviews={email.reviews} emptyText="No reviews yet. Be the first to say what you think." />
      </div>
    </>
  );
}
