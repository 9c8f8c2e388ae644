import pg from 'pg';
import { OUTBOX_CHANNEL } from './outbox.ts';

/**
 * A dedicated connection that LISTENs for enqueueMail's NOTIFY, so workers wake at once instead of
 * waiting for the next poll. If it drops (database restart, network), it reconnects with backoff
 * and wakes the worker once connected again, since notifications sent meanwhile were lost.
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
  const log = options.log ?? (() => undefined);
  const baseRetry = options.retryMs ?? 500;
  const maxRetry = options.maxRetryMs ?? 30_000;
  let retry = baseRetry;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let connected = false;

  const scheduleReconnect = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, retry);
    timer.unref();
    retry = Math.min(retry * 2, maxRetry);
  };

  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client({
      connectionString: options.connectionString,
      application_name: 'proofmail-outbox-listener',
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
    });
    client = c;
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (connected && !stopped)
        log(`outbox listener: connection lost${err ? ` (${err.message})` : ''}; reconnecting`);
      connected = false;
      c.removeAllListeners('notification');
      c.end().catch(() => undefined);
      scheduleReconnect();
    };
    c.on('error', onLost);
    c.on('end', () => onLost());
    c.on('notification', (msg) => {
      if (msg.channel !== OUTBOX_CHANNEL) return;
      const priority = Number(msg.payload);
      options.onWake(msg.payload && Number.isInteger(priority) ? priority : undefined);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (stopped || lost) {
        await c.end().catch(() => undefined);
        return;
      }
      connected = true;
      retry = baseRetry;
      options.onWake(); // catch up on anything enqueued while we were not listening
    } catch (err) {
      onLost(err as Error);
    }
  };

  void connect();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners('notification');
        await c.end().catch(() => undefined);
      }
    },
  };
}
