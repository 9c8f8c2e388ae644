import {
  CircleAlert,
  CircleCheck,
  CircleQuestionMark,
  CircleX,
  Clock,
  RefreshCw,
  Send,
  type LucideIcon,
} from 'lucide-react';
import type { EmailSummary, RecipientDelivery } from '../../shared/contract/email.ts';
import { Badge, type BadgeColor } from './ui/badge.tsx';
import { cx } from './ui/cx.ts';

type Delivery = EmailSummary['delivery'];
type State = Delivery['state'];
type RecipientState = RecipientDelivery['state'];

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
  partial: {
    label: 'Partly sent',
    hint: 'Sent to some recipients; the mail server refused the others',
    icon: CircleAlert,
    color: 'orange',
    tone: 'bg-orange-50 text-orange-700 dark:bg-orange-950/60 dark:text-orange-300',
  },
  unconfirmed: {
    label: 'Unconfirmed',
    hint: 'The mail server took the message but never confirmed it; it may have arrived',
    icon: CircleQuestionMark,
    color: 'orange',
    tone: 'bg-orange-50 text-orange-700 dark:bg-orange-950/60 dark:text-orange-300',
  },
};

/** The hint of a single recipient's state (the roll-up's wording speaks of several). */
const RECIPIENT_HINT: Partial<Record<RecipientState, string>> = {
  failed: 'The mail server refused it for this recipient',
  unconfirmed: 'Sent twice without an answer; it may have arrived, so it is not sent again',
};

/** "Delivery: Failed — 550 mailbox unavailable": the spoken name and tooltip of the state. */
function deliveryDescription(delivery: Delivery): string {
  const d = DELIVERY[delivery.state];
  const detail = delivery.error && delivery.state !== 'sent' ? delivery.error : d.hint;
  const twice = delivery.uncertain ? ' (may have arrived twice)' : '';
  return `Delivery: ${d.label} — ${detail}${twice}`;
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

/** The state as a labelled pill: the email's roll-up, or one recipient's state (detail page). */
export function DeliveryBadge({
  delivery,
  recipient = false,
}: {
  delivery: { state: State };
  recipient?: boolean;
}) {
  const d = DELIVERY[delivery.state];
  const Icon = d.icon;
  const hint = (recipient ? RECIPIENT_HINT[delivery.state as RecipientState] : undefined) ?? d.hint;
  return (
    <Badge
      color={d.color}
      title={hint}
      data-testid={recipient ? 'recipient-delivery-state' : 'delivery-state'}
      data-state={delivery.state}
    >
      <Icon aria-hidden="true" />
      {d.label}
    </Badge>
  );
}
