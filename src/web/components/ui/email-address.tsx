import { Fragment } from 'react';
import { cx } from './cx.ts';

/**
 * An email address that wraps where a reader expects on a narrow screen: before the "@" and
 * before each dot, and only inside a part that still does not fit.
 */
export function EmailAddress({ address, className }: { address: string; className?: string }) {
  const parts = address.split(/(?=[@.])/);
  return (
    <span className={cx('wrap-anywhere', className)} data-email-address="">
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
