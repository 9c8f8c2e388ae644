import { poll } from '../../tests/support/poll.ts';
import { hammer } from '../support/load.ts';
import {
  fromRuns,
  inRounds,
  percentileOfRounds,
  type BenchContext,
  type MetricResults,
} from '../support/metric.ts';
import { SEND_HTML, startSendApp } from '../support/send-app.ts';

/**
 * Sending through the API, with the app (`src/server/main.ts`, 4 mail workers) in its own process and a
 * loopback SMTP sink:
 * - send_accept_per_s / send_accept_p99_ms: authenticated POST /api/email/send, concurrency 8
 *   (8 Pro users), 10 s (the app answers { id } once the email, usage and outbox rows are committed),
 *   three rounds, each after the outbox drained: the median round, with their spread;
 * - send_to_inbox_p50_ms / _p95_ms: accepted → fully received by the sink, at a steady 20 sends/s,
 *   300 sends: the median of three rounds of 100 consecutive sends, with their spread;
 * - send_vs_raw: 1,000 sends end to end (first request → last mail at the sink) per second,
 *   divided by nodemailer's pooled rate straight to the same sink (raw_smtp_send_mails_per_s);
 *   three rounds, each an end-to-end run and a raw run back to back (alternating which goes
 *   first); the median of the per-round ratios, with their spread.
 */
export default async function send(ctx: BenchContext): Promise<MetricResults> {
  const { sink, database, app, users, headersOf, sendAll, sendRaw, stop } = await startSendApp(ctx);
  /** Every queued mail delivered, so the next phase's sink counts only its own. */
  const drained = () =>
    poll(
      async () =>
        Number(
          (
            await database.db
              .selectFrom('mail_outbox')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('state', 'in', ['queued', 'sending', 'retry_wait'])
              .executeTakeFirstOrThrow()
          ).n,
        ) === 0,
      { timeoutMs: 600_000, intervalMs: 100, what: 'the outbox to drain' },
    );
  try {
    const headers = headersOf(0);
    const body = (i: number | string) =>
      JSON.stringify({ to: 'client@example.com', subject: `Bench ${i}`, html: SEND_HTML });
    ctx.log(`SEND_HTML ${(SEND_HTML.length / 1024).toFixed(1)} KB per send`);

    // 1. Acceptance rate (delivery runs in the background in the same app process).
    await hammer({
      url: `${app.url}/api/email/send`,
      method: 'POST',
      headers,
      body: body('warm'),
      seconds: 2,
      connections: 8,
    });
    const acceptRates: number[] = [];
    const acceptP99s: number[] = [];
    for (let round = 1; round <= 3; round++) {
      const accept = await hammer({
        url: `${app.url}/api/email/send`,
        connections: 8,
        seconds: 10,
        // Each connection cycles through the users' requests.
        requests: users.map((_, i) => ({
          method: 'POST' as const,
          path: '/api/email/send',
          headers: headersOf(i),
          body: body(`a${round}-${i}`),
        })),
      });
      if (accept.errors || accept.non2xx)
        throw new Error(`accept: ${accept.errors} errors, ${accept.non2xx} non-2xx`);
      acceptRates.push(accept.perSecond);
      acceptP99s.push(accept.p99);
      ctx.log(
        `round ${round}: accepted ${accept.total} sends, ${accept.perSecond.toFixed(0)}/s, p99 ${accept.p99} ms; waiting for delivery to drain`,
      );
      // Each round starts with an empty outbox, as the first did.
      await drained();
    }

    // 2. Latency to the inbox at a steady rate.
    sink.clear();
    const acceptedAt = new Map<string, number>();
    const RATE = 20;
    const N = 300;
    for (let i = 0; i < N; i++) {
      const due = performance.now() + 1000 / RATE;
      const res = await fetch(`${app.url}/api/email/send`, {
        method: 'POST',
        headers,
        body: body(`lat-${i}`),
      });
      if (res.status !== 200) throw new Error(`latency send: ${res.status}`);
      const { id } = (await res.json()) as { id: string };
      acceptedAt.set(id, Date.now());
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await sink.waitForCount(N, 120_000);
    const rows = await database.db
      .selectFrom('mail_outbox')
      .select(['email_id', 'message_id'])
      .where('email_id', 'in', [...acceptedAt.keys()])
      .execute();
    const received = new Map(sink.messages.map((m) => [m.messageId, m.receivedAt]));
    const messageIdOf = new Map(rows.map((r) => [r.email_id!, r.message_id]));
    // In the order sent, so that three rounds of consecutive sends give the figures' spread.
    const latencies = [...acceptedAt].map(([id, at]) => received.get(messageIdOf.get(id)!)! - at);
    if (latencies.some((l) => !Number.isFinite(l))) throw new Error('a latency mail was not received');
    const latencyRounds = inRounds(latencies);

    // 3. End-to-end throughput vs raw SMTP, same sink, same run, in alternating rounds.
    const E2E = 1000;
    const e2e = async (round: number): Promise<number> => {
      await drained();
      sink.clear();
      const started = performance.now();
      await sendAll(E2E, (i) => body(`e2e-${round}-${i}`));
      return E2E / ((performance.now() - started) / 1000);
    };
    const raw = (round: number): Promise<number> => sendRaw(E2E, String(round));
    const e2es: number[] = [];
    const raws: number[] = [];
    const ratios: number[] = [];
    for (let r = 1; r <= 3; r++) {
      // Back to back, alternating which goes first, so a change in load hits both sides alike.
      let e: number;
      let w: number;
      if (r % 2 === 1) {
        e = await e2e(r);
        w = await raw(r);
      } else {
        w = await raw(r);
        e = await e2e(r);
      }
      e2es.push(e);
      raws.push(w);
      ratios.push(e / w);
      ctx.log(
        `round ${r}: end to end ${e.toFixed(0)} mails/s, raw ${w.toFixed(0)} mails/s, ratio ${(e / w).toFixed(2)}`,
      );
    }
    return {
      send_accept_per_s: fromRuns(acceptRates, 'req/s'),
      send_accept_p99_ms: fromRuns(acceptP99s, 'ms'),
      send_to_inbox_p50_ms: percentileOfRounds(latencyRounds, 50, 'ms', 0),
      send_to_inbox_p95_ms: percentileOfRounds(latencyRounds, 95, 'ms', 0),
      send_e2e_mails_per_s: fromRuns(e2es, 'mails/s'),
      raw_smtp_send_mails_per_s: fromRuns(raws, 'mails/s'),
      send_vs_raw: fromRuns(ratios, 'ratio', 2),
    };
  } finally {
    await stop();
  }
}
