import { Copy as CopyTwice } from 'lucide-react';
import type { Email, RecipientDelivery } from '../../../shared/contract/email.ts';
import { DeliveryBadge } from '../../components/delivery-state.tsx';
import { dateTime } from '../../lib/relative-time.ts';

/**
 * The detail page's delivery section: one line per recipient (each got a message of its own),
 * with its state, the server's reply when it refused or deferred, and a note when the message may
 * have arrived twice. The roll-up reads in the heading.
 */

function summaryOf(email: Email): string {
  const ds = email.deliveries;
  const sent = ds.filter((d) => d.state === 'sent').length;
  const failed = ds.filter((d) => d.state === 'failed').length;
  const unconfirmed = ds.filter((d) => d.state === 'unconfirmed').length;
  const total = ds.length;
  const recipients = `${total} recipient${total === 1 ? '' : 's'}`;
  switch (email.delivery.state) {
    case 'sent':
      return total === 1 ? 'Sent' : `Sent to all ${recipients}`;
    case 'failed':
      return total === 1 ? 'Not delivered' : `Not delivered to any of the ${recipients}`;
    case 'partial':
      return `Sent to ${sent} of ${recipients}; ${failed} refused${unconfirmed ? `, ${unconfirmed} unconfirmed` : ''}`;
    case 'unconfirmed':
      return `Sent to ${sent} of ${recipients}; ${unconfirmed} unconfirmed`;
    case 'retrying':
      return `Sent to ${sent} of ${recipients} so far; retrying the rest`;
    default:
      return sent > 0 ? `Sent to ${sent} of ${recipients} so far` : `Sending to ${recipients}`;
  }
}

function detailOf(d: RecipientDelivery): string {
  const attempts = `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`;
  switch (d.state) {
    case 'sent':
      return d.sentAt ? `Accepted ${dateTime(d.sentAt)} · ${attempts}` : `Accepted · ${attempts}`;
    case 'retrying':
      return `Deferred by the mail server; trying again (${attempts} so far)`;
    case 'failed':
      return `Refused · ${attempts}`;
    case 'unconfirmed':
      return `Not confirmed by the mail server · ${attempts}`;
    case 'sending':
      return 'Being handed to the mail server';
    default:
      return 'Waiting to be sent';
  }
}

function RecipientLine({ delivery: d }: { delivery: RecipientDelivery }) {
  const problem = d.error && d.state !== 'sent';
  return (
    <li
      className="space-y-1.5 px-4 py-3 sm:px-5"
      data-testid="recipient-delivery"
      data-state={d.state}
      data-uncertain={d.uncertain}
    >
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
        <p className="min-w-0 font-medium break-all text-slate-900 dark:text-slate-100">{d.to}</p>
        <DeliveryBadge delivery={d} recipient />
      </div>
      <p className="text-xs text-slate-500 dark:text-slate-400">{detailOf(d)}</p>
      {problem ? (
        <p
          className={
            'font-mono text-xs break-words ' +
            (d.state === 'failed' ? 'text-red-700 dark:text-red-300' : 'text-slate-700 dark:text-slate-300')
          }
          data-testid="recipient-error"
        >
          {d.error}
        </p>
      ) : null}
      {d.uncertain ? (
        <p
          className="flex items-start gap-1.5 text-xs text-orange-800 dark:text-orange-200"
          data-testid="recipient-uncertain"
        >
          <CopyTwice aria-hidden="true" className="mt-px size-3.5 shrink-0" />
          {d.state === 'unconfirmed'
            ? 'May have arrived, possibly twice: the whole message went out twice and the mail server confirmed neither, so it is not sent a third time.'
            : 'May have arrived twice: an attempt lost its answer after the whole message was sent, so the message was sent again.'}
        </p>
      ) : null}
    </li>
  );
}

export function DeliveryList({ email }: { email: Email }) {
  if (email.deliveries.length === 0) return null;
  const alert = email.delivery.state === 'failed' || email.delivery.state === 'partial';
  return (
    <section
      aria-labelledby="delivery-heading"
      className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1 border-b border-slate-200 bg-slate-50 px-4 py-2.5 sm:px-5 dark:border-slate-800 dark:bg-slate-900/60">
        <h2 id="delivery-heading" className="text-sm font-semibold text-slate-900 dark:text-white">
          Delivery
        </h2>
        <p
          role={alert ? 'alert' : undefined}
          className="text-xs text-slate-600 dark:text-slate-400"
          data-testid="delivery-summary"
        >
          {summaryOf(email)}
        </p>
      </div>
      <ul className="divide-y divide-slate-200 dark:divide-slate-800">
        {email.deliveries.map((d) => (
          <RecipientLine key={d.id} delivery={d} />
        ))}
      </ul>
    </section>
  );
}
