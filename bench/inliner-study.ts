import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/**
 * Compares CSS inliners on a directory of email templates and on pathological inputs
 * (docs/decisions/0051-css-inliner.md):
 *
 *   node --import tsx bench/inliner-study.ts <dir> [--timeout-ms 120000] [--json out.json]
 *
 * Engines: `juice` (juice 11 with the options Proofmail used until it switched) and `ours`
 * (src/server/prepare/inline-css.ts: @css-inline/css-inline behind our keep-rules wrapper).
 * Every run happens in a fresh child process that is killed after the timeout; a crash of an
 * inliner is reported as such. Nothing is fetched: both engines run with remote loading off.
 *
 * Per template it reports: time (median of 3 warm runs in one process), whether it threw, and what survived in the
 * `<style>` blocks: @import, @media, @font-face, client-hack selectors, `*` rules, pseudo rules;
 * whether the doctype and the fragment shape were kept; the sizes.
 */

const here = import.meta.dirname;
const OURS = path.join(here, '../src/server/prepare/inline-css.ts');

interface RunResult {
  /** Median of three warm runs (or the one cold run when that took over 2 s). */
  ms: number;
  coldMs?: number;
  error?: string;
  html?: string;
  timedOut?: boolean;
}

/**
 * Runs one engine on one input in a fresh child process, killed after `timeoutMs`: a native
 * inliner stuck in its own code cannot be stopped any other way (a worker thread's terminate()
 * waits for native code to return), and a crash takes only the child down.
 */
function runIsolated(engine: string, html: string, timeoutMs: number): Promise<RunResult> {
  const code = `
    const chunks = [];
    process.stdin.on('data', (c) => chunks.push(c));
    process.stdin.on('end', async () => {
      const html = Buffer.concat(chunks).toString('utf8');
      let inline;
      if (${JSON.stringify(engine)} === 'juice') {
        const juice = (await import('juice')).default;
        inline = (h) => juice(h, { preserveMediaQueries: true, preserveFontFaces: true, preserveKeyFrames: true,
          preservePseudos: true, preserveImportant: true, applyWidthAttributes: true, applyHeightAttributes: true,
          resolveCSSVariables: true });
      } else {
        const mod = await import(${JSON.stringify(pathToFileURL(OURS).href)});
        inline = (h) => mod.inlineCss(h).html;
      }
      // A cold first run; when it is quick, three warm runs and their median.
      const times = [];
      let out;
      for (let i = 0; i < 4; i++) {
        const t = performance.now();
        try {
          out = { html: inline(html) };
        } catch (e) {
          out = { error: String((e && e.message) || e).split('\\n')[0].slice(0, 160) };
        }
        times.push(performance.now() - t);
        if (out.error || times[0] > 2000) break;
      }
      const warm = times.length > 1 ? times.slice(1).sort((a, b) => a - b)[1] : times[0];
      process.stdout.write(JSON.stringify({ ms: warm, coldMs: times[0], ...out }));
    });`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: path.join(here, '..'),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL')
        return resolve({ ms: timeoutMs, timedOut: true, error: `killed after ${timeoutMs / 1000} s` });
      try {
        resolve(JSON.parse(out) as RunResult);
      } catch {
        resolve({
          ms: 0,
          error: `process died (${signal ?? `exit ${code}`}): ${err.trim().split('\n').pop() ?? ''}`.slice(
            0,
            160,
          ),
        });
      }
    });
    child.stdin.end(html);
  });
}

const STYLE = /<style\b([^>]*)>([\s\S]*?)<\/style\s*>/gi;
const HACK =
  /#outlook\b|\.ExternalClass|x-apple-data-detectors|#MessageViewBody|u\s*\+\s*\.body|u\s*~\s*div|\.a6S|\[owa\]|data-ogs[cb]|\.yshortcuts|\.ReadMsgBody|\bspan\.MsoHyperlink|\.im\b/i;

