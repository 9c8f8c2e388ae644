import { SmtpSink } from '../../tests/support/smtp-sink.ts';
import { createUser } from '../../tests/support/users.ts';
import { startChildServer } from '../support/child-server.ts';
import { hammer } from '../support/load.ts';
import { fromRuns, type BenchContext, type MetricResults } from '../support/metric.ts';

/**
 * What one app process and two app processes (src/server/main.ts, 4 mail workers each, session
 * cache on) handle on one PostgreSQL (the bench's embedded server, durable settings), for
 * docs/scaling.md: authenticated GET /api/auth/me (20 connections) and sends accepted
 * (POST /api/email/send, 16 connections over 16 Pro users, 10 KB of HTML), each load spread
 * evenly over the processes. Three rounds of 4 s per figure; medians with their spread. On a
 * machine with few cores the processes share them with PostgreSQL and the load generator, so
 * the second process shows what the database lets through, not a doubling.
 */
const HTML = `<!doctype html><html><body><table width="600">${'<tr><td style="padding:16px;font-family:Arial;color:#333">Spring collection: hand-finished, made to last, and shipped free this week only. Every piece is checked twice.</td></tr>'.repeat(60)}</table></body></html>`;

export default async function scale(ctx: BenchContext): Promise<MetricResults> {
  const sink = await SmtpSink.start({ keepRaw: false });
  const pg = await ctx.postgres();
  const database = await pg.createDatabase();
  const env = {
    DATABASE_URL: database.url,
    SMTP_URL: sink.url,
    MAIL_WORKERS: '4',
    PRO_MONTHLY_LIMIT: '10000000',
    PRO_SENDS_PER_MINUTE: '10000000',
  };
  const apps = [await startChildServer('main', env)];
  try {
    const users = await Promise.all(
      Array.from({ length: 16 }, () => createUser(database.db, { plan: 'pro' })),
    );
    const me = (urls: string[], seconds: number) =>
      Promise.all(
        urls.map((url, i) =>
          hammer({
            url: `${url}/api/auth/me`,
            headers: users[i]!.headers,
            connections: 20 / urls.length,
            seconds,
          }),
        ),
      );
    const sends = (urls: string[], seconds: number) =>
      Promise.all(
        urls.map((url, p) =>
          hammer({
            url: `${url}/api/email/send`,
            connections: 16 / urls.length,
            seconds,
            requests: users
              .filter((_, i) => i % urls.length === p)
              .map((u, i) => ({
                method: 'POST' as const,
                path: '/api/email/send',
                headers: { ...u.headers, 'content-type': 'application/json' },
                body: JSON.stringify({ to: 'client@example.com', subject: `Scale ${i}`, html: HTML }),
              })),
          }),
        ),
      );
    const measure = async (label: string) => {
      const urls = apps.map((a) => a.url);
      await me(urls, 1);
      await sends(urls, 1);
      const meRates: number[] = [];
      const sendRates: number[] = [];
      for (let r = 0; r < 3; r++) {
        const a = await me(urls, 4);
        const b = await sends(urls, 4);
        for (const x of [...a, ...b])
          if (x.errors || x.non2xx) throw new Error(`${label}: ${x.errors} errors, ${x.non2xx} non-2xx`);
        meRates.push(a.reduce((s, x) => s + x.perSecond, 0));
        sendRates.push(b.reduce((s, x) => s + x.perSecond, 0));
      }
      ctx.log(
        `${label}: /api/auth/me ${meRates.map((x) => x.toFixed(0)).join(', ')} req/s; ` +
          `sends accepted ${sendRates.map((x) => x.toFixed(0)).join(', ')} /s`,
      );
      return { me: fromRuns(meRates, 'req/s'), send: fromRuns(sendRates, 'req/s') };
    };
    const one = await measure('1 process');
    apps.push(await startChildServer('main', env));
    const two = await measure('2 processes');
    return {
      scale_1_process_me_per_s: one.me,
      scale_1_process_send_accept_per_s: one.send,
      scale_2_processes_me_per_s: two.me,
      scale_2_processes_send_accept_per_s: two.send,
    };
  } finally {
    await Promise.all(apps.map((a) => a.stop()));
    await sink.stop();
    await database.drop();
  }
}
