import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSessionCache } from './accounts/session-cache.ts';
import { createSessionResolver } from './accounts/sessions.ts';
import { buildApp } from './app.ts';
import { systemClock } from './clock.ts';
import { configOrExit, defaultPublicUrl, isLoopbackHost } from './config.ts';
import { openDatabase } from './db/database.ts';
import { startHousekeeping } from './housekeeping/housekeeping.ts';
import { handoffSlot } from './mail/handoff.ts';
import { startMailDelivery, type MailDelivery } from './mail/mail-delivery.ts';

/**
 * loadConfig → openDatabase → buildApp → listen, with mail delivery and the housekeeping job
 * beside it; stops in reverse order on SIGINT/SIGTERM.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const webRoot = path.resolve(here, '../../dist/web');

async function main(): Promise<void> {
  const config = configOrExit();
  const log = (line: string) => console.log(line);
  const database = await openDatabase(config, { log });
  // One LISTEN connection per process keeps the session cache true (src/server/accounts/session-cache.ts).
  const sessionCache = startSessionCache({
    connectionString: database.connectionString,
    log: (message) => console.warn(message),
  });
  const sessions = createSessionResolver({ db: database.db, clock: systemClock, cache: sessionCache });
  // Sends hand their mail to this process's worker once it runs (src/server/mail/handoff.ts).
  const mailHandoff = handoffSlot();
  const app = await buildApp({
    config,
    db: database.db,
    webRoot,
    mailCatcher: !config.smtpUrl,
    sessions,
    mailHandoff,
  });
  app.addHook('onClose', () => sessionCache.close());
  // Delivery workers (and, without SMTP_URL, the local catcher) run here unless MAIL_WORKERS=0.
  let mail: MailDelivery | undefined;
  try {
    mail =
      config.mailWorkers > 0
        ? await startMailDelivery({
            config,
            db: database.db,
            connectionString: database.connectionString,
            concurrency: config.mailWorkers,
            log: (level, message) => app.log[level](message),
          })
        : undefined;
  } catch (err) {
    await database.close();
    throw err;
  }
  mailHandoff.attach(mail?.worker);

  const housekeeping = startHousekeeping({
    db: database.db,
    log: (level, message) => app.log[level](message),
  });
  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      console.error('Shutdown took too long; exiting.');
      process.exit(1);
    }, 30_000);
    force.unref();
    try {
      // HTTP stops accepting while workers finish or hand back their mail; then the catcher.
      await Promise.all([app.close(), mail?.stop({ deadlineMs: 10_000 }), housekeeping.stop()]);
    } finally {
      await database.close(); // pool, then the embedded server
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await Promise.all([mail?.stop({ deadlineMs: 2_000 }), housekeeping.stop()]);
    await database.close();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (config.publicUrlDerived && port !== config.port) {
    // PORT=0: the system chose the port; links must name it. Nobody can have reached the server
    // before this line (its port was unknown), so no mail carries the old value.
    config.publicUrl = defaultPublicUrl(config.host, port) ?? config.publicUrl;
  }
  console.log(
    `Proofmail is running at ${config.publicUrl} (listening on ${config.host}:${port}, ` +
      `${database.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'external PostgreSQL'})`,
  );
  // HOST=0.0.0.0 or :: without PUBLIC_URL: reachable from other machines, but the links say localhost.
  if (
    config.publicUrlDerived &&
    !isLoopbackHost(config.host) &&
    new URL(config.publicUrl).hostname === 'localhost'
  ) {
    console.log(
      `PUBLIC_URL is not set, so it is taken to be ${config.publicUrl}: links in mail work on this ` +
        'machine only, and requests naming any other host are refused (421). Set PUBLIC_URL to the ' +
        'address people open.',
    );
  }
  if (!config.smtpUrl) {
    console.log(
      config.devMailbox
        ? `No SMTP_URL: mail is caught locally, not delivered. Read it at ${config.publicUrl}/dev/mailbox ` +
            '(from this machine only)'
        : 'No SMTP_URL: mail is caught locally, not delivered, and the mailbox page is off (it opens ' +
            'when PUBLIC_URL is a loopback address or DEV_MAILBOX=on). Set SMTP_URL to deliver mail.',
    );
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
