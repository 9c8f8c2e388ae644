import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { startMailCatcher, type MailCatcher } from './catcher.ts';
import { OutboxWorker, type OutboxWorkerOptions, type StopResult } from './outbox-worker.ts';
import { scaleTimeouts } from './smtp-session.ts';
import { createSmtpTransport, type MailTransport } from './transport.ts';

/**
 * Everything that delivers mail in one process: the local catcher (only without SMTP_URL), the
 * pooled SMTP transport and the outbox worker. Used by the web process (MAIL_WORKERS > 0) and by
 * `npm run worker`. Without SMTP_URL each delivering process runs its own loopback catcher; they
 * all store into the shared database, so /dev/mailbox sees every caught mail.
 */
export interface MailDelivery {
  worker: OutboxWorker;
  transport: MailTransport;
  catcher: MailCatcher | undefined;
  /** Workers first (finish or release within the deadline), then the transport, then the catcher. */
  stop(options?: { deadlineMs?: number }): Promise<StopResult>;
}

export interface MailDeliveryOptions {
  config: Config;
  db: Db;
  /** For the worker's LISTEN connection. */
  connectionString: string;
  concurrency: number;
  clock?: Clock;
  log?: OutboxWorkerOptions['log'];
  /** Overrides for tests and the benchmark. */
  worker?: Partial<Omit<OutboxWorkerOptions, 'db' | 'transport' | 'concurrency'>>;
}

export async function startMailDelivery(options: MailDeliveryOptions): Promise<MailDelivery> {
  const { config, db } = options;
  const log = options.log ?? (() => undefined);
  const leaseMs = options.worker?.leaseMs ?? config.mailLeaseSeconds * 1000;
  const catcher = config.smtpUrl
    ? undefined
    : await startMailCatcher({ db, clock: options.clock, log: (m) => log('info', m) });
  const transport = createSmtpTransport({
    url: config.smtpUrl ?? catcher!.url,
    mailFrom: config.mailFrom,
    maxConnections: options.concurrency,
    timeouts: scaleTimeouts(config.smtpTimeoutScale),
  });
  const worker = new OutboxWorker({
    db,
    transport,
    concurrency: options.concurrency,
    clock: options.clock,
    listenConnectionString: options.connectionString,
    log,
    ...options.worker,
    leaseMs,
  });
  worker.start();

  let stopping: Promise<StopResult> | undefined;
  return {
    worker,
    transport,
    catcher,
    stop: ({ deadlineMs = 10_000 } = {}) =>
      (stopping ??= (async () => {
        try {
          return await worker.stop({ deadlineMs });
        } finally {
          transport.close();
          await catcher?.stop();
        }
      })()),
  };
}
