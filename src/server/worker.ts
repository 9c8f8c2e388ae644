import { configOrExit } from './config.ts';
import { openDatabase } from './db/database.ts';
import { startHousekeeping } from './housekeeping/housekeeping.ts';
import { startMailDelivery } from './mail/mail-delivery.ts';

/**
 * `npm run worker [-- --concurrency N]`: mail delivery workers alone, no HTTP. Run several, on
 * several machines, against one external PostgreSQL (DATABASE_URL); they share the outbox
 * through row claims. Concurrency: --concurrency, else MAIL_WORKERS, else 4 (MAIL_WORKERS=0 is
 * what the web process gets when delivery is left to this command). Each also takes its turn at
 * the housekeeping job (one process at a time runs it).
 */

function concurrencyArg(argv: string[]): number | undefined {
  const i = argv.findIndex((a) => a === '--concurrency' || a.startsWith('--concurrency='));
  if (i === -1) return undefined;
  const raw = argv[i]!.includes('=') ? argv[i]!.split('=')[1] : argv[i + 1];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) {
    console.error(`--concurrency must be a whole number from 1 to 64 (got "${raw ?? ''}")`);
    process.exit(1);
  }
  return n;
}

function stamp(level: string, message: string): string {
  return `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${message}`;
}

async function main(): Promise<void> {
  const config = configOrExit();
  const concurrency =
    concurrencyArg(process.argv.slice(2)) ?? (config.mailWorkers > 0 ? config.mailWorkers : 4);
  const log = (level: 'info' | 'warn' | 'error', message: string) =>
    (level === 'info' ? console.log : console.error)(stamp(level, message));
  const database = await openDatabase(config, { log: (line) => log('info', line) });
  const mail = await startMailDelivery({
    config,
    db: database.db,
    connectionString: database.connectionString,
    concurrency,
    log,
  }).catch(async (err: unknown) => {
    await database.close();
    throw err;
  });
  const housekeeping = startHousekeeping({ db: database.db, log });

  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    console.log(stamp('info', `${signal}: finishing in-flight mail`));
    const force = setTimeout(() => {
      console.error(stamp('error', 'Shutdown took too long; exiting.'));
      process.exit(1);
    }, 30_000);
    force.unref();
    try {
      const [{ finished, released }] = await Promise.all([
        mail.stop({ deadlineMs: 10_000 }),
        housekeeping.stop(),
      ]);
      console.log(stamp('info', `stopped: ${finished} finished, ${released} handed back to the queue`));
    } finally {
      await database.close();
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  console.log(
    stamp(
      'info',
      `Proofmail mail worker ${mail.worker.workerId} delivering with concurrency ${concurrency} ` +
        `(${config.smtpUrl ? 'SMTP relay' : `local mail catcher ${mail.catcher!.url}`}, ` +
        `${database.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'external PostgreSQL'})`,
    ),
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
