import { sql } from 'kysely';
import nodemailer from 'nodemailer';
import { performance as perf } from 'node:perf_hooks';
import { loadConfig } from '../../src/server/config.ts';
import type { Db } from '../../src/server/db/database.ts';
import { startMailDelivery } from '../../src/server/mail/mail-delivery.ts';
import { enqueueMail, type OutgoingMail } from '../../src/server/mail/outbox.ts';
import { parseMailbox } from '../../src/server/mail/message.ts';
import { textFromHtml } from '../../src/server/mail/text-part.ts';
import { poll } from '../../tests/support/poll.ts';
import { SmtpSink } from '../../tests/support/smtp-sink.ts';
import { fromRuns, type BenchContext, type MetricResults } from '../support/metric.ts';

/**
 * Mail throughput: the whole pipeline (enqueue in PostgreSQL → worker claims → pooled SMTP →
 * recorded as sent) against nodemailer's pooled transport sending the same mails straight to the
 * same loopback sink. Same concurrency (4, the MAIL_WORKERS default) and connection pool on both
 * sides; 2,000 mails of ~20 KB per round; medians of 5 rounds after a warm-up (the ratio is the
 * median of the per-round ratios).
 */

const MAILS = 2_000;
const ROUNDS = 5;
const CONCURRENCY = 4;
/** Concurrent "requests" enqueueing, each mail in its own transaction as a send request would. */
const ENQUEUERS = 8;
const MAIL_FROM = 'Proofmail <no-reply@proofmail.test>';

/** A newsletter-like HTML mail of about 20 KB (tables, inline styles, links, images). */
function newsletterHtml(): string {
  const block = (i: number) => `
    <tr><td style="padding:16px 24px;border-bottom:1px solid #e5e7eb;font-family:Arial,Helvetica,sans-serif">
      <table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr>
        <td width="120" valign="top"><img src="https://cdn.example.com/products/${i}.jpg" width="120" height="90" alt="Product ${i}" style="display:block;border-radius:6px"></td>
        <td valign="top" style="padding-left:16px">
          <h2 style="margin:0 0 6px;font-size:18px;line-height:24px;color:#111827">Spring collection, item ${i}</h2>
          <p style="margin:0 0 10px;font-size:14px;line-height:21px;color:#4b5563">Hand-finished, made to last, and shipped free this week only.
          Each piece is checked twice before it leaves the workshop, and every order includes a care guide.</p>
          <a href="https://shop.example.com/items/${i}?utm_source=newsletter&amp;utm_medium=email" style="display:inline-block;padding:8px 14px;background:#4f46e5;color:#ffffff;text-decoration:none;border-radius:4px;font-size:14px">Shop item ${i}</a>
        </td></tr></table>
    </td></tr>`;
  let body = '';
  for (let i = 1; body.length < 14_000; i++) body += block(i);
  return `<!doctype html><html><head><meta charset="utf-8"><title>Spring news</title>
<style>@media (prefers-color-scheme: dark){.card{background:#111827!important}}</style></head>
<body style="margin:0;padding:0;background:#f3f4f6">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f3f4f6"><tr><td align="center">
<table role="presentation" class="card" width="600" cellpadding="0" cellspacing="0" style="background:#ffffff;margin:24px 0;border-radius:8px">
<tr><td style="padding:24px;font-family:Arial,Helvetica,sans-serif"><h1 style="margin:0;font-size:26px;color:#111827">Spring news</h1></td></tr>
${body}
<tr><td style="padding:24px;font-size:12px;color:#6b7280;font-family:Arial,Helvetica,sans-serif">You receive this because you subscribed. <a href="https://shop.example.com/unsubscribe">Unsubscribe</a></td></tr>
</table></td></tr></table></body></html>`;
}

