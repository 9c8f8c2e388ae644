import { Eye } from 'lucide-react';
import type { Email } from '../../../shared/contract/email.ts';
import { ReviewBadge } from '../../components/review/review-badge.tsx';
import { ReviewList } from '../../components/review/review-list.tsx';
import { dateTime, relativeTime } from '../../lib/relative-time.ts';

/**
 * What clients said through the public link, for every version of this email, and who looked
 * (docs/decisions/0085-reviews-throttled-and-notified.md). Reviewers' text is shown as text.
 */
export function ReviewsPanel({ email }: { email: Email }) {
  const latest = [...email.reviews].reverse().find((r) => r.decision !== 'comment');
  const share = email.share;
  return (
    <section aria-labelledby="reviews-heading" className="space-y-2" data-testid="reviews-panel">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="reviews-heading" className="text-sm font-semibold text-slate-900 dark:text-white">
          Reviews
        </h2>
        <div className="flex flex-wrap items-center gap-3">
          {share ? (
            <span className="inline-flex items-center gap-1.5 text-xs text-slate-500 dark:text-slate-400">
              <Eye aria-hidden="true" className="size-3.5" />
              {share.views === 1 ? '1 view' : `${share.views} views`}
              {share.lastViewedAt ? (
                <>
                  {' · last '}
                  <time dateTime={share.lastViewedAt} title={dateTime(share.lastViewedAt)}>
                    {relativeTime(share.lastViewedAt, new Date())}
                  </time>
                </>
              ) : null}
            </span>
          ) : null}
          {latest ? <ReviewBadge decision={latest.decision} version={latest.version} /> : null}
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
        />
      </div>
    </section>
  );
}
