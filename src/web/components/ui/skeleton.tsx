import { cx } from './cx.ts';

/**
 * A grey placeholder block shown while data loads (hidden from assistive technology). It pulses
 * only for those who have not asked their system for reduced motion.
 */
export function Skeleton({ className }: { className?: string }) {
  return (
    <span
      aria-hidden="true"
      className={cx(
        'inline-block motion-safe:animate-pulse rounded-md bg-slate-200 dark:bg-slate-800',
        className,
      )}
    />
  );
}
