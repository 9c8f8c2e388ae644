import { createTransformPool } from '../../src/server/prepare/transform-pool.ts';
import { percentile } from '../support/load.ts';
import { percentileOfRounds, type BenchContext, type MetricResults } from '../support/metric.ts';

/**
 * prepare_mjml_p95_ms: the one door (src/server/prepare/prepare.ts) on the transform pool, as a
 * preview or send runs it, for the MJML source of an email of about 100 KB as sent, with Liquid
 * merge tags and Inline CSS: fill the tags → compile the MJML → depth → inline → text part → measure
 * the message. One job at a time, three rounds of 100 jobs after 10 to warm up (the first starts the
 * process), the median round's p95 with their spread.
 * Target ≤ 150 ms. MJML's tables multiply the size by about eight: the source is about 13 KB; a
 * 100 KB MJML source (an 840 KB email) takes about ten times as long
 * (docs/decisions/0067-mjml-in-the-transform-pool.md).
 */

const DATA = {
  reader: { first_name: 'Ada' },
  brand: '#1d4ed8',
  site: 'https://example.com',
  issue: { number: 42, date: 'March 2026' },
};

/** MJML for about 100 KB of HTML: a head with styles to inline, then two-column stories with tags. */
function newsletterMjml(): string {
  const rules = Array.from(
    { length: 60 },
    (_, i) => `.s${i} { color: #${((i * 7919) % 4096).toString(16).padStart(3, '0')}; padding: ${i % 9}px }`,
  ).join('\n');
  const head = `<mj-head>
  <mj-title>Issue {{ issue.number }}</mj-title>
  <mj-attributes><mj-all font-family="Helvetica, Arial, sans-serif" /><mj-text font-size="14px" line-height="21px" /></mj-attributes>
  <mj-style>${rules}
  @media (max-width: 480px) { .s0 { width: 100% !important } }</mj-style>
</mj-head>`;
  let sections = '';
  for (let n = 0; sections.length < 11 * 1024; n++) {
    const story = (k: number) =>
      `<mj-column width="50%"><mj-text css-class="s${k % 60}" color="{{ brand }}">Story ${k} for {{ reader.first_name }}: a paragraph of newsletter text, with more words to read and a line about what comes next.</mj-text><mj-button href="{{ site }}/stories/${k}?issue={{ issue.number }}">Read More</mj-button></mj-column>`;
    sections += `<mj-section>${story(2 * n)}${story(2 * n + 1)}</mj-section>\n`;
  }
  return `<mjml>\n${head}\n<mj-body width="600px">\n${sections}</mj-body>\n</mjml>\n`;
}

export default async function prepareMjml(ctx: BenchContext): Promise<MetricResults> {
  const pool = createTransformPool({ processes: 1, budgetMs: 30_000 });
  try {
    const html = newsletterMjml();
    ctx.log(`MJML source ${(Buffer.byteLength(html) / 1024).toFixed(1)} KB, Liquid tags, Inline CSS on`);
    const run = () =>
      pool.prepare(
        {
          html,
          subject: 'Bench',
          inlineCss: true,
          text: null,
          format: 'mjml',
          template: { syntax: 'liquid', data: DATA },
        },
        {
          from: 'Proofmail <no-reply@proofmail.test>',
          to: 'client@example.com',
          replyTo: null,
          messageIdDomain: 'proofmail.test',
          date: new Date('2026-03-15T12:00:00Z'),
        },
      );
    const first = await run();
    if (first.notes.unfilled.length > 0) throw new Error(`unfilled: ${first.notes.unfilled.join(', ')}`);
    ctx.log(
      `HTML as sent ${(first.bytes.html / 1024).toFixed(1)} KB, ${first.notes.keptInStyle} rules kept in <style>`,
    );
    for (let i = 0; i < 9; i++) await run();
    const rounds: number[][] = [];
    for (let round = 1; round <= 3; round++) {
      const times: number[] = [];
      for (let i = 0; i < 100; i++) {
        const t = performance.now();
        await run();
        times.push(performance.now() - t);
      }
      rounds.push(times);
      ctx.log(
        `round ${round}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`,
      );
    }
    return { prepare_mjml_p95_ms: percentileOfRounds(rounds, 95) };
  } finally {
    await pool.close();
  }
}
