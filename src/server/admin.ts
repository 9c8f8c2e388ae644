import { PLANS, type Plan } from '../shared/plans.ts';
import {
  endsAtPeriodEnd,
  isLiveStatus,
  operatorPlanState,
  type PlanState,
} from './accounts/effective-plan.ts';
import { deleteAccount, findUserByEmail, markVerified, setPlan } from './accounts/users.repo.ts';
import { systemClock } from './clock.ts';
import { ConfigError, loadConfig, loadEnvFile, type Config } from './config.ts';
import { createDb, createPool, openDatabase, type Db } from './db/database.ts';
import type { Executor } from './db/executor.ts';
import { runningEmbeddedConnectionString } from './db/embedded-postgres.ts';
import { migrateToLatest } from './db/migrate.ts';

/**
 * Operator commands (`npm run admin -- <command>`), on the same configuration as the server:
 * DATABASE_URL, or the embedded PostgreSQL in DATA_DIR. When the server is running it owns the
 * embedded database, so we connect to that running instance instead of starting our own.
 */

const USAGE = `Usage: npm run admin -- <command>

Commands:
  set-plan EMAIL pro|free   Set an account's plan (for installations without Stripe billing)
  verify EMAIL              Mark an account's email address as verified
  delete-account EMAIL --yes
                            Delete an account and everything in it (its emails, their
                            deliveries and share links, reviews, sessions, API keys)
  help                      Show this help

Uses the same configuration as the server (the environment, then .env):
DATABASE_URL, or the embedded database in DATA_DIR, whether or not the
server is running.`;

class UsageError extends Error {}

interface Connection {
  db: Db;
  close: () => Promise<void>;
}

async function connect(config: Config): Promise<Connection> {
  const url = config.databaseUrl ?? (await runningEmbeddedConnectionString(config.dataDir)); // a running server's
  if (url) {
    const pool = createPool(url, 2);
    const db = createDb(pool);
    try {
      await migrateToLatest(db); // a no-op when the server already migrated
    } catch (err) {
      await db.destroy();
      throw err;
    }
    return { db, close: () => db.destroy() };
  }
  // No server running: start the embedded database for the duration of the command.
  const opened = await openDatabase(config, { log: (line) => console.error(line) });
  return { db: opened.db, close: opened.close };
}

/** The account's plan and the subscription Stripe last reported, as billing stored them. */
async function billingOf(
  db: Executor,
  userId: string,
): Promise<PlanState & { subscriptionId: string | null }> {
  const row = await db
    .selectFrom('users')
    .select([
      'plan',
      'subscription_status',
      'stripe_subscription_id',
      'cancel_at_period_end',
      'current_period_end',
    ])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return {
    plan: row.plan,
    subscriptionStatus: row.subscription_status,
    subscriptionId: row.stripe_subscription_id,
    cancelAtPeriodEnd: row.cancel_at_period_end,
    currentPeriodEnd: row.current_period_end,
  };
}

