import type { Review } from '../../../shared/contract/review.ts';
import { dateTime, relativeTime } from '../../lib/relative-time.ts';
import { ReviewBadge } from './review-badge.tsx';

/** The number of each pinned review, in the order they were written (1, 2, 3…). */
export function pinNumbers(reviews: Review[]): Map<string, number> {
  const numbers = new Map<string, number>();
  for (const r of reviews) if (r.pin) numbers.set(r.id, numbers.size + 1);
  return numbers;
}

/**
 * What reviewers said, newest first. Names and comments are React text, never HTML: whatever a
 * reviewer typed shows as the characters they typed.
 */
export function ReviewList({ reviews, emptyText }: { reviews: Review[]; emptyText: string }) {
  const numbers = pinNumbers(reviews);
  const now = new Date();
  if (reviews.length === 0) return <p className="text-sm text-slate-500 dark:text-slate-400">{emptyText}</p>;
  return (
    <ol className="divide-y divide-slate-200 dark:divide-slate-800" aria-label="Reviews">
      {[...reviews].reverse().map((review) => {
        const pin = numbers.get(review.id);
        return (
          <li key={review.id} className="flex gap-3 py-3 first:pt-0 last:pb-0" data-testid="review">
            {pin ? (
              <span
                className="mt-0.5 flex size-6 shrink-0 items-center justify-center rounded-full bg-brand-600 text-xs font-semibold text-white"
                title={`Pin ${pin}`}
              >
                {pin}
              </span>
            ) : null}
            <div className="min-w-0 flex-1 space-y-1">
              <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
                <span
                  className="font-medium break-words text-slate-900 dark:text-white"
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
                  className="text-sm whitespace-pre-wrap break-words text-slate-700 dark:text-slate-300"
                  data-testid="review-comment"
                >
                  {review.comment}
                </p>
              ) : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
