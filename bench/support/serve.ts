// A server for load benchmarks, in its own process so the load generator (autocannon, in the
// bench process) does not share its event loop. `app`: the real app on DATABASE_URL (no mail
// workers); `full`: the app with its mail workers, as main.ts composes them, and an event-loop
// delay monitor it prints on SIGTERM; `hello`: an empty Fastify app. Prints "LISTENING <port>".
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startSessionCache } from '../../src/server/accounts/session-cache.ts';
import { createSessionResolver } from '../../src/server/accounts/sessions.ts';
import { systemClock } from '../../src/server/clock.ts';
import { handoffSlot } from '../../src/server/mail/handoff.ts';
import { startMailDelivery } from '../../src/server/mail/mail-delivery.ts';
import { buildApp } from '../../src/server/app.ts';
import { loadConfig } from '../../src/server/config.ts';
import { createDb, createPool } from '../../src/server/db/database.ts';

const kind = process.argv[2];
let address: AddressInfo;
if (kind === 'hello') {
  const hello = Fastify({ logger: false });
  hello.get('/', async () => ({ hello: 'world' }));
  await hello.listen({ host: '127.0.0.1', port: 0 });
  address = hello.server.address() as AddressInfo;
} else {
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const db = createDb(createPool(config.databaseUrl!, config.databasePoolSize));
  // The session cache as main.ts starts it (src/server/accounts/session-cache.ts).
  const cache = startSessionCache({ connectionString: config.databaseUrl! });
  const sessions = createSessionResolver({ db, clock: systemClock, cache });
  const mailHandoff = handoffSlot();
  const app = await buildApp({ config, db, sessions, mailHandoff });
  app.addHook('onClose', () => cache.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  address = app.server.address() as AddressInfo;
  if (kind === 'full') {
    const mail = await startMailDelivery({
      config,
      db,
      connectionString: config.databaseUrl!,
      concurrency: config.mailWorkers,
    });
    mailHandoff.attach(mail.worker);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    process.on('SIGTERM', () => {
      delay.disable();
      console.log(
        `EVENT_LOOP_DELAY p50=${delay.percentile(50) / 1e6} p99=${delay.percentile(99) / 1e6} max=${delay.max / 1e6}`,
      );
      void Promise.all([app.close(), mail.stop({ deadlineMs: 5_000 })]).finally(() => process.exit(0));
    });
  }
}
console.log(`LISTENING ${address.port}`);
