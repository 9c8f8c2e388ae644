import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * One dedicated connection that LISTENs on a PostgreSQL channel, shared by the outbox wake-ups
 * (src/server/mail/outbox-listener.ts) and the session cache invalidation
 * (src/server/accounts/session-cache.ts). It needs a real session connection: a pooler in
 * transaction mode (PgBouncer) does not deliver NOTIFY to it (docs/scaling.md).
 *
 * If the connection drops (database restart, network) it reconnects with backoff; `onDown` and
 * `onUp` tell the owner, since notifications sent meanwhile are lost. A heartbeat every
 * `heartbeatMs` finds a connection that died without an error (a half-open TCP connection).
 *
 * With `echo`, the heartbeat is a NOTIFY of its own on the channel that must come back before
 * the next one, and LISTEN counts as in force only once the first has come back: a connection
 * that accepts LISTEN but never delivers (through a pooler in transaction mode) is treated as
 * down, never as a quiet channel.
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
  /** The heartbeat is a NOTIFY that must come back (see above); needs heartbeatMs. */
  echo?: boolean;
}

/** Payloads of echo heartbeats (every process's, on a shared channel): never passed on. */
const ECHO_PREFIX = '~echo:';

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
    let awaitedEcho: string | undefined;
    let echoed: (() => void) | undefined;
    c.on('notification', (msg) => {
      if (msg.channel !== options.channel) return;
      const payload = msg.payload ?? '';
      if (payload.startsWith(ECHO_PREFIX)) {
        if (payload === awaitedEcho) {
          awaitedEcho = undefined;
          echoed?.();
        }
        return;
      }
      options.onNotification(payload);
    });
    /** Sends an echo and resolves true if it comes back within heartbeatMs. */
    const echo = () =>
      new Promise<boolean>((resolve) => {
        const token = `${ECHO_PREFIX}${randomUUID()}`;
        awaitedEcho = token;
        const timer = setTimeout(() => {
          awaitedEcho = undefined;
          resolve(false);
        }, options.heartbeatMs);
        echoed = () => {
          clearTimeout(timer);
          resolve(true);
        };
        c.query('select pg_notify($1, $2)', [options.channel, token]).catch(() => {
          clearTimeout(timer);
          resolve(false);
        });
      });
    try {
      await c.connect();
      await c.query(`LISTEN ${options.channel}`);
      if (options.echo && !(await echo())) {
        log(
          `${options.applicationName}: LISTEN delivers nothing on this connection (a pooler in transaction mode? ` +
            'it needs a direct connection to PostgreSQL); retrying',
        );
        throw new Error('LISTEN delivers nothing on this connection');
      }
      if (stopped || lost) {
        await c.end().catch(() => undefined);
        return;
      }
      connected = true;
      retry = baseRetry;
      if (options.heartbeatMs) {
        heartbeat = setInterval(() => {
          if (options.echo) {
            if (awaitedEcho) return; // the previous one is still within its time
            void echo().then((ok) => ok || onLost(new Error('heartbeat did not come back')));
            return;
          }
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
