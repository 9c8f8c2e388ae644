import autocannon from 'autocannon';
import { hashPassword } from '../../src/server/accounts/credentials.ts';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { SmtpSink } from '../../tests/support/smtp-sink.ts';
import { createUser } from '../../tests/support/users.ts';
import { startChildServer } from '../support/child-server.ts';
import type { BenchContext, MetricResults } from '../support/metric.ts';
import { rssMb } from '../support/process-tree.ts';

/**
 * `npm run bench -- soak`: a mixed workload for SOAK_SECONDS (default 600) against the app with
 * its mail workers (own process, loopback SMTP sink): sign-in, send, history, search and the
 * public view, in that rotation on every connection. Pass criteria, checked here: no errors and
 * no non-2xx answers, every accepted send delivered (none lost), resident memory growth under
 * 10 % from the end of the warm-up to the end; the event-loop delay p99 is reported.
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const WARMUP_SECONDS = Math.min(30, Math.max(5, Math.floor(SECONDS / 10)));
const PASSWORD = 'soak-test-password-1';

export default async function soak(ctx: BenchContext): Promise<MetricResults> {
  const sink = await SmtpSink.start({ keepRaw: false });
  const pg = await ctx.postgres();
  const database = await pg.createDatabase();
  const app = await startChildServer('full', {
    DATABASE_URL: database.url,
    SMTP_URL: sink.url,
    MAIL_WORKERS: '4',
    PRO_MONTHLY_LIMIT: '100000000',
    PRO_SENDS_PER_MINUTE: '100000000',
  });
  try {
    const pro = await createUser(database.db, { plan: 'pro' });
    await database.db
      .updateTable('users')
      .set({ password_hash: await hashPassword(PASSWORD) })
      .where('id', '=', pro.user.id)
      .execute();
    for (let i = 0; i < 200; i++) {
      await insertEmail(database.db, {
        userId: pro.user.id,
        to: `client${i}@example.com`,
        subject: `Seed ${i} ${i % 10 === 0 ? 'quarterly' : 'weekly'} report`,
        html: `<p>Seed email ${i}</p>`,
        inlineCss: false,
        createdAt: new Date(Date.now() - i * 60_000),
      });
    }
    const slug = 'soakpublicslug00000000000';
    const shared = await database.db
      .selectFrom('emails')
      .select('id')
      .where('user_id', '=', pro.user.id)
      .limit(1)
      .executeTakeFirstOrThrow();
    // A public link of the email's thread (migration 0018: links live in email_shares).
    await database.db
      .insertInto('email_shares')
      .values({ thread_id: shared.id, user_id: pro.user.id, slug, created_at: new Date() })
      .execute();

    const auth = { ...pro.headers, 'content-type': 'application/json' };
    let accepted = 0;
    const statuses = new Map<string, number>();
    const count = (name: string) => (status: number) => {
      const key = `${name} ${status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (name === 'send' && status === 200) accepted++;
    };
    const requests: autocannon.Request[] = [
      {
        method: 'POST',
        path: '/api/auth/signin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: pro.user.email, password: PASSWORD }),
        onResponse: count('signin'),
      },
      {
        method: 'POST',
        path: '/api/email/send',
        headers: auth,
        body: JSON.stringify({
          to: 'client@example.com',
          subject: 'Soak',
          html: '<table><tr><td style="color:#333">Soak test mail</td></tr></table>',
        }),
        onResponse: count('send'),
      },
      { method: 'GET', path: '/api/email?limit=20', headers: pro.headers, onResponse: count('history') },
      {
        method: 'GET',
        path: '/api/email?limit=20&q=quarterly',
        headers: pro.headers,
        onResponse: count('search'),
      },
      { method: 'GET', path: `/api/email/public/${slug}`, onResponse: count('public') },
    ];
    const run = (seconds: number) =>
      autocannon({ url: app.url, connections: 8, duration: seconds, requests });

    ctx.log(`warm-up ${WARMUP_SECONDS} s, then ${SECONDS} s of mixed load`);
    await run(WARMUP_SECONDS);
    const rssStart = rssMb(app.pid);
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssMb(app.pid)), 5_000);
    const result = await run(SECONDS);
    clearInterval(sampler);
    const rssEnd = rssMb(app.pid);
    // Server-side truth: every committed send has an outbox row (autocannon drops the answers of
    // requests still in flight when a run ends, so its count can be a few short).
    const outbox = await database.db.selectFrom('mail_outbox').select(['message_id', 'state']).execute();
    await sink.waitForCount(outbox.length, 300_000).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 2_000));
    const received = new Set(sink.messages.map((m) => m.messageId));
    const delivered = outbox.filter((r) => received.has(r.message_id)).length;
    const duplicates = sink.messages.length - received.size;
    accepted = Math.max(accepted, outbox.length);

    const stopped = new Promise<string>((resolve) => {
      let out = '';
      app.child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('EVENT_LOOP_DELAY')) resolve(out);
      });
      setTimeout(() => resolve(out), 10_000);
    });
    await app.stop();
    const eld = /p99=([\d.]+)/.exec(await stopped);
    const growth = ((rssEnd - rssStart) / rssStart) * 100;
    const non2xx = [...statuses.entries()].filter(([k]) => !k.endsWith(' 200'));
    ctx.log(`requests: ${[...statuses.entries()].map(([k, v]) => `${k}: ${v}`).join(', ')}`);
    ctx.log(
      `RSS ${rssStart.toFixed(0)} → ${rssEnd.toFixed(0)} MiB (samples ${samples.map((s) => s.toFixed(0)).join(' ')})`,
    );
    const lost = accepted - delivered;
    const verdicts = [
      [result.errors + result.timeouts === 0, `errors ${result.errors + result.timeouts}`],
      [non2xx.length === 0, `non-2xx ${non2xx.map(([k, v]) => `${k}×${v}`).join(', ') || 0}`],
      [lost === 0, `accepted sends ${accepted}, delivered ${delivered}, duplicates ${duplicates}`],
      [growth < 10, `RSS growth ${growth.toFixed(1)} %`],
    ] as const;
    for (const [ok, what] of verdicts) ctx.log(`${ok ? '✓' : '✗'} ${what}`);
    return {
      soak_seconds: { value: SECONDS, unit: 's' },
      soak_requests_per_s: { value: Math.round(result.requests.average), unit: 'req/s' },
      soak_errors: {
        value: result.errors + result.timeouts + non2xx.reduce((a, [, v]) => a + v, 0),
        unit: 'count',
      },
      soak_lost_sends: { value: lost, unit: 'count' },
      soak_rss_growth_pct: { value: Math.round(growth * 10) / 10, unit: '%' },
      soak_event_loop_delay_p99_ms: { value: eld ? Math.round(Number(eld[1]) * 10) / 10 : NaN, unit: 'ms' },
      soak_p99_latency_ms: { value: result.latency.p99, unit: 'ms' },
    };
  } finally {
    await app.stop();
    await sink.stop();
    await database.drop();
  }
}
