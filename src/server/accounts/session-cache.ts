import { startListener, type Listener } from '../db/listener.ts';
import type { LiveSession } from './sessions.repo.ts';

/**
 * The per-process session cache (docs/decisions/0070-session-cache.md): what the session lookup
 * (src/server/accounts/sessions.ts) read for a token hash, kept for a few seconds so an
 * authenticated request costs no database round trip.
 *
 * It is only ever used while this process LISTENs on SESSION_CHANNEL. Triggers (migration
 * 0014-session-notify) NOTIFY the user's id there whenever a session row is deleted (sign-out,
 * password change or reset, email change, housekeeping, account deletion by cascade) or a user
 * column the cached user carries changes (email, verification, plan and billing state, login
 * alerts, whether there is a password), whoever made the change: a route, the operator CLI, a
 * billing webhook in another process, or plain SQL. The notification arrives at every process
 * milliseconds after the commit and drops that user's entries. While the listener is down, the
 * cache is emptied and bypassed: every request reads the database, as it did without a cache.
 * "Down" includes a connection that accepts LISTEN but delivers nothing (a pooler in transaction
 * mode): the listener's heartbeat is a NOTIFY that must come back (src/server/db/listener.ts).
 *
 * A read that was in flight when an invalidation arrived could bring back the row as it was
 * before the change: `ticket()` is taken before the read, and `put` refuses the entry if any
 * invalidation (or a listener drop) happened since.
 */

/** The channel the triggers of src/server/db/migrations/0014-session-notify.ts notify. */
export const SESSION_CHANNEL = 'proofmail_sessions';

/** How long an entry is trusted without asking the database (see the decision record). */
export const SESSION_CACHE_TTL_MS = 10_000;
/** Entries kept at most; the least recently used go first. */
export const SESSION_CACHE_MAX_ENTRIES = 10_000;

export interface SessionCache {
  /** The session cached for this key and still fresh; undefined when absent or bypassed. */
  get(key: string): LiveSession | undefined;
  /** Taken before a database read; undefined while the cache is bypassed. */
  ticket(): number | undefined;
  /** Keeps what a read brought back, unless an invalidation came after its ticket. */
  put(key: string, session: LiveSession, ticket: number): void;
  /** Drops the key (an entry the caller found no longer live). */
  delete(key: string): void;
  /** Drops every entry of the user (this process's own change, or another's NOTIFY). */
  forgetUser(userId: string): void;
  /** True while the listener is connected and the cache is in use. */
  readonly active: boolean;
  readonly size: number;
  close(): Promise<void>;
}

export interface SessionCacheOptions {
  /** A direct (session-mode) connection string: LISTEN needs a connection of its own. */
  connectionString: string;
  ttlMs?: number;
  maxEntries?: number;
  log?: (message: string) => void;
  /** Monotonic milliseconds for the TTL; performance.now by default. */
  monotonicNow?: () => number;
  /** Listener reconnect and heartbeat timings (tests shorten them). */
  retryMs?: number;
  maxRetryMs?: number;
  heartbeatMs?: number;
}

interface Entry {
  session: LiveSession;
  freshUntil: number;
}

export function startSessionCache(options: SessionCacheOptions): SessionCache {
  const ttl = options.ttlMs ?? SESSION_CACHE_TTL_MS;
  const max = options.maxEntries ?? SESSION_CACHE_MAX_ENTRIES;
  const monotonic = options.monotonicNow ?? (() => performance.now());
  /** Insertion order is recency order: a hit moves its entry to the end. */
  const entries = new Map<string, Entry>();
  const byUser = new Map<string, Set<string>>();
  let generation = 0;
  let active = false;

  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    const keys = byUser.get(entry.session.user.id);
    keys?.delete(key);
    if (keys?.size === 0) byUser.delete(entry.session.user.id);
  };
  const clear = () => {
    generation += 1;
    entries.clear();
    byUser.clear();
  };
  const forgetUser = (userId: string) => {
    generation += 1;
    for (const key of byUser.get(userId) ?? []) entries.delete(key);
    byUser.delete(userId);
  };

  const listener: Listener = startListener({
    connectionString: options.connectionString,
    channel: SESSION_CHANNEL,
    applicationName: 'proofmail-session-listener',
    onNotification: (userId) => (userId ? forgetUser(userId) : clear()),
    onUp: () => {
      clear(); // anything cached before was not covered by notifications
      active = true;
    },
    onDown: () => {
      active = false;
      clear();
    },
    log: options.log,
    retryMs: options.retryMs,
    maxRetryMs: options.maxRetryMs,
    heartbeatMs: options.heartbeatMs ?? 5_000,
    echo: true, // a connection that accepts LISTEN but delivers nothing must not look up
  });

  return {
    get(key) {
      if (!active) return undefined;
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (monotonic() >= entry.freshUntil) {
        remove(key);
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      return entry.session;
    },
    ticket() {
      return active ? generation : undefined;
    },
    put(key, session, ticket) {
      if (!active || ticket !== generation) return;
      remove(key);
      entries.set(key, { session, freshUntil: monotonic() + ttl });
      const userId = session.user.id;
      let keys = byUser.get(userId);
      if (!keys) byUser.set(userId, (keys = new Set()));
      keys.add(key);
      while (entries.size > max) remove(entries.keys().next().value!);
    },
    delete: remove,
    forgetUser,
    get active() {
      return active && listener.connected;
    },
    get size() {
      return entries.size;
    },
    async close() {
      active = false;
      clear();
      await listener.stop();
    },
  };
}
