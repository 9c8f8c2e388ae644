import type { HTMLAttributes } from 'react';
import { cx } from './cx.ts';

export type BadgeColor = 'gray' | 'green' | 'blue' | 'red' | 'yellow' | 'orange' | 'brand';

const colors: Record<BadgeColor, string> = {
  gray: 'bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-400/20',
  green:
    'bg-green-50 text-green-800 ring-green-600/25 dark:bg-green-950/60 dark:text-green-300 dark:ring-green-400/25',
  blue: 'bg-blue-50 text-blue-800 ring-blue-600/25 dark:bg-blue-950/60 dark:text-blue-300 dark:ring-blue-400/25',
  red: 'bg-red-50 text-red-800 ring-red-600/25 dark:bg-red-950/60 dark:text-red-300 dark:ring-red-400/25',
  yellow:
    'bg-yellow-50 text-yellow-800 ring-yellow-600/30 dark:bg-yellow-950/60 dark:text-yellow-300 dark:ring-yellow-400/25',
  orange:
    'bg-orange-50 text-orange-800 ring-orange-600/25 dark:bg-orange-950/60 dark:text-orange-300 dark:ring-orange-400/25',
  brand:
    'bg-brand-50 text-brand-700 ring-brand-600/25 dark:bg-brand-950/60 dark:text-brand-300 dark:ring-brand-400/25',
};

export interface BadgeProps extends HTMLAttributes<HTMLSpanElement> {
  color?: BadgeColor;
}

/** A small status pill; the colour is also exposed as data-color so tests and styles can read it. */
export function Badge({ color = 'gray', className, ...rest }: BadgeProps) {
  return (
    <span
      data-color={color}
      className={cx(
        'inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset [&_svg]:size-3.5',
        colors[color],
        className,
      )}
      {...rest}
    />
  );
}
