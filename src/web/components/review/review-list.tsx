import type { ReactNode } from 'react';
import type { Review } from '../../../shared/contract/review.ts';
import { dateTime, relativeTime } from '../../lib/relative-time.ts';
import { ReviewBadge } from './review-badge.tsx';
import { pinNumbers, reviewElementId } from './pin-numbers.ts';

/**
 * What reviewers said, newest first. Names and comments are React text, never HTML: whatever a
 * reviewer typed shows as the characters they typed. Anyone may type a long URL or a name without
 * a space, so both may break anywhere (overflow-wrap: anywhere, which unlike break-word also
 * narrows the text's own minimum width) rather than widen the page.
 */
export function ReviewList({
  reviews,
  emptyText,
  actions,
}: {
  reviews: Review[];
  emptyText: string;
  /** Controls at the end of each review (the owner's Delete). */
  actions?: (review: Review) => ReactNode;
}) {
  const numbers = pinNumbers(reviews);
  const now = new Date();
  if (reviews.length === 0) return <p className="text-sm text-slate-500 dark:text-slate-400">{emptyText}</p>;
  return (
    <ol className="divide-y divide-slate-200 dark:divide-slate-800" aria-label="Reviews">
      {[...reviews].reverse().map((review) => {
        const pin = numbers.get(review.id);
        return (
          <li
            key={review.id}
            id={reviewElementId(review.id)}
            // Focused by its pin marker, so a keyboard or screen reader lands on the review.
            tabIndex={-1}
            className="flex min-w-0 gap-3 py-3 outline-offset-2 first:pt-0 last:pb-0 focus:rounded-md focus:outline-2 focus:outline-brand-500/60"
            data-testid="review"
          >
            {pin ? (
              <span
                role="img"
                aria-label={`Pin ${pin}`}
                className="mt-0.5 flex size-6 shrink-0 items-center justify-center rounded-full bg-brand-600 text-xs font-semibold text-white"
                title={`Pin ${pin}`}
              >
                {pin}
              </span>
            ) : null}
            <div className="min-w-0 flex-1 space-y-1">
              <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
                <span
                  className="min-w-0 font-medium wrap-anywhere text-slate-900 dark:text-white"
                  data-testid="review-name"
                >
                  {review.name}
                </span>
                <ReviewBadge decision={review.decision} version={review.version} />
                <time
                  dateTime={review.createdAt}
                  title={dateTime(review.createdAt)}
                  className="text-xs text-slate-500 dark:text-slate-400"
                >
                  {relativeTime(review.createdAt, now)}
                </time>
              </div>
              {review.comment ? (
                <p
                  className="text-sm whitespace-pre-wrap wrap-anywhere text-slate-700 dark:text-slate-300"
                  data-testid="review-comment"
                >
                  {review.comment}
                </p>
              ) : null}
            </div>
            {actions ? <div className="shrink-0">{actions(review)}</div> : null}
          </li>
        );
      })}
    </ol>
  );
}
