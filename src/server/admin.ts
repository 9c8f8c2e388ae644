import { PLANS, type Plan } from '../shared/plans.ts';
import { findUserByEmail, markVerified, setPlan } from './accounts/users.repo.ts';
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
  if (command !== 'set-plan' && command !== 'verify') throw new UsageError(`Unknown command "${command}".`);
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
  if (rest.length > (command === 'set-plan' ? 2 : 1)) throw new UsageError('Too many arguments.');

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