export default async function mailPipeline(ctx: BenchContext): Promise<MetricResults> {
  const html = newsletterHtml();
  const text = textFromHtml(html);
  const mailOf = (round: string, i: number): OutgoingMail => ({
    priority: 'free',
    to: [`reader${i}@example.com`],
    replyTo: 'designer@example.com',
    subject: `Spring news ${round}-${i}`,
    html,
    text,
  });
  ctx.log(
    `message: ${((html.length + text.length) / 1024).toFixed(1)} KB of HTML + text, ${MAILS} mails per round`,
  );

  const sink = await SmtpSink.start({ keepRaw: false });
  const pg = await ctx.postgres();
  const database = await pg.createDatabase();
  const db: Db = database.db;
  const config = loadConfig({
    DATABASE_URL: database.url,
    SMTP_URL: sink.url,
    MAIL_FROM,
    MAIL_WORKERS: String(CONCURRENCY),
  });

  /** Outside the timed window: the previous phase's dirty pages are flushed now, not during the next. */
  const settle = async () => {
    await sql`truncate mail_outbox`.execute(db);
    await sql`checkpoint`.execute(db);
  };

  const raw = async (round: string, n: number): Promise<number> => {
    await settle();
    sink.clear();
    const from = parseMailbox(MAIL_FROM);
    const transporter = nodemailer.createTransport({
      pool: true,
      url: sink.url,
      maxConnections: CONCURRENCY,
      maxMessages: 500,
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
    });
    const elu0 = perf.eventLoopUtilization();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: n }, (_, i) => {
        const m = mailOf(round, i);
        return transporter.sendMail({
          from,
          to: m.to.map((address) => ({ name: '', address })),
          replyTo: { name: '', address: m.replyTo! },
          envelope: { from: from.address, to: m.to.map((address) => ({ name: '', address })) },
          subject: m.subject,
          messageId: `<raw-${round}-${i}@proofmail.test>`,
          text: m.text,
          html: m.html,
          xMailer: false,
        });
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (process.env.BENCH_VERBOSE)
      ctx.log(
        `raw ${round}: event loop ${(perf.eventLoopUtilization(elu0).utilization * 100).toFixed(0)}% busy`,
      );
    transporter.close();
    if (sink.messages.length !== n) throw new Error(`raw: the sink got ${sink.messages.length} of ${n}`);
    return n / seconds;
  };

  const pipeline = async (round: string, n: number): Promise<number> => {
    await settle();
    sink.clear();
    const delivery = await startMailDelivery({
      config,
      db,
      connectionString: database.url,
      concurrency: CONCURRENCY,
    });
    try {
      const elu0 = perf.eventLoopUtilization();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: ENQUEUERS }, async () => {
          while (next < n) {
            const i = next++;
            await enqueueMail(db, mailOf(round, i), { messageIdDomain: 'proofmail.test' });
          }
        }),
      );
      const enqueued = performance.now();
      await sink.waitForCount(n, 300_000);
      const delivered = performance.now();
      await poll(
        async () => {
          const r = await db
            .selectFrom('mail_outbox')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('state', '=', 'sent')
            .executeTakeFirstOrThrow();
          return Number(r.n) === n;
        },
        { timeoutMs: 60_000, intervalMs: 5, what: 'every mail recorded as sent' },
      );
      const seconds = (performance.now() - started) / 1000;
      if (sink.messages.length !== n)
        throw new Error(`pipeline: the sink got ${sink.messages.length} of ${n}`);
      if (process.env.BENCH_VERBOSE) {
        ctx.log(
          `pipeline ${round}: all enqueued at ${((enqueued - started) / 1000).toFixed(2)} s, ` +
            `delivered at ${((delivered - started) / 1000).toFixed(2)} s, recorded at ${seconds.toFixed(2)} s, ` +
            `event loop ${(perf.eventLoopUtilization(elu0).utilization * 100).toFixed(0)}% busy`,
        );
      }
      return n / seconds;
    } finally {
      await delivery.stop({ deadlineMs: 5_000 });
    }
  };

  try {
    await raw('warmup', 200);
    ctx.log(
      `on the wire: ${(sink.bytes / sink.messages.length / 1024).toFixed(1)} KB per message (MIME, quoted-printable)`,
    );
    await pipeline('warmup', 200);
    const raws: number[] = [];
    const pipes: number[] = [];
    const ratios: number[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      // Both runs of a round back to back, alternating which goes first, so a change in machine
      // load hits both sides of the ratio alike.
      let rawRate: number;
      let pipeRate: number;
      if (r % 2 === 1) {
        rawRate = await raw(`r${r}`, MAILS);
        pipeRate = await pipeline(`r${r}`, MAILS);
      } else {
        pipeRate = await pipeline(`r${r}`, MAILS);
        rawRate = await raw(`r${r}`, MAILS);
      }
      raws.push(rawRate);
      pipes.push(pipeRate);
      ratios.push(pipeRate / rawRate);
      ctx.log(
        `round ${r}: raw ${rawRate.toFixed(0)} mails/s, pipeline ${pipeRate.toFixed(0)} mails/s, ratio ${(pipeRate / rawRate).toFixed(2)}`,
      );
    }
    return {
      pipeline_mails_per_s: fromRuns(pipes, 'mails/s'),
      raw_smtp_mails_per_s: fromRuns(raws, 'mails/s'),
      pipeline_vs_raw: fromRuns(ratios, 'ratio', 2),
    };
  } finally {
    await sink.stop();
    await database.drop();
  }
}
