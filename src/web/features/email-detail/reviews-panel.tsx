import { Eye, Trash2 } from 'lucide-react';
import { useState } from 'react';
import type { Email } from '../../../shared/contract/email.ts';
import type { Review } from '../../../shared/contract/review.ts';
import { ReviewBadge } from '../../components/review/review-badge.tsx';
import { ReviewList } from '../../components/review/review-list.tsx';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmDialog } from '../../components/ui/dialog.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { useDeleteReviews } from './api.ts';
import { ShareViews } from './share-settings.tsx';

/**
 * What clients said through the public link, for every version of this email, and who looked
 * (docs/decisions/0085-reviews-throttled-and-notified.md). Reviewers' text is shown as text. The
 * owner may delete a review (spam, a mistaken approval), or all of them, for good.
 */
export function ReviewsPanel({ email }: { email: Email }) {
  const latest = [...email.reviews].reverse().find((r) => r.decision !== 'comment');
  const share = email.share;
  const remove = useDeleteReviews();
  /** The review asked about, or 'all'. */
  const [asking, setAsking] = useState<Review | 'all' | null>(null);
  const confirm = () => {
    if (!asking) return;
    remove.mutate(
      { id: email.id, ...(asking !== 'all' && { reviewId: asking.id }) },
      {
        onSuccess: () => {
          toast.success(asking === 'all' ? 'Reviews deleted' : 'Review deleted');
          setAsking(null);
        },
        onError: (err) => toast.error('Failed to delete', errorMessage(err)),
      },
    );
  };
  return (
    <section aria-labelledby="reviews-heading" className="space-y-2" data-testid="reviews-panel">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="reviews-heading" className="text-sm font-semibold text-slate-900 dark:text-white">
          Reviews
        </h2>
        <div className="flex flex-wrap items-center gap-3">
          {share ? (
            <span
              className="inline-flex items-center gap-1.5 text-xs text-slate-500 dark:text-slate-400"
              data-testid="share-views"
            >
              <Eye aria-hidden="true" className="size-3.5 shrink-0" />
              <ShareViews share={share} />
            </span>
          ) : null}
          {latest ? <ReviewBadge decision={latest.decision} version={latest.version} /> : null}
          {email.reviews.length > 1 ? (
            <Button variant="ghost" size="sm" onClick={() => setAsking('all')}>
              Delete All
            </Button>
          ) : null}
        </div>
      </div>
      <div className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
        <ReviewList
          reviews={email.reviews}
          emptyText={
            email.isPublic
              ? 'No reviews yet. Clients can approve, request changes or comment on the public link.'
              : 'No reviews yet. Share a link so a client can approve or comment without an account.'
          }
          actions={(review) => (
            <Button
              variant="ghost"
              size="icon-sm"
              aria-label={`Delete the review by ${review.name}`}
              title="Delete review"
              onClick={() => setAsking(review)}
            >
              <Trash2 aria-hidden="true" />
            </Button>
          )}
        />
      </div>
      <ConfirmDialog
        open={asking !== null}
        onOpenChange={(open) => {
          if (!open) setAsking(null);
        }}
        title={asking === 'all' ? 'Delete All Reviews?' : 'Delete This Review?'}
        description={
          asking === 'all'
            ? `All ${email.reviews.length} reviews, of every version, are deleted for good, here and on the public link.`
            : 'It is deleted for good, here and on the public link.'
        }
        confirmLabel={asking === 'all' ? 'Delete All Reviews' : 'Delete Review'}
        busy={remove.isPending}
        destructive
        onConfirm={confirm}
      />
    </section>
  );
}
