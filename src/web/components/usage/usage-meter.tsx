import { Progress } from '../ui/progress.tsx';
import { cx } from '../ui/cx.ts';
import type { Usage } from '../../../shared/contract/email.ts';
import { barColor, resetDay, usageMessage } from '../../lib/usage-rules.ts';

/**
 * Profile and account usage (docs/spec.md §4): bar green < 80 %, yellow from 80 %, red at 100 %, and
 * when a limited allowance starts over.
 */
export function UsageMeter({ usage }: { usage: Usage }) {
  const total = (
    <p className="text-sm text-slate-600 dark:text-slate-400">
      Total emails sent:{' '}
      <span className="font-medium text-slate-900 dark:text-slate-100">{usage.totalEmails}</span>
    </p>
  );
  if (usage.limit === null || usage.remaining === null) {
    return (
      <div className="space-y-2" data-testid="usage-meter">
        <p className="text-sm">
          <span className="font-medium">{usage.emailsThisMonth}</span> emails sent this month · unlimited
          (fair use)
        </p>
        {total}
      </div>
    );
  }
  const message = usageMessage(usage.remaining);
  return (
    <div className="space-y-2" data-testid="usage-meter">
      <div className="flex items-baseline justify-between text-sm">
        <span className="font-medium">Monthly usage</span>
        <span className="text-slate-600 tabular-nums dark:text-slate-400">
          {usage.emailsThisMonth} / {usage.limit}
        </span>
      </div>
      <Progress
        value={usage.emailsThisMonth}
        max={usage.limit}
        color={barColor(usage.emailsThisMonth, usage.limit)}
        label="Monthly usage"
        valueText={`${usage.emailsThisMonth} of ${usage.limit} emails used`}
      />
      <p
        className={cx(
          'text-sm',
          message.tone === 'danger' && 'font-medium text-red-700 dark:text-red-400',
          message.tone === 'warning' && 'text-yellow-800 dark:text-yellow-300',
          message.tone === 'normal' && 'text-slate-600 dark:text-slate-400',
        )}
      >
        {message.text}
      </p>
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="usage-resets">
        Your monthly allowance resets on {resetDay(usage.resetsAt)}.
      </p>
      {total}
    </div>
  );
}
