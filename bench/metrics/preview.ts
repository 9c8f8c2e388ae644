import { simpleParser } from 'mailparser';
import { SmtpSink } from '../../tests/support/smtp-sink.ts';
import { createUser } from '../../tests/support/users.ts';
import { startChildServer } from '../support/child-server.ts';
import { percentile } from '../support/load.ts';
import { fromRuns, percentileOfRounds, type BenchContext, type MetricResults } from '../support/metric.ts';

/**
 * The one door (docs/architecture.md §9), with the app (`src/server/main.ts`) in its own process and
 * a loopback SMTP sink:
 * - preview_p95_ms: POST /api/email/preview of a 100 KB newsletter with Inline CSS, one request at a
 *   time, after 20 to warm up (the transform processes start on the first): the p95 of 200
 *   requests, three times; the median round with the rounds' spread (the p95 of all 600 is logged);
 * - me_p99_during_previews_ms: what everyone else gets while the transforms are busy: GET
 *   /api/auth/me one at a time (5 ms apart) while four connections keep previewing that email, three
 *   rounds of 5 s: the median round's p99, with their spread (the previews/s are logged). It is the
 *   figure behind the transform processes' niceness (docs/decisions/0050-transform-process-pool.md);
 * - preview_vs_send_bytes_identical: 1 when a preview and a real send of the same body agree —
 *   HTML part, text part and subject as the sink decodes them, the delivered size equal to
 *   `bytes.message`, and message.eml equal to the delivered bytes — for four bodies (the last an
 *   MJML navbar and carousel); else 0.
 */
const MAIL_FROM = 'Proofmail <no-reply@proofmail.test>';
const ROUNDS = 3;
const REQUESTS = 200;
const FLOOD_CONNECTIONS = 4;
const FLOOD_ROUND_MS = 5_000;

