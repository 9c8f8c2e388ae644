/**
 * "Sent" times in the history (docs/spec.md §9): just now; minutes under 60 minutes; hours under 24
 * hours; days under 30 days; then a date. Pure, so it is unit-tested without a browser.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface RelativeTimeOptions {
  /** BCP 47 locale of the date after 30 days (default: the reader's). */
  locale?: string;
  /** Time zone of that date (default: the reader's). */
  timeZone?: string;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
}

export function relativeTime(when: Date | string, now: Date, options: RelativeTimeOptions = {}): string {
  const date = typeof when === 'string' ? new Date(when) : when;
  const at = date.getTime();
  if (Number.isNaN(at)) return '—';
  // A timestamp slightly ahead of this device's clock (skew) still reads "just now".
  const elapsed = Math.max(0, now.getTime() - at);
  if (elapsed < MINUTE) return 'just now';
  if (elapsed < HOUR) return plural(Math.floor(elapsed / MINUTE), 'minute');
  if (elapsed < DAY) return plural(Math.floor(elapsed / HOUR), 'hour');
  if (elapsed < 30 * DAY) return plural(Math.floor(elapsed / DAY), 'day');
  return new Intl.DateTimeFormat(options.locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    timeZone: options.timeZone,
  }).format(date);
}

/** The full date and time, e.g. "Nov 21, 2026, 3:04 PM" (tooltips, the detail page). */
export function dateTime(when: Date | string, options: RelativeTimeOptions = {}): string {
  const date = typeof when === 'string' ? new Date(when) : when;
  if (Number.isNaN(date.getTime())) return '—';
  return new Intl.DateTimeFormat(options.locale, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: options.timeZone,
  }).format(date);
}
