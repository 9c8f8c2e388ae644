import type { HTMLAttributes } from 'react';
import { cx } from './cx.ts';

type DivProps = HTMLAttributes<HTMLDivElement>;

export function Card({ className, ...rest }: DivProps) {
  return (
    <div
      className={cx(
        'rounded-xl border border-slate-200 bg-white text-slate-900 shadow-sm dark:border-slate-800 dark:bg-slate-900 dark:text-slate-100',
        className,
      )}
      {...rest}
    />
  );
}

export function CardHeader({ className, ...rest }: DivProps) {
  return <div className={cx('flex flex-col gap-1.5 p-6 pb-0', className)} {...rest} />;
}

/** A card's heading; pick the level that fits the page outline (default h3). */
export function CardTitle({
  as: Tag = 'h3',
  className,
  ...rest
}: HTMLAttributes<HTMLHeadingElement> & { as?: 'h2' | 'h3' | 'h4' }) {
  return <Tag className={cx('text-lg leading-7 font-semibold tracking-tight', className)} {...rest} />;
}

export function CardDescription({ className, ...rest }: HTMLAttributes<HTMLParagraphElement>) {
  return <p className={cx('text-sm text-slate-600 dark:text-slate-400', className)} {...rest} />;
}

export function CardContent({ className, ...rest }: DivProps) {
  return <div className={cx('p-6', className)} {...rest} />;
}