/** A subscription Stripe still bills: live, and not cancelled with its period over. */
function stillBilled(billing: PlanState & { subscriptionId: string | null }, now: Date): boolean {
  const ended = endsAtPeriodEnd(billing) && billing.currentPeriodEnd.getTime() <= now.getTime();
  return billing.subscriptionId !== null && isLiveStatus(billing.subscriptionStatus) && !ended;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

/**
 * set-plan: the operator's word wins (docs/decisions/0017-billing-off.md). Pro over a subscription
 * cancelled at its period end also records that subscription as over, or the period-end rule
 * (src/server/accounts/effective-plan.ts) would end the grant with it, or ignore it once ended.
 */
async function setPlanCommand(
  db: Db,
  email: string,
  plan: Plan,
  now: Date,
  billingOn: boolean,
  out: (line: string) => void,
): Promise<number> {
  const changed = await db.transaction().execute(async (trx) => {
    const found = await findUserByEmail(trx, email);
    if (!found) return undefined;
    const before = await billingOf(trx, found.id);
    const after = operatorPlanState(before, plan);
    if (
      after.subscriptionStatus !== before.subscriptionStatus ||
      after.cancelAtPeriodEnd !== before.cancelAtPeriodEnd
    )
      await trx
        .updateTable('users')
        .set({ subscription_status: after.subscriptionStatus, cancel_at_period_end: after.cancelAtPeriodEnd })
        .where('id', '=', found.id)
        .execute();
    const user = await setPlan(trx, email, plan, now);
    return user && { user, before, after };
  });
  if (!changed) {
    console.error(`No account with the email ${email}.`);
    return 1;
  }
  const { user, before, after } = changed;
  out(`The plan of ${user.email} is now ${plan}.`);
  if (endsAtPeriodEnd(before) && !endsAtPeriodEnd(after)) {
    const end = before.currentPeriodEnd;
    out(
      `Its Stripe subscription was cancelled and ${end.getTime() <= now.getTime() ? 'ended' : 'ends'} on ${day(end)}; Pro is granted now and does not end with it.`,
    );
  } else if (billingOn && stillBilled(before, now)) {
    out(
      plan === 'free'
        ? `Note: ${user.email} has a live Stripe subscription, so its next Stripe event makes the plan pro again: cancel the subscription in Stripe to end Pro.`
        : `Note: ${user.email} pays for Pro through a live Stripe subscription; should it end, Pro ends with it unless you grant it again.`,
    );
  }
  return 0;
}

async function run(args: string[], out: (line: string) => void): Promise<number> {
  const [command, ...rest] = args;
  if (!command || ['help', '--help', '-h'].includes(command)) {
    out(USAGE);
    return command ? 0 : 2;
  }
  if (!['set-plan', 'verify', 'delete-account'].includes(command))
    throw new UsageError(`Unknown command "${command}".`);
  const email = rest[0]?.trim();
  if (!email) throw new UsageError(`${command} needs an EMAIL.`);
  let plan: Plan | undefined;
  if (command === 'set-plan') {
    const wanted = rest[1]?.trim().toLowerCase();
    if (!wanted || !(PLANS as readonly string[]).includes(wanted)) {
      throw new UsageError(`set-plan needs a plan: ${PLANS.join(' or ')}.`);
    }
    plan = wanted as Plan;
  }
  if (command === 'delete-account' && rest[1] !== undefined && rest[1] !== '--yes')
    throw new UsageError(`Unknown option "${rest[1]}": delete-account takes --yes.`);
  if (rest.length > (command === 'verify' ? 1 : 2)) throw new UsageError('Too many arguments.');

  loadEnvFile();
  const config = loadConfig();
  const connection = await connect(config);
  try {
    const now = systemClock.now();
    if (plan) return await setPlanCommand(connection.db, email, plan, now, Boolean(config.stripe), out);
    const user = await findUserByEmail(connection.db, email);
    if (!user) {
      console.error(`No account with the email ${email}.`);
      return 1;
    }
    if (command === 'delete-account') {
      // Stripe would keep billing an account that no longer exists: whatever the plan says (an
      // operator's set-plan free leaves the subscription as it is), a subscription Stripe still
      // reports live, and not cancelled with its period over, is refused.
      if (stillBilled(await billingOf(connection.db, user.id), now)) {
        console.error(
          `${user.email} has a live Stripe subscription: cancel it in Stripe first, then delete the account.`,
        );
        return 1;
      }
      if (rest[1] !== '--yes') {
        out(`This deletes ${user.email} and everything in it, for good. Run it again with --yes to do so.`);
        return 2;
      }
      const deleted = await deleteAccount(connection.db, user.id);
      out(
        `Deleted ${user.email}: ${deleted.emails} email${deleted.emails === 1 ? '' : 's'} and everything else in the account.`,
      );
      return 0;
    }
    if (user.verified) {
      out(`${user.email} was already verified.`);
      return 0;
    }
    await markVerified(connection.db, user.id, now);
    out(`${user.email} is now verified.`);
    return 0;
  } finally {
    await connection.close();
  }
}

run(process.argv.slice(2), (line) => console.log(line))
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    console.error(err instanceof ConfigError || err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
