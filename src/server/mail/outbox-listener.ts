import { startListener } from '../db/listener.ts';
import { OUTBOX_CHANNEL } from './outbox.ts';

/**
 * A dedicated connection that LISTENs for enqueueMail's NOTIFY, so workers wake at once instead of
 * waiting for the next poll. If it drops (database restart, network), it reconnects with backoff
 * (src/server/db/listener.ts) and wakes the worker once connected again, since notifications sent
 * meanwhile were lost.
 */
export interface OutboxListener {
  stop(): Promise<void>;
}

export interface OutboxListenerOptions {
  connectionString: string;
  /** `priority` is the enqueued mail's priority (0 system, 1 pro, 2 free) when known. */
  onWake: (priority?: number) => void;
  log?: (message: string) => void;
  /** First reconnect delay; doubles up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
}

export function startOutboxListener(options: OutboxListenerOptions): OutboxListener {
  return startListener({
    connectionString: options.connectionString,
    channel: OUTBOX_CHANNEL,
    applicationName: 'proofmail-outbox-listener',
    onNotification: (payload) => {
      const priority = Number(payload);
      options.onWake(payload && Number.isInteger(priority) ? priority : undefined);
    },
    onUp: () => options.onWake(), // catch up on anything enqueued while we were not listening
    log: options.log,
    retryMs: options.retryMs,
    maxRetryMs: options.maxRetryMs,
  });
}
