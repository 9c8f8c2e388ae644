import type { ProgressColor } from '../components/ui/progress.tsx';
import { LOW_REMAINING_THRESHOLD, USAGE_WARNING_RATIO } from '../../shared/plans.ts';

/** Thresholds of docs/spec.md §4 (usage banner and usage bar) in one place, tested on their own. */

export type BannerTone = 'normal' | 'low' | 'empty';

/** Send screen banner: orange at 2 or fewer left, red at 0. */
export function bannerTone(remaining: number): BannerTone {
  if (remaining <= 0) return 'empty';
  if (remaining <= LOW_REMAINING_THRESHOLD) return 'low';
  return 'normal';
}

/** Profile/account bar: green below 80 %, yellow from 80 %, red at 100 %. */
export function barColor(used: number, limit: number): ProgressColor {
  if (limit <= 0 || used >= limit) return 'red';
  if (used / limit >= USAGE_WARNING_RATIO) return 'yellow';
  return 'green';
}

/** The bar's message (docs/spec.md §4): 0 → reached; ≤ 2 → warning; otherwise the count. */
export function usageMessage(remaining: number): { text: string; tone: 'danger' | 'warning' | 'normal' } {
  if (remaining <= 0) return { text: "You've reached your monthly limit", tone: 'danger' };
  if (remaining <= LOW_REMAINING_THRESHOLD) {
    return { text: `Only ${remaining} email(s) remaining this month`, tone: 'warning' };
  }
  return { text: `${remaining} emails remaining this month`, tone: 'normal' };
}

/**
 * When the monthly allowance starts over (the API's `resetsAt`, the first of next month in UTC,
 * docs/decisions/0014-usage-month-and-charging.md), in the reader's time zone: "December 1", or
 * with the time where that moment is not midnight ("November 30 at 4:00 PM").
 */
export function resetDay(resetsAt: string, locale?: string, timeZone?: string): string {
  const at = new Date(resetsAt);
  if (Number.isNaN(at.getTime())) return '';
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hour: 'numeric',
    minute: 'numeric',
    hourCycle: 'h23',
  })
    .formatToParts(at)
    .filter((p) => p.type === 'hour' || p.type === 'minute')
    .map((p) => Number(p.value));
  const midnight = parts.every((n) => n === 0);
  const day = new Intl.DateTimeFormat(locale, { timeZone, month: 'long', day: 'numeric' }).format(at);
  if (midnight) return day;
  const time = new Intl.DateTimeFormat(locale, { timeZone, hour: 'numeric', minute: '2-digit' }).format(at);
  return `${day} at ${time}`;
}
