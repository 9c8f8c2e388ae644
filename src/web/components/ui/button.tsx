import type { ButtonHTMLAttributes, ReactNode, Ref } from 'react';
import { cx, focusRing } from './cx.ts';
import { Spinner } from './spinner.tsx';

export type ButtonVariant = 'primary' | 'secondary' | 'outline' | 'ghost' | 'destructive' | 'inverse';
export type ButtonSize = 'sm' | 'md' | 'lg' | 'icon' | 'icon-sm';

const base =
  'inline-flex shrink-0 items-center justify-center gap-2 whitespace-nowrap rounded-lg font-medium transition-colors select-none disabled:pointer-events-none disabled:opacity-55 aria-disabled:pointer-events-none aria-disabled:opacity-55 [&_svg]:shrink-0';

const variants: Record<ButtonVariant, string> = {
  primary:
    // brand-600 in both themes: white text on brand-500 falls just short of 4.5:1.
    'bg-brand-600 text-white shadow-sm hover:bg-brand-700 active:bg-brand-800',
  secondary:
    'bg-slate-100 text-slate-900 hover:bg-slate-200 active:bg-slate-300 dark:bg-slate-800 dark:text-slate-100 dark:hover:bg-slate-700',
  outline:
    'border border-slate-300 bg-white text-slate-900 shadow-xs hover:bg-slate-50 active:bg-slate-100 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800',
  ghost:
    'text-slate-700 hover:bg-slate-100 hover:text-slate-900 active:bg-slate-200 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white',
  destructive:
    'bg-red-600 text-white shadow-sm hover:bg-red-700 active:bg-red-800 dark:bg-red-600 dark:hover:bg-red-500',
  /** For coloured backgrounds (e.g. a brand banner): white in both themes. */
  inverse: 'bg-white text-brand-700 shadow-sm hover:bg-brand-50 active:bg-brand-100',
};

const inverseRing = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white';

const sizes: Record<ButtonSize, string> = {
  sm: 'h-8 px-3 text-sm [&_svg]:size-4',
  md: 'h-10 px-4 text-sm [&_svg]:size-4',
  lg: 'h-12 px-6 text-base [&_svg]:size-5',
  icon: 'size-10 [&_svg]:size-5',
  'icon-sm': 'size-8 [&_svg]:size-4',
};

/**
 * Button classes for elements that must look like a button but are links (`<Link className=…>`).
 * `className` is appended, not merged: add layout (w-full, mt-4), don't override colours or display.
 */
export function buttonClasses(
  options: { variant?: ButtonVariant; size?: ButtonSize; className?: string } = {},
): string {
  const variant = options.variant ?? 'primary';
  // On a coloured background the usual brand ring would vanish; inverse buttons get a white one.
  const ring = variant === 'inverse' ? inverseRing : focusRing;
  return cx(base, ring, variants[variant], sizes[options.size ?? 'md'], options.className);
}

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /**
   * Shows a spinner and marks the button aria-busy and aria-disabled while an action runs; it
   * keeps the focus (a disabled button would drop it to the page) and does nothing when clicked,
   * nor when a form is submitted through it (Enter in a field).
   */
  busy?: boolean;
  /** Optional text that replaces the label while busy (e.g. "Sending…"). */
  busyLabel?: ReactNode;
  ref?: Ref<HTMLButtonElement>;
}

export function Button({
  variant = 'primary',
  size = 'md',
  busy = false,
  busyLabel,
  className,
  disabled,
  children,
  type = 'button',
  onClick,
  ...rest
}: ButtonProps) {
  return (
    <button
      type={type}
      className={buttonClasses({ variant, size, className })}
      disabled={disabled}
      aria-busy={busy || undefined}
      {...rest}
      // After rest: a caller's aria-disabled (a button that explains why it cannot act yet) stays
      // unless the button is busy.
      aria-disabled={busy || rest['aria-disabled'] || undefined}
      onClick={(event) => {
        if (busy) {
          // Also cancels the submit a click on a submit button (or Enter in its form's field) makes.
          event.preventDefault();
          return;
        }
        onClick?.(event);
      }}
    >
      {busy ? <Spinner className="size-4" label={null} /> : null}
      {busy && busyLabel !== undefined ? busyLabel : children}
    </button>
  );
}