/** Counts what a template's `<style>` blocks hold (data-embed blocks left out). */
function census(html: string) {
  let css = '';
  for (const m of html.matchAll(STYLE)) if (!/data-embed/i.test(m[1] ?? '')) css += `${m[2]}\n`;
  css = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const selectors = [...css.matchAll(/([^{}@;]+)\{/g)].flatMap((m) => m[1]!.split(',').map((s) => s.trim()));
  return {
    import: (css.match(/@import\b/gi) ?? []).length,
    media: (css.match(/@media\b/gi) ?? []).length,
    fontFace: (css.match(/@font-face\b/gi) ?? []).length,
    hacks: selectors.filter((s) => HACK.test(s)).length,
    universal: selectors.filter((s) => /(^|[\s>+~])\*/.test(s.replace(/\[[^\]]*\]/g, ''))).length,
    pseudo: selectors.filter((s) => /:(hover|focus|active|visited)|::?(before|after)/i.test(s)).length,
  };
}

const doctypeOf = (html: string) => /^\uFEFF?\s*(<!doctype[^>]*>)/i.exec(html)?.[1] ?? null;
const isDocument = (html: string) => /<(html|body)[\s>]/i.test(html);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Row {
  file: string;
  kb: number;
  source: ReturnType<typeof census>;
  engines: Record<
    string,
    {
      ms: number;
      coldMs?: number;
      error?: string;
      kept?: ReturnType<typeof census>;
      doctypeKept?: boolean;
      shapeKept?: boolean;
      outKb?: number;
    }
  >;
}

async function study(file: string, html: string, timeoutMs: number): Promise<Row> {
  const row: Row = { file, kb: Buffer.byteLength(html) / 1024, source: census(html), engines: {} };
  for (const engine of ['juice', 'ours']) {
    const r = await runIsolated(engine, html, timeoutMs);
    row.engines[engine] = r.error
      ? { ms: r.ms, error: r.error }
      : {
          ms: r.ms,
          coldMs: r.coldMs,
          kept: census(r.html!),
          doctypeKept: doctypeOf(r.html!) === doctypeOf(html),
          shapeKept: isDocument(r.html!) === isDocument(html),
          outKb: Buffer.byteLength(r.html!) / 1024,
        };
  }
  return row;
}

function listHtml(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.html?$/i.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** Inputs no template has but a user can paste: big, deep, quoted fonts, rules × elements. */
function pathological(corpus: string[]): { name: string; html: string }[] {
  const body = (html: string) => /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  const styles = (html: string) => [...html.matchAll(STYLE)].map((m) => m[0]).join('\n');
  // A long newsletter: a real template's body repeated to the size of the issue's cases.
  const base = corpus.find((h) => /<body/i.test(h) && /<style/i.test(h)) ?? corpus[0]!;
  const grow = (kb: number) => {
    let out = `<!DOCTYPE html><html><head>${styles(base)}</head><body>`;
    while (out.length < kb * 1024) out += body(base);
    return `${out}</body></html>`;
  };
  const rules = Array.from(
    { length: 3000 },
    (_, i) => `.c${i} td { color: #${(i % 4096).toString(16).padStart(3, '0')} }`,
  );
  const cells = Array.from({ length: 6000 }, (_, i) => `<tr><td class="c${i % 3000}">cell ${i}</td></tr>`);
  return [
    { name: 'newsletter 117 KB', html: grow(117) },
    { name: 'newsletter 236 KB', html: grow(236) },
    {
      name: 'quoted font in style attribute + <style>',
      html: '<style>p{color:red}</style><p style="font-family: &quot;Nunito Sans&quot;, Arial">x</p>',
    },
    {
      name: 'nesting 400 deep',
      html: `<style>div{color:red}</style>${'<div>'.repeat(400)}x${'</div>'.repeat(400)}`,
    },
    // Deeper than MAX_DOCUMENT_DEPTH: what the engines do without the depth check in front of them.
    {
      name: 'nesting 5,000 deep',
      html: `<style>div{color:red}</style>${'<div>'.repeat(5000)}x${'</div>'.repeat(5000)}`,
    },
    {
      name: '3,000 rules × 6,000 cells (every rule matches every cell)',
      html: `<style>${rules.join('\n')}</style><table class="${Array.from({ length: 3000 }, (_, i) => `c${i}`).join(' ')}">${cells.join('')}</table>`,
    },
  ];
}

function fmtMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
}

