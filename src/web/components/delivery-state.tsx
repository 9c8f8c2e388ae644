import { CircleCheck, CircleX, Clock, RefreshCw, Send, type LucideIcon } from 'lucide-react';
import type { EmailSummary } from '../../shared/contract/email.ts';
import { Badge, type BadgeColor } from './ui/badge.tsx';
import { cx } from './ui/cx.ts';

type Delivery = EmailSummary['delivery'];
type State = Delivery['state'];

/** How each delivery state reads (the spec shows none; users need to know if a test bounced). */
const DELIVERY: Record<
  State,
  { label: string; hint: string; icon: LucideIcon; color: BadgeColor; tone: string }
> = {
  queued: {
    label: 'Queued',
    hint: 'Waiting to be sent',
    icon: Clock,
    color: 'gray',
    tone: 'bg-slate-100 text-slate-600 dark:bg-slate-800 dark:text-slate-300',
  },
  sending: {
    label: 'Sending',
    hint: 'Being handed to the mail server',
    icon: Send,
    color: 'blue',
    tone: 'bg-blue-50 text-blue-700 dark:bg-blue-950/60 dark:text-blue-300',
  },
  sent: {
    label: 'Sent',
    hint: 'Accepted by the mail server',
    icon: CircleCheck,
    color: 'green',
    tone: 'bg-green-50 text-green-700 dark:bg-green-950/60 dark:text-green-400',
  },
  retrying: {
    label: 'Retrying',
    hint: 'The mail server asked us to try again later',
    icon: RefreshCw,
    color: 'yellow',
    tone: 'bg-yellow-50 text-yellow-700 dark:bg-yellow-950/60 dark:text-yellow-300',
  },
  failed: {
    label: 'Failed',
    hint: 'The mail server refused this email',
    icon: CircleX,
    color: 'red',
    tone: 'bg-red-50 text-red-700 dark:bg-red-950/60 dark:text-red-400',
  },
};

/** "Delivery: Failed — 550 mailbox unavailable": the spoken name and tooltip of the state. */
function deliveryDescription(delivery: Delivery): string {
  const d = DELIVERY[delivery.state];
  const detail =
    delivery.error && (delivery.state === 'failed' || delivery.state === 'retrying')
      ? delivery.error
      : d.hint;
  return `Delivery: ${d.label} — ${detail}`;
}

/** The round icon of the history's first column. */
export function DeliveryIcon({ delivery, className }: { delivery: Delivery; className?: string }) {
  const d = DELIVERY[delivery.state];
  const Icon = d.icon;
  const description = deliveryDescription(delivery);
  return (
    <span
      role="img"
      aria-label={description}
      title={description}
      data-state={delivery.state}
      className={cx(
        'inline-flex size-8 shrink-0 items-center justify-center rounded-full',
        d.tone,
        className,
      )}
    >
      <Icon aria-hidden="true" className="size-4" />
    </span>
  );
}

/** The state as a labelled pill (detail page). */
export function DeliveryBadge({ delivery }: { delivery: Delivery }) {
  const d = DELIVERY[delivery.state];
  const Icon = d.icon;
  return (
    <Badge color={d.color} title={d.hint} data-testid="delivery-state" data-state={delivery.state}>
      <Icon aria-hidden="true" />
      {d.label}
    </Badge>
  );
}
