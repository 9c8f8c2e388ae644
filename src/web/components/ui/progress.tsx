import { cx } from './cx.ts';

export type ProgressColor = 'green' | 'yellow' | 'orange' | 'red' | 'blue' | 'brand';

const fills: Record<ProgressColor, string> = {
  green: 'bg-green-500',
  yellow: 'bg-yellow-400',
  orange: 'bg-orange-500',
  red: 'bg-red-500',
  blue: 'bg-blue-500',
  brand: 'bg-brand-600 dark:bg-brand-500',
};

export interface ProgressProps {
  value: number;
  max?: number;
  color?: ProgressColor;
  /** Accessible name, e.g. "Monthly usage". */
  label: string;
  /** Spoken value, e.g. "7 of 10 emails used"; defaults to a percentage. */
  valueText?: string;
  className?: string;
}

/** A horizontal bar (role=progressbar); the value is clamped to 0…max. */
export function Progress({ value, max = 100, color = 'brand', label, valueText, className }: ProgressProps) {
  const safeMax = max > 0 ? max : 1;
  const clamped = Math.min(Math.max(value, 0), safeMax);
  const percent = (clamped / safeMax) * 100;
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={safeMax}
      aria-valuenow={clamped}
      aria-valuetext={valueText}
      data-color={color}
      className={cx('h-2 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800', className)}
    >
      <div
        className={cx('h-full rounded-full transition-[width] duration-300', fills[color])}
        style={{ width: `${percent}%` }}
      />
    </div>
  );
}
