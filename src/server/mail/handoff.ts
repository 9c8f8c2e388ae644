import type { EmailContent, OutboxRow } from './outbox.repo.ts';

/**
 * A send hands the mail it has just stored to this process's own outbox worker, instead of
 * waking every worker with NOTIFY and having one of them claim the rows and read the email back
 * (docs/decisions/0103-local-handoff-of-sent-mail.md). The rows are stored already claimed by that
 * worker, with a lease, in the same statement as the email: the queue's guarantees hold as they
 * do for a claim (a lease that runs out returns them to the queue; the final dot is recorded, and
 * gated on the lease, before it goes out).
 */

/** The claim the rows are stored with (enqueueMail's `claimedBy`). */
export interface OutboxClaim {
  workerId: string;
  leaseUntil: Date;
}

/** Room for some mails in the worker's buffer, held until they are stored or the send fails. */
export interface MailReservation {
  claim: OutboxClaim;
  /** The rows as stored (claimed) and their content, as the email row holds it. */
  deliver(rows: OutboxRow[], content: EmailContent): void;
  /** The rows were not stored: the room is given back. */
  cancel(): void;
}

export interface MailHandoff {
  /** Room for `count` mails now, or undefined: the send then queues them for any worker. */
  reserve(count: number): MailReservation | undefined;
}

/**
 * The app is built before its mail delivery starts: the app holds this slot, and `attach` puts
 * the worker in it once it runs (nothing attached, or MAIL_WORKERS=0: every send queues).
 */
export function handoffSlot(): MailHandoff & { attach(target: MailHandoff | undefined): void } {
  let target: MailHandoff | undefined;
  return {
    reserve: (count) => target?.reserve(count),
    attach(next) {
      target = next;
    },
  };
}
