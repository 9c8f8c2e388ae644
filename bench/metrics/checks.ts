import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { runStaticChecks } from '../../src/server/checks/static-checks.ts';
import { textFromHtml } from '../../src/server/mail/text-part.ts';
import { DEFAULT_TARGET_CLIENTS } from '../../src/shared/contract/checks.ts';
import { percentileOfRounds, type BenchContext, type MetricResults } from '../support/metric.ts';

/**
 * checks_p95_ms: the static checks of the pre-send checklist (src/server/checks/static-checks.ts)
 * on a 100 KB email, as the transform process runs them after prepare: the well-built newsletter of
 * tests/fixtures/clean-emails with its stories repeated to 100 KB (ghost tables, media queries,
 * inline styles on every element, links and images). Three rounds of 200 runs after 20 to warm up, the
 * median round's p95 with their spread; target ≤ 100 ms.
 */
function email100k(): string {
  const file = path.join(import.meta.dirname, '../../tests/fixtures/clean-emails/newsletter.html');
  const html = fs.readFileSync(file, 'utf8');
  const start = html.indexOf('<tr>', html.indexOf('bgcolor="#ffffff"'));
  const end = html.indexOf('</table>', start);
  const rows = html.slice(start, end);
  let body = '';
  for (let n = 0; Buffer.byteLength(html) + body.length < 100 * 1024; n++)
    body += rows.replaceAll('/plants/', `/plants/${n}/`);
  return html.slice(0, end) + body + html.slice(end);
}

export default function checks(ctx: BenchContext): Promise<MetricResults> {
  const html = email100k();
  const input = {
    html,
    text: textFromHtml(html),
    subject: 'The Spring Garden Letter',
    bytes: { message: Buffer.byteLength(html) * 1.05 },
    headers: [],
  };
  ctx.log(`HTML ${(Buffer.byteLength(html) / 1024).toFixed(1)} KB`);
  for (let i = 0; i < 20; i++) runStaticChecks(input, DEFAULT_TARGET_CLIENTS);
  const rounds = Array.from({ length: 3 }, () => {
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      runStaticChecks(input, DEFAULT_TARGET_CLIENTS);
      times.push(performance.now() - started);
    }
    return times;
  });
  return Promise.resolve({ checks_p95_ms: percentileOfRounds(rounds, 95, 'ms', 2) });
}