/** About 100 KB: 120 rules in a <style> block, media queries, client hacks, 230 stories. */
function newsletter(): string {
  const rules = Array.from(
    { length: 120 },
    (_, i) =>
      `.s${i % 12} td.c${i} p, .s${i % 12} .c${i} a { color: #${((i * 7919) % 4096).toString(16).padStart(3, '0')}; padding: ${i % 9}px }`,
  );
  const head = `<style>#outlook a { padding: 0 } .ExternalClass { width: 100% } ${rules.join('\n')}
    @media (max-width: 600px) { .s0 { width: 100% !important } }</style>`;
  let body = '';
  for (let n = 0; body.length < 88 * 1024; n++) {
    body += `<table class="s${n % 12}" width="600"><tr><td class="c${n % 120}"><p>Story ${n}: a paragraph of newsletter text with <a class="c${(n + 1) % 120}" href="https://example.com/${n}">a link</a>, and more words to read.</p></td></tr></table>\n`;
  }
  return `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;
}

export default async function preview(ctx: BenchContext): Promise<MetricResults> {
  const sink = await SmtpSink.start();
  const pg = await ctx.postgres();
  const database = await pg.createDatabase();
  const app = await startChildServer('main', {
    DATABASE_URL: database.url,
    SMTP_URL: sink.url,
    MAIL_FROM,
    MAIL_WORKERS: '2',
    PREVIEWS_PER_MINUTE: '100000',
    PRO_SENDS_PER_MINUTE: '100000',
  });
  try {
    const user = await createUser(database.db, { plan: 'pro' });
    const headers = { ...user.headers, 'content-type': 'application/json' };
    const post = (path: string, body: object) =>
      fetch(`${app.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });

    // 1. Latency of a 100 KB preview with inlining.
    const html = newsletter();
    const body = { to: 'client@example.com', subject: 'Bench', html, inlineCss: true };
    ctx.log(`HTML ${(Buffer.byteLength(html) / 1024).toFixed(1)} KB, Inline CSS on`);
    for (let i = 0; i < 20; i++) {
      const res = await post('/api/email/preview', body);
      if (res.status !== 200) throw new Error(`preview warm-up: ${res.status} ${await res.text()}`);
    }
    const all: number[] = [];
    const p95s: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const t = performance.now();
        const res = await post('/api/email/preview', body);
        await res.arrayBuffer();
        times.push(performance.now() - t);
        if (res.status !== 200) throw new Error(`preview: ${res.status}`);
      }
      all.push(...times);
      p95s.push(percentile(times, 95));
      ctx.log(
        `round ${round}: preview p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`,
      );
    }
    ctx.log(
      `all ${all.length}: p50 ${percentile(all, 50).toFixed(1)} ms, p95 ${percentile(all, 95).toFixed(1)} ms`,
    );

    // 2. Another request's latency while previews keep every transform process busy.
    const others: number[][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      let flooding = true;
      let previews = 0;
      const flooders = Array.from({ length: FLOOD_CONNECTIONS }, async () => {
        while (flooding) {
          const res = await post('/api/email/preview', body);
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`preview under load: ${res.status}`);
          previews++;
        }
      });
      const times: number[] = [];
      const started = performance.now();
      try {
        while (performance.now() - started < FLOOD_ROUND_MS) {
          const t = performance.now();
          const res = await fetch(`${app.url}/api/auth/me`, { headers: user.headers });
          await res.arrayBuffer();
          times.push(performance.now() - t);
          if (res.status !== 200) throw new Error(`/api/auth/me under load: ${res.status}`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      } finally {
        flooding = false;
        await Promise.all(flooders);
      }
      others.push(times);
      ctx.log(
        `round ${round}: ${((previews * 1000) / FLOOD_ROUND_MS).toFixed(1)} previews/s; /api/auth/me beside them: ${times.length} requests, p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`,
      );
    }

    // 3. A preview against what a send really delivers.
    const bodies = [
      body,
      { to: 'client@example.com', subject: 'Plain ✓', html: '<p>Grüße\r\naus Zürich</p>', inlineCss: false },
      {
        to: 'client@example.com',
        html: '<style>p{color:red}</style><p>x</p>',
        inlineCss: true,
        text: 'My own text',
      },
      {
        to: 'client@example.com',
        subject: 'MJML',
        format: 'mjml',
        inlineCss: false,
        // MJML gives a navbar's hamburger and a carousel ids of its own drawing (src/server/prepare/mjml.ts).
        html: `<mjml><mj-body><mj-section><mj-column>
          <mj-navbar hamburger="hamburger"><mj-navbar-link href="https://example.com/a">A</mj-navbar-link></mj-navbar>
          <mj-carousel><mj-carousel-image src="https://example.com/1.jpg" /><mj-carousel-image src="https://example.com/2.jpg" /></mj-carousel>
        </mj-column></mj-section></mj-body></mjml>`,
      },
    ];
    const lf = (s: string | false | undefined) => (typeof s === 'string' ? s.replace(/\r\n/g, '\n') : s);
    let identical = true;
    for (const b of bodies) {
      const shown = (await (await post('/api/email/preview', b)).json()) as {
        html: string;
        text: string;
        subject: string;
        bytes: { message: number };
      };
      const sent = await post('/api/email/send', b);
      if (sent.status !== 200) throw new Error(`send: ${sent.status}`);
      const { id } = (await sent.json()) as { id: string };
      const row = await database.db
        .selectFrom('mail_outbox')
        .select('message_id')
        .where('email_id', '=', id)
        .executeTakeFirstOrThrow();
      await sink.waitUntil(() => sink.byMessageId(row.message_id).length > 0, 60_000, 'the sent mail');
      const raw = sink.byMessageId(row.message_id)[0]!.raw;
      const parsed = await simpleParser(raw);
      const eml = Buffer.from(
        await (await fetch(`${app.url}/api/email/${id}/message.eml`, { headers })).arrayBuffer(),
      );
      const same =
        lf(parsed.html) === shown.html &&
        lf(parsed.text) === shown.text &&
        parsed.subject === shown.subject &&
        raw.length === shown.bytes.message &&
        eml.equals(raw);
      ctx.log(
        `${same ? 'identical' : 'DIFFERENT'}: ${raw.length} bytes delivered, ${shown.bytes.message} previewed`,
      );
      identical &&= same;
    }
    return {
      preview_p95_ms: fromRuns(p95s, 'ms', 1),
      me_p99_during_previews_ms: percentileOfRounds(others, 99),
      preview_vs_send_bytes_identical: { value: identical ? 1 : 0, unit: 'bool' },
    };
  } finally {
    await app.stop();
    await sink.stop();
    await database.drop();
  }
}
