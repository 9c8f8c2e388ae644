import pg from 'pg';

/**
 * One dedicated connection that LISTENs on a PostgreSQL channel, shared by the outbox wake-ups
 * (src/server/mail/outbox-listener.ts) and the session cache invalidation
 * (src/server/accounts/session-cache.ts). It needs a real session connection: a pooler in
 * transaction mode (PgBouncer) does not deliver NOTIFY to it (docs/scaling.md).
 *
 * If the connection drops (database restart, network) it reconnects with backoff; `onDown` and
 * `onUp` tell the owner, since notifications sent meanwhile are lost. A heartbeat query every
 * `heartbeatMs` finds a connection that died without an error (a half-open TCP connection).
 */
export interface Listener {
  /** True while LISTEN is in force: every notification committed from now on arrives. */
  readonly connected: boolean;
  stop(): Promise<void>;
}

export interface ListenerOptions {
  connectionString: string;
  channel: string;
  /** Shown in pg_stat_activity.application_name. */
  applicationName: string;
  onNotification: (payload: string) => void;
  /** LISTEN is in force (first connect and every reconnect). */
  onUp?: () => void;
  /** The connection was lost; notifications may be missed until onUp. */
  onDown?: () => void;
  log?: (message: string) => void;
  /** First reconnect delay; doubles up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
  /** 0 (the default) sends no heartbeat. */
  heartbeatMs?: number;
}

export function startListener(options: ListenerOptions): Listener {
  const log = options.log ?? (() => undefined);
  const baseRetry = options.retryMs ?? 500;
  const maxRetry = options.maxRetryMs ?? 30_000;
  let retry = baseRetry;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
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
      application_name: options.applicationName,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
    });
    client = c;
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
      if (connected && !stopped)
        log(`${options.applicationName}: connection lost${err ? ` (${err.message})` : ''}; reconnecting`);
      const wasConnected = connected;
      connected = false;
      c.removeAllListeners('notification');
      c.end().catch(() => undefined);
      if (wasConnected && !stopped) options.onDown?.();
      scheduleReconnect();
    };
    c.on('error', onLost);
    c.on('end', () => onLost());
    c.on('notification', (msg) => {
      if (msg.channel === options.channel) options.onNotification(msg.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${options.channel}`);
      if (stopped || lost) {
        await c.end().catch(() => undefined);
        return;
      }
      connected = true;
      retry = baseRetry;
      if (options.heartbeatMs) {
        heartbeat = setInterval(() => {
          const deadline = setTimeout(() => onLost(new Error('heartbeat timed out')), options.heartbeatMs);
          c.query('select 1').then(
            () => clearTimeout(deadline),
            (err: Error) => {
              clearTimeout(deadline);
              onLost(err);
            },
          );
        }, options.heartbeatMs);
        heartbeat.unref();
      }
      options.onUp?.();
    } catch (err) {
      onLost(err as Error);
    }
  };

  void connect();

  return {
    get connected() {
      return connected;
    },
    async stop() {
      stopped = true;
      connected = false;
      if (timer) clearTimeout(timer);
      if (heartbeat) clearInterval(heartbeat);
      timer = undefined;
      heartbeat = undefined;
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners('notification');
        await c.end().catch(() => undefined);
      }
    },
  };
}
