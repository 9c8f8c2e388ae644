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
