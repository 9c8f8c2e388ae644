import type { Ref, TextareaHTMLAttributes } from 'react';
import { cx } from './cx.ts';
import { fieldClasses } from './input.tsx';

export interface TextareaProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
  invalid?: boolean;
  ref?: Ref<HTMLTextAreaElement>;
}

export function Textarea({ className, invalid, rows = 4, ...rest }: TextareaProps) {
  return (
    <textarea
      rows={rows}
      aria-invalid={invalid || undefined}
      className={cx(fieldClasses, 'min-h-20 py-2 leading-6', className)}
      {...rest}
    />
  );
}