function cell(row: Row, engine: string): string {
  const e = row.engines[engine]!;
  if (e.error) return `✗ ${e.error}`;
  const k = e.kept!;
  const s = row.source;
  const lost = [
    k.import < s.import ? `@import ${k.import}/${s.import}` : '',
    k.media < s.media ? `@media ${k.media}/${s.media}` : '',
    k.fontFace < s.fontFace ? `@font-face ${k.fontFace}/${s.fontFace}` : '',
    k.hacks < s.hacks ? `hacks ${k.hacks}/${s.hacks}` : '',
    k.universal < s.universal ? `* ${k.universal}/${s.universal}` : '',
    k.pseudo < s.pseudo ? `pseudo ${k.pseudo}/${s.pseudo}` : '',
    e.doctypeKept ? '' : 'doctype changed',
    e.shapeKept ? '' : 'fragment wrapped',
  ].filter(Boolean);
  return `${fmtMs(e.ms)}${lost.length ? ` — ${lost.join(', ')}` : ''}`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith('--'));
  if (!dir) {
    console.error('usage: node --import tsx bench/inliner-study.ts <dir> [--timeout-ms N] [--json file]');
    process.exit(2);
  }
  const opt = (name: string) => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args[i + 1];
  };
  const timeoutMs = Number(opt('--timeout-ms') ?? 120_000);
  const files = listHtml(dir);
  const corpus = files.map((f) => fs.readFileSync(f, 'utf8'));
  console.log(
    `${files.length} templates in ${dir}; ${os.availableParallelism()} cores, load ${os.loadavg()[0]!.toFixed(2)}`,
  );

  const rows: Row[] = [];
  for (const [i, file] of files.entries()) {
    rows.push(await study(path.relative(dir, file), corpus[i]!, timeoutMs));
    process.stderr.write('.');
  }
  for (const p of pathological(corpus)) {
    rows.push(await study(`(pathological) ${p.name}`, p.html, timeoutMs));
    process.stderr.write('+');
  }
  process.stderr.write('\n');

  console.log('\n| template | KB | juice | ours |\n|---|---:|---|---|');
  for (const r of rows)
    console.log(`| ${r.file} | ${r.kb.toFixed(1)} | ${cell(r, 'juice')} | ${cell(r, 'ours')} |`);

  const real = rows.filter((r) => !r.file.startsWith('(pathological)'));
  for (const engine of ['juice', 'ours']) {
    const ok = real.filter((r) => !r.engines[engine]!.error);
    const sum = (f: (c: ReturnType<typeof census>) => number, of: 'source' | 'kept') =>
      ok.reduce((n, r) => n + f(of === 'source' ? r.source : r.engines[engine]!.kept!), 0);
    const times = ok.map((r) => r.engines[engine]!.ms);
    console.log(
      `\n${engine}: ${ok.length}/${real.length} without error; median ${fmtMs(median(times))}, worst ${fmtMs(Math.max(...times))}; ` +
        `kept @import ${sum((c) => c.import, 'kept')}/${sum((c) => c.import, 'source')}, ` +
        `@media ${sum((c) => c.media, 'kept')}/${sum((c) => c.media, 'source')}, ` +
        `client hacks ${sum((c) => c.hacks, 'kept')}/${sum((c) => c.hacks, 'source')}, ` +
        `* rules ${sum((c) => c.universal, 'kept')}/${sum((c) => c.universal, 'source')}, ` +
        `pseudo ${sum((c) => c.pseudo, 'kept')}/${sum((c) => c.pseudo, 'source')}; ` +
        `doctype kept ${ok.filter((r) => r.engines[engine]!.doctypeKept).length}/${ok.length}, ` +
        `shape kept ${ok.filter((r) => r.engines[engine]!.shapeKept).length}/${ok.length}`,
    );
  }
  const json = opt('--json');
  if (json) fs.writeFileSync(json, JSON.stringify(rows, null, 2));
}

await main();
