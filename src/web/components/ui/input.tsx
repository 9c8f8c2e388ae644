import type { InputHTMLAttributes, LabelHTMLAttributes, ReactNode, Ref } from 'react';
import { cx } from './cx.ts';

/** Shared look of text fields (input, textarea): one border, one focus ring, one error state. */
export const fieldClasses =
  'block w-full rounded-lg border border-slate-300 bg-white px-3 text-sm text-slate-900 shadow-xs transition-colors placeholder:text-slate-400 hover:border-slate-400 focus-visible:border-brand-500 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-500/40 disabled:cursor-not-allowed disabled:bg-slate-50 disabled:text-slate-500 aria-invalid:border-red-500 aria-invalid:focus-visible:outline-red-500/40 read-only:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:placeholder:text-slate-500 dark:hover:border-slate-600 dark:disabled:bg-slate-800/60 dark:read-only:bg-slate-800/60 dark:aria-invalid:border-red-400';

export interface InputProps extends InputHTMLAttributes<HTMLInputElement> {
  /** Marks the field invalid (aria-invalid + red border). */
  invalid?: boolean;
  ref?: Ref<HTMLInputElement>;
}

export function Input({ className, invalid, type = 'text', ...rest }: InputProps) {
  return (
    <input
      type={type}
      aria-invalid={invalid || undefined}
      className={cx(fieldClasses, 'h-10', className)}
      {...rest}
    />
  );
}

export function Label({ className, ...rest }: LabelHTMLAttributes<HTMLLabelElement>) {
  return (
    <label
      className={cx('block text-sm font-medium text-slate-800 dark:text-slate-200', className)}
      {...rest}
    />
  );
}

/**
 * The message under a field; its id goes into the field's aria-describedby. An alert, so a screen
 * reader reads it out when it appears or changes, not only when the field next gets the focus;
 * nothing is there (nor read) while there is no error. A blank message (a field marked as the
 * one a form-level alert is about, src/web/features/send/send-page.tsx) is no alert: that alert
 * speaks for it.
 */
export function FieldError({
  id,
  children,
  className,
}: {
  id?: string;
  children?: ReactNode;
  className?: string;
}) {
  if (!children) return null;
  const blank = typeof children === 'string' && !children.trim();
  return (
    <p
      id={id}
      role={blank ? undefined : 'alert'}
      className={cx('text-sm text-red-600 dark:text-red-400', className)}
    >
      {children}
    </p>
  );
}

export function FieldHint({
  id,
  children,
  className,
}: {
  id?: string;
  children?: ReactNode;
  className?: string;
}) {
  if (!children) return null;
  return (
    <p id={id} className={cx('text-sm text-slate-500 dark:text-slate-400', className)}>
      {children}
    </p>
  );
}

/** Ids for a field's hint and error, and the aria-describedby that names whichever is shown. */
export function fieldDescription(id: string, shown: { hint?: unknown; error?: unknown }) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [shown.hint ? hintId : null, shown.error ? errorId : null].filter(Boolean).join(' ');
  return { hintId, errorId, describedBy: describedBy || undefined };
}

export interface FieldProps {
  /** The id of the control inside; the label points at it. */
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  className?: string;
  children: ReactNode;
}

/**
 * Label + control + hint + error, stacked with consistent spacing. The control must set
 * `aria-describedby={fieldDescription(id, { hint, error }).describedBy}` and `invalid={!!error}`.
 */
export function Field({ id, label, hint, error, className, children }: FieldProps) {
  const { hintId, errorId } = fieldDescription(id, { hint, error });
  return (
    <div className={cx('space-y-1.5', className)}>
      <Label htmlFor={id}>{label}</Label>
      {children}
      <FieldHint id={hintId}>{hint}</FieldHint>
      <FieldError id={errorId}>{error}</FieldError>
    </div>
  );
}
