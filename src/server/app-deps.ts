import type Stripe from 'stripe';
import type { AccountEvents } from './accounts/account-events.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { ConnectionTurns } from './db/connection-turns.ts';
import type { Db } from './db/database.ts';
import type { SessionResolver } from './http/auth.ts';
import type { MailHandoff } from './mail/handoff.ts';
import type { Egress } from './net/egress.ts';
import type { TransformPool } from './prepare/transform-pool.ts';
import type { Renderer } from './render/renderer.ts';

/**
 * What buildApp is given, and what it hands each feature. Its own module so that features
 * depend on these types, never on app.ts (which imports every feature).
 */

/** Everything the app talks to is passed in (docs/architecture.md §1.6): buildApp reads no env, opens nothing. */
export interface AppDeps {
  config: Config;
  db: Db;
  clock?: Clock;
  /** Directory of the built SPA (dist/web); absent in API-only tests. */
  webRoot?: string;
  /** Where request logs go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  /** True when mail goes to the local catcher instead of a real relay. */
  mailCatcher?: boolean;
  /** The Stripe client; defaults to one built from config.stripe (none when billing is off). */
  stripe?: Stripe;
  /**
   * Which session a bearer token opens; defaults to the uncached database lookup of
   * src/server/accounts/sessions.ts (main.ts passes one with the per-process session cache).
   */
  sessions?: SessionResolver;
  /**
   * The processes every per-email transform runs in; defaults to a pool sized by config,
   * which the app closes when it closes (a pool passed in is the caller's to close).
   */
  transforms?: TransformPool;
  /**
   * Where a send hands the mail it stores to this process's own outbox worker
   * (src/server/mail/handoff.ts); absent: every send queues its mail for any worker.
   */
  mailHandoff?: MailHandoff;
  /** The egress guard the live link and image checks go out through; defaults to one built from config. */
  egress?: Egress;
  /**
   * The renderer (PNG, PDF, pixel diffs, thumbnails); defaults to one built from config, which the
   * app closes when it closes (one passed in is the caller's to close).
   */
  renderer?: Renderer;
}

/** AppDeps with their defaults filled in, as every feature's register function receives them. */
export type FeatureDeps = AppDeps & {
  clock: Clock;
  /** Account changes other features act on (src/server/accounts/account-events.ts). */
  accountEvents: AccountEvents;
  transforms: TransformPool;
  sessions: SessionResolver;
  egress: Egress;
  renderer: Renderer;
  /** Work that may hold a database connection for seconds takes turns (src/server/db/connection-turns.ts). */
  slowTurns: ConnectionTurns;
};
