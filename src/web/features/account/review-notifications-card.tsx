import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReviewNotifications } from '../../../shared/contract/review.ts';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { Switch } from '../../components/ui/switch.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { api, errorMessage } from '../../lib/api.ts';
import { Section } from './section.tsx';

const KEY = ['review-notifications'] as const;

/**
 * Review Notifications (GET/PUT /api/user/review-notifications): a mail for each approval or
 * change request on a shared email (docs/decisions/0085-reviews-throttled-and-notified.md).
 */
export function ReviewNotificationsCard() {
  const queryClient = useQueryClient();
  const setting = useQuery({
    queryKey: KEY,
    queryFn: ({ signal }) => api<ReviewNotifications>('/api/user/review-notifications', { signal }),
  });
  const update = useMutation({
    mutationFn: (reviewNotifications: boolean) =>
      api<ReviewNotifications>('/api/user/review-notifications', {
        method: 'PUT',
        body: { reviewNotifications },
      }),
    onSuccess: (data) => {
      queryClient.setQueryData(KEY, data);
      toast.success(
        'Settings Updated',
        data.reviewNotifications ? 'Review notifications enabled' : 'Review notifications disabled',
      );
    },
    onError: (err) => toast.error('Failed to update settings', errorMessage(err)),
  });
  const checked = update.isPending ? update.variables : setting.data?.reviewNotifications;
  return (
    <Section id="review-notifications" title="Review Notifications">
      <div className="flex items-start justify-between gap-4">
        <div className="space-y-1">
          <label
            htmlFor="review-notifications-switch"
            className="text-sm font-medium text-slate-900 dark:text-white"
          >
            Email me each review decision
          </label>
          <p id="review-notifications-hint" className="text-sm text-slate-600 dark:text-slate-400">
            When a client approves or requests changes through a shared link, we send you an email.
          </p>
        </div>
        {checked === undefined ? (
          <Skeleton className="h-6 w-11 rounded-full" />
        ) : (
          <Switch
            id="review-notifications-switch"
            checked={checked}
            aria-describedby="review-notifications-hint"
            busy={update.isPending}
            onCheckedChange={(next) => update.mutate(next)}
          />
        )}
      </div>
    </Section>
  );
}
