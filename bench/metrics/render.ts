import { diffLines, diffWords } from 'diff';
import { createEgress } from '../../src/server/net/egress.ts';
import { createTransformPool } from '../../src/server/prepare/transform-pool.ts';
import { createRenderer } from '../../src/server/render/renderer.ts';
import { percentile } from '../support/load.ts';
import { percentileOfRounds, type BenchContext, type MetricResults } from '../support/metric.ts';

/**
 * render_png_p95_ms: the renderer (src/server/render/renderer.ts) turns a 600 px wide, 3,000 px tall
 * email into a PNG in the system Chromium (already started). Target ≤ 2,000 ms.
 * diff_p95_ms: two versions of a 100 KB email compared as the compare screen and the pixel route
 * do: a line diff with word diffs inside changed lines of the two sources, both rendered at 600 px,
 * and the row-aligned pixel diff in the transform pool. Target ≤ 3,000 ms.
 * Three rounds of 20 runs each after 2 to warm up, the median round's p95 with their spread. Nothing
 * leaves the machine (the emails load no resources).
 */

function email(version: number): string {
  const rows: string[] = [];
  // About 100 KB of markup, 3,000 px tall: 60 rows of 50 px.
  for (let i = 0; i < 60; i++) {
    const words = `Row ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(3)}`;
    const text = version === 2 && i === 30 ? words.replace('lazy', 'sleepy') : words;
    rows.push(
      `<tr><td style="height:50px;padding:0 24px;font:14px/20px Arial,sans-serif;color:#333;` +
        `background:${i % 2 ? '#ffffff' : '#f6f7f9'}" data-row="${i}">${text}` +
        `<span style="display:none">${'&zwnj;'.repeat(240)}</span></td></tr>`,
    );
  }
  const banner =
    version === 2 ? '<tr><td style="height:120px;background:#ff8800;color:#fff">New banner</td></tr>' : '';
  return (
    '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">' +
    `<table width="600" cellpadding="0" cellspacing="0" style="border-collapse:collapse">${banner}${rows.join('\n')}</table></body></html>`
  );
}

export default async function render(ctx: BenchContext): Promise<MetricResults> {
  // Playwright's pipes to Chromium do not hold the event loop; the server's listening socket does.
  const keepAlive = setInterval(() => undefined, 1_000);
  const renderer = createRenderer({
    chromiumPath: process.env.CHROMIUM_PATH ?? null,
    searchPath: process.env.PATH ?? '',
    egress: createEgress(),
    pages: 2,
    budgetMs: 30_000,
  });
  const pool = createTransformPool({ processes: 1, budgetMs: 30_000 });
  try {
    if (!renderer.available) throw new Error(`renderer off: ${renderer.unavailableReason}`);
    const [v1, v2] = [email(1), email(2)];
    ctx.log(`email sizes: ${v1.length} and ${v2.length} bytes`);
    const renderPng = async (): Promise<number> => {
      const started = performance.now();
      const out = await renderer.render({
        html: v1,
        width: 600,
        mode: 'light',
        format: 'png',
        userId: 'bench',
      });
      if (out.height < 3000) throw new Error(`expected a 3,000 px render, got ${out.height}`);
      return performance.now() - started;
    };
    const compare = async (): Promise<number> => {
      const started = performance.now();
      const lines = diffLines(v1, v2);
      for (let i = 0; i < lines.length - 1; i++) {
        if (lines[i]!.removed && lines[i + 1]!.added) diffWords(lines[i]!.value, lines[i + 1]!.value);
      }
      const [left, right] = await Promise.all(
        [v1, v2].map((html) =>
          renderer.render({ html, width: 600, mode: 'light', format: 'png', userId: 'bench' }),
        ),
      );
      const result = await pool.pixelDiff(left!.body, right!.body);
      const elapsed = performance.now() - started;
      // The banner, then the changed word (and the rest of its wrapped line) in row 30 only.
      const [banner, ...changed] = result.regions;
      if (
        banner?.side !== 'right' ||
        banner.height !== 120 ||
        changed.some((r) => r.top < 1600 || r.top > 1700)
      ) {
        throw new Error(`unexpected regions: ${JSON.stringify(result.regions)}`);
      }
      return elapsed;
    };
    for (let run = 0; run < 2; run++) await renderPng();
    for (let run = 0; run < 2; run++) await compare();
    const png: number[][] = [];
    const diff: number[][] = [];
    for (let round = 1; round <= 3; round++) {
      const pngTimes: number[] = [];
      for (let run = 0; run < 20; run++) pngTimes.push(await renderPng());
      const diffTimes: number[] = [];
      for (let run = 0; run < 20; run++) diffTimes.push(await compare());
      png.push(pngTimes);
      diff.push(diffTimes);
      ctx.log(
        `round ${round}: render p50 ${percentile(pngTimes, 50).toFixed(0)} ms, p95 ${percentile(pngTimes, 95).toFixed(0)} ms; ` +
          `diff p50 ${percentile(diffTimes, 50).toFixed(0)} ms, p95 ${percentile(diffTimes, 95).toFixed(0)} ms`,
      );
    }
    return {
      render_png_p95_ms: percentileOfRounds(png, 95, 'ms', 0),
      diff_p95_ms: percentileOfRounds(diff, 95, 'ms', 0),
    };
  } finally {
    await renderer.close();
    await pool.close();
    clearInterval(keepAlive);
  }
}
