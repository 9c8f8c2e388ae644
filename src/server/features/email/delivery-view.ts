import type { OutboxState } from '../../db/schema.ts';
import type { Email, RecipientDelivery } from '../../../shared/contract/email.ts';
import type { DeliveryRow } from './email.repo.ts';

/**
 * How an email's deliveries read in the API: one entry per recipient, and the roll-up the history
 * and the detail's badge show (docs/decisions/0038-one-outbox-row-per-recipient.md). Nothing
 * reads "sent" that was not sent to every recipient.
 */

const RECIPIENT_STATE: Record<OutboxState, RecipientDelivery['state']> = {
  queued: 'queued',
  sending: 'sending',
  sent: 'sent',
  retry_wait: 'retrying',
  failed: 'failed',
  unconfirmed: 'unconfirmed',
};

/** "550 5.1.1 User unknown": the server's reply already starts with its code; never say it twice. */
export function errorText(code: number | null, text: string | null): string | null {
  if (text === null) return null;
  if (code === null || text.startsWith(String(code))) return text;
  return `${code} ${text}`;
}

/** One entry per recipient, in the order the sender wrote them. */
export function toRecipientDeliveries(rows: DeliveryRow[], to: string): RecipientDelivery[] {
  const order = to.split(',').map((a) => a.trim().toLowerCase());
  const position = (row: DeliveryRow) => {
    const i = order.indexOf((row.to[0] ?? '').toLowerCase());
    return i === -1 ? order.length : i;
  };
  return [...rows]
    .sort((a, b) => position(a) - position(b))
    .map((row) => ({
      id: row.id,
      to: row.to.join(', '),
      state: RECIPIENT_STATE[row.state],
      attempts: row.attempts,
      error: errorText(row.code, row.error),
      sentAt: row.sent_at ? new Date(row.sent_at).toISOString() : null,
      messageId: row.message_id,
      uncertain: row.uncertain,
    }));
}

const latest = (ds: RecipientDelivery[]) =>
  ds.reduce<string | null>((max, d) => (d.sentAt && (!max || d.sentAt > max) ? d.sentAt : max), null);

/** The problem of each recipient concerned, named when there are several recipients. */
function problems(ds: RecipientDelivery[], all: RecipientDelivery[]): string | null {
  const withError = ds.filter((d) => d.error);
  if (withError.length === 0) return null;
  if (all.length === 1) return withError[0]!.error;
  return withError.map((d) => `${d.to}: ${d.error}`).join('; ');
}

export function rollUpDelivery(ds: RecipientDelivery[]): Email['delivery'] {
  const attempts = ds.reduce((max, d) => Math.max(max, d.attempts), 0);
  const uncertain = ds.some((d) => d.uncertain);
  const count = (state: RecipientDelivery['state']) => ds.filter((d) => d.state === state).length;
  const base = { attempts, uncertain };
  if (ds.length === 0) return { ...base, state: 'queued', error: null, sentAt: null };

  const retrying = ds.filter((d) => d.state === 'retrying');
  const underWay = retrying.length + count('sending') + count('queued');
  if (underWay > 0) {
    if (retrying.length > 0)
      return { ...base, state: 'retrying', error: problems(retrying, ds), sentAt: null };
    const started = count('queued') < ds.length;
    return { ...base, state: started ? 'sending' : 'queued', error: null, sentAt: null };
  }
  const failed = ds.filter((d) => d.state === 'failed');
  const unconfirmed = ds.filter((d) => d.state === 'unconfirmed');
  if (failed.length === ds.length)
    return { ...base, state: 'failed', error: problems(failed, ds), sentAt: null };
  if (failed.length > 0)
    return { ...base, state: 'partial', error: problems(failed, ds), sentAt: latest(ds) };
  if (unconfirmed.length > 0)
    return { ...base, state: 'unconfirmed', error: problems(unconfirmed, ds), sentAt: latest(ds) };
  return { ...base, state: 'sent', error: null, sentAt: latest(ds) };
}
