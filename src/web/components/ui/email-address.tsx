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

/**
 * A list of recipients as the API writes it ("a@x.com, b@y.com"), each an EmailAddress
 * (docs/copy-style.md, "Addresses"): a narrow column wraps them before an "@" or a dot instead of
 * cutting a word or the domain off.
 */
export function EmailAddresses({ list, className }: { list: string; className?: string }) {
  const addresses = list.split(/,\s*/).filter(Boolean);
  return (
    <span className={className}>
      {addresses.map((address, i) => (
        <Fragment key={i}>
          {i > 0 ? ', ' : null}
          <EmailAddress address={address} />
        </Fragment>
      ))}
    </span>
  );
}
