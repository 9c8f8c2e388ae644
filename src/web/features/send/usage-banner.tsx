import { cx } from '../../components/ui/cx.ts';
import type { Usage } from '../../../shared/contract/email.ts';
import { UpgradeButton } from '../../components/billing/upgrade-button.tsx';
import { bannerTone, resetDay } from '../../lib/usage-rules.ts';

/**
 * Send screen, free plan (docs/spec.md §4): "N of M sends remaining this month", orange ≤ 2, red at
 * 0, and when the allowance starts over.
 */
export function UsageBanner({ usage }: { usage: Usage }) {
  if (usage.limit === null || usage.remaining === null) return null;
  const tone = bannerTone(usage.remaining);
  const styles = {
    normal:
      'border-slate-200 bg-slate-50 text-slate-700 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-300',
    low: 'border-orange-300 bg-orange-50 text-orange-900 dark:border-orange-500/40 dark:bg-orange-950/50 dark:text-orange-200',
    empty:
      'border-red-300 bg-red-50 text-red-900 dark:border-red-500/40 dark:bg-red-950/50 dark:text-red-200',
  }[tone];
  return (
    <div
      role={tone === 'empty' ? 'alert' : 'status'}
      data-testid="usage-banner"
      data-tone={tone}
      className={cx(
        'flex flex-wrap items-center justify-between gap-3 rounded-lg border px-4 py-3 text-sm',
        styles,
      )}
    >
      <div>
        {tone === 'empty' ? <p className="font-semibold">Free plan limit reached</p> : null}
        <p>
          {usage.remaining} of {usage.limit} sends remaining this month
        </p>
        <p className="text-xs opacity-80" data-testid="usage-resets">
          Resets on {resetDay(usage.resetsAt)}
        </p>
      </div>
      {tone !== 'normal' ? (
        // Starts Stripe Checkout directly, as every upgrade button in the app does.
        <UpgradeButton size="sm" variant={tone === 'empty' ? 'primary' : 'outline'} icon={false}>
          Upgrade to Pro for unlimited sends
        </UpgradeButton>
      ) : null}
    </div>
  );
}
