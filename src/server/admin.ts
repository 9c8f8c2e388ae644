import { PLANS, type Plan } from '../shared/plans.ts';
import { isLiveStatus } from './accounts/effective-plan.ts';
import { deleteAccount, findUserByEmail, markVerified, setPlan } from './accounts/users.repo.ts';
import { systemClock } from './clock.ts';
import { ConfigError, loadConfig, loadEnvFile, type Config } from './config.ts';
import { createDb, createPool, openDatabase, type Db } from './db/database.ts';
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
    if (plan) {
      const user = await setPlan(connection.db, email, plan, now);
      if (!user) {
        console.error(`No account with the email ${email}.`);
        return 1;
      }
      out(`The plan of ${user.email} is now ${user.plan}.`);
      if (config.stripe) out('Note: billing is on, so Stripe events may change this plan again.');
      return 0;
    }
    const user = await findUserByEmail(connection.db, email);
    if (!user) {
      console.error(`No account with the email ${email}.`);
      return 1;
    }
    if (command === 'delete-account') {
      // Stripe would keep billing an account that no longer exists: whatever the plan says (an
      // operator's set-plan free leaves the subscription as it is), a subscription Stripe still
      // reports live, and not cancelled with its period over, is refused.
      const billing = await connection.db
        .selectFrom('users')
        .select(['stripe_subscription_id', 'cancel_at_period_end', 'current_period_end'])
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      const ended =
        billing.cancel_at_period_end &&
        billing.current_period_end !== null &&
        billing.current_period_end.getTime() <= now.getTime();
      if (billing.stripe_subscription_id !== null && isLiveStatus(user.subscriptionStatus) && !ended) {
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
