import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../../../tests/support/poll.ts';
import { DEFAULT_TARGET_CLIENTS } from '../../shared/contract/checks.ts';
import { BESIDE_FROM_CHARS } from './measure-beside.ts';
import { PrepareError } from './prepare.ts';
import { createTransformPool, TRANSFORM_SEMI_SPACE_MB, type TransformPool } from './transform-pool.ts';
import { runTask } from './transform-task.ts';

const envelope = {
  from: 'Proofmail <no-reply@proofmail.test>',
  to: 'client@example.com',
  replyTo: 'me@studio.example',
  messageIdDomain: 'proofmail.test',
  date: new Date('2026-03-15T12:00:00Z'),
};
const quick = {
  html: '<style>p { color: red }</style><p>Hi</p>',
  subject: 'Hi',
  inlineCss: true,
  text: null,
};
/** Every rule matches every cell through the table's classes: minutes of native inlining. */
function endless() {
  const rules = Array.from({ length: 3000 }, (_, i) => `.c${i} td { color: red }`);
  const cells = Array.from({ length: 6000 }, (_, i) => `<tr><td class="c${i % 3000}">${i}</td></tr>`);
  const classes = Array.from({ length: 3000 }, (_, i) => `c${i}`).join(' ');
  return {
    html: `<style>${rules.join('\n')}</style><table class="${classes}">${cells.join('')}</table>`,
    subject: 'x',
    inlineCss: true,
    text: null,
  };
}

/**
 * Transform processes this process had before the file began: in a test run they belong to the
 * apps of earlier test files of the same worker, which share them (tests/support/test-app.ts).
 */
let earlier = new Set<number>();
beforeAll(() => {
  earlier = new Set(childTransformProcesses());
});

/** This file's transform processes that are still alive. */
function transformProcesses(): number[] {
  return childTransformProcesses().filter((pid) => !earlier.has(pid));
}

/** This process's transform processes that are still alive. */
function childTransformProcesses(): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when nothing matches
  }
  return out
    .split('\n')
    .filter((line) => line.includes('transform-worker'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

async function rejection(promise: Promise<unknown>): Promise<PrepareError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PrepareError);
  return err as PrepareError;
}

/**
 * Jobs of named owners on `pool`, each recorded when it ends: its name, or its name and the code
 * it failed with, in the order they end.
 */
function recorder(pool: TransformPool) {
  const done: string[] = [];
  const job = (owner: string | undefined, name: string, input = quick) =>
    pool.prepare({ ...input, subject: name }, envelope, { owner }).then(
      () => done.push(name),
      (err: PrepareError) => done.push(`${name}: ${err.code}`),
    );
  return { done, job };
}

describe('transform pool', () => {
  let pool: TransformPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('prepares in another process', async () => {
    pool = createTransformPool({ processes: 1, budgetMs: 20_000 });
    const prepared = await pool.prepare(quick, envelope);
    expect(prepared.html).toBe('<p style="color: red;">Hi</p>');
    expect(transformProcesses()).toHaveLength(1);
  });

  it('a large message checked in a transform process is the one runTask makes in line', async () => {
    pool = createTransformPool({ processes: 1, budgetMs: 20_000 });
    // 32 KB and more: its text part and MIME message are made on the process's measuring thread
    // (measure-beside.ts) while the HTML is checked, once that thread is up.
    const stories = Array.from(
      { length: 400 },
      (_, n) =>
        `<table class="s${n % 3}"><tr><td><p>Story ${n}: <a href="https://example.com/${n}">more</a></p></td></tr></table>`,
    );
    const large = {
      html: `<style>.s1 p { color: #333 } @media (max-width: 600px) { .s0 { width: 100% } }</style>${stories.join('\n')}`,
      subject: 'Large',
      inlineCss: true,
      text: null,
    };
    expect(large.html.length).toBeGreaterThan(BESIDE_FROM_CHARS);
    const checks = { targetClients: [...DEFAULT_TARGET_CLIENTS], rawMessage: true, targets: true };
    const inLine = await runTask({
      input: large,
      envelope: { ...envelope, date: envelope.date.getTime() },
      checks,
    });
    expect(inLine.ok).toBe(true);
    const expected = structuredClone((inLine as { prepared: unknown }).prepared);
    // Jobs for a second and a half from the process's start: the thread is up well before the end.
    const started = Date.now();
    await poll(
      async () => {
        expect(await pool!.prepare(large, envelope, { checks })).toEqual(expected);
        return Date.now() - started > 1_500;
      },
      { intervalMs: 0, what: 'jobs for 1.5 s' },
    );
    // The pool gave its process the thread's entry, and the young generation large jobs need.
    const [pid] = transformProcesses();
    const args = execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
    expect(args).toMatch(/measure-thread-[0-9a-f]+\.mjs/);
    expect(args).toContain(`--max-semi-space-size=${TRANSFORM_SEMI_SPACE_MB} `);
  });

  it('kills a job over its budget, really: no process keeps working on it', async () => {
    pool = createTransformPool({ processes: 1, budgetMs: 1_500 });
    await pool.prepare(quick, envelope); // a ready process, so the budget counts the job only
    const started = Date.now();
    const err = await rejection(pool.prepare(endless(), envelope));
    expect(err.code).toBe('processing_timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    // SIGKILL is immediate, but the exit is reported asynchronously.
    for (let i = 0; i < 50 && transformProcesses().length > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(transformProcesses()).toEqual([]);
    // The next job gets a fresh process.
    expect((await pool.prepare(quick, envelope)).html).toContain('color: red');
  });

  it('counts a job’s budget from when its process has loaded what the job needs', async () => {
    // The stand-in takes 1.5 s to load and then answers at once; the budget is 0.5 s.
    const entry = fileURLToPath(
      new URL('../../../tests/support/fixtures/stand-in-transform.mjs', import.meta.url),
    );
    pool = createTransformPool({ processes: 1, budgetMs: 500, entry });
    // MJML jobs load the compiler first (job-loading.ts); the stand-in only pretends to.
    const mjml = { ...quick, format: 'mjml' as const };
    await expect(pool.prepare({ ...mjml, subject: 'slow load' }, envelope)).resolves.toMatchObject({
      subject: 'slow load',
    });
    // Once loaded, the budget holds: a job that never yields is stopped after it.
    const started = performance.now();
    expect((await rejection(pool.prepare({ ...mjml, subject: 'endless' }, envelope))).code).toBe(
      'processing_timeout',
    );
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('fails the job of a process that dies, and carries on', async () => {
    pool = createTransformPool({ processes: 1, budgetMs: 60_000 });
    await pool.prepare(quick, envelope);
    const job = pool.prepare(endless(), envelope);
    await new Promise((r) => setTimeout(r, 300));
    for (const pid of transformProcesses()) process.kill(pid, 'SIGKILL');
    const err = await rejection(job);
    expect(err.code).toBe('processing_failed');
    expect(err.message).toMatch(/stopped the process that handled it \(signal SIGKILL\)/);
    expect(err.message).not.toMatch(/merge tags/);
    expect((await pool.prepare(quick, envelope)).subject).toBe('Hi');
    // With merge tags, the likelier cause is named: a loop that made far too much (out of memory).
    const templated = pool.prepare({ ...endless(), template: { syntax: 'handlebars', data: {} } }, envelope);
    await new Promise((r) => setTimeout(r, 300));
    for (const pid of transformProcesses()) process.kill(pid, 'SIGKILL');
    expect((await rejection(templated)).message).toMatch(
      /\(signal SIGKILL\)\. Check its merge tags for a loop that makes far too much, send it without Inline CSS, or make it smaller\.$/,
    );
  });

  it('answers busy at once when the queue is full', async () => {
    pool = createTransformPool({ processes: 1, budgetMs: 60_000, maxQueue: 1 });
    await pool.prepare(quick, envelope);
    const running = rejection(pool.prepare(endless(), envelope));
    const queued = rejection(pool.prepare(quick, envelope));
    const err = await rejection(pool.prepare(quick, envelope));
    expect(err.code).toBe('busy');
    await pool.close();
    expect((await running).code).toBe('busy');
    expect((await queued).code).toBe('busy');
    expect(transformProcesses()).toEqual([]);
  });

  it('answers busy when a job waited too long for a process', async () => {
    pool = createTransformPool({ processes: 1, budgetMs: 60_000, maxWaitMs: 500 });
    await pool.prepare(quick, envelope);
    const running = rejection(pool.prepare(endless(), envelope));
    const err = await rejection(pool.prepare(quick, envelope));
    expect(err.code).toBe('busy');
    await pool.close();
    await running;
  });

  it("serves owners in turn: one owner's queued jobs do not go before another's", async () => {
    pool = createTransformPool({ processes: 1, budgetMs: 1_500 });
    await pool.prepare(quick, envelope);
    const { done, job } = recorder(pool);
    // The flood's first job holds the one process until its budget stops it; its others and the
    // other owner's wait. The other owner's goes next, then the flood's in turn with the third's.
    const jobs = [
      job('flood', 'f1', endless()),
      job('flood', 'f2'),
      job('flood', 'f3'),
      job('other', 'o1'),
      job('third', 't1'),
      job('flood', 'f4'),
      job('third', 't2'),
    ];
    await Promise.all(jobs);
    expect(done).toEqual(['f1: processing_timeout', 'o1', 't1', 'f2', 't2', 'f3', 'f4']);
  });

  it("refuses an owner's jobs past its share of the queue, and takes the others'", async () => {
    pool = createTransformPool({ processes: 1, budgetMs: 60_000, maxQueuedPerOwner: 2 });
    await pool.prepare(quick, envelope);
    const running = rejection(pool.prepare(endless(), envelope, { owner: 'flood' }));
    const waiting = [1, 2].map(() => rejection(pool!.prepare(quick, envelope, { owner: 'flood' })));
    const err = await rejection(pool.prepare(quick, envelope, { owner: 'flood' }));
    expect([err.code, err.message]).toEqual([
      'too_many_jobs',
      'You have too many emails being processed at once. Wait for them to finish, then try again.',
    ]);
    const other = rejection(pool.prepare(quick, envelope, { owner: 'other' }));
    await pool.close();
    // Closing fails what waits and runs with busy: the other owner's job was queued, not refused.
    expect((await other).code).toBe('busy');
    for (const w of [running, ...waiting]) expect((await w).code).toBe('busy');
  });

  it("makes room in a full queue for another owner's job by turning away the flood's newest", async () => {
    // Before, a few users each under their share filled the queue, and everyone else's job was busy
    // at once (docs/decisions/0117-fair-transform-queue.md).
    pool = createTransformPool({ processes: 1, budgetMs: 1_500, maxQueue: 4, maxQueuedPerOwner: 4 });
    await pool.prepare(quick, envelope);
    const { done, job } = recorder(pool);
    // The flood's first job holds the one process until its budget stops it; its next four fill the
    // queue. Another owner's job takes the place of the flood's newest, and so does a job without an
    // owner (one of its own); the other owner's second would leave it with as many waiting as the
    // flood, so it is the one refused.
    const jobs = [
      job('flood', 'f1', endless()),
      job('flood', 'f2'),
      job('flood', 'f3'),
      job('flood', 'f4'),
      job('flood', 'f5'),
      job('other', 'o1'),
      job(undefined, 'n1'),
      job('other', 'o2'),
    ];
    // Turned away at once, not when the flood's first job ends.
    await poll(() => done.length >= 3, { what: 'the turned-away jobs' });
    expect(done).toEqual(['f5: busy', 'f4: busy', 'o2: busy']);
    await Promise.all(jobs);
    expect(done).toEqual([
      'f5: busy',
      'f4: busy',
      'o2: busy',
      'f1: processing_timeout',
      'o1',
      'n1',
      'f2',
      'f3',
    ]);
  });

  it('refuses the arriving job when no owner has more waiting than its owner would have', async () => {
    pool = createTransformPool({ processes: 1, budgetMs: 60_000, maxQueue: 3, maxQueuedPerOwner: 4 });
    await pool.prepare(quick, envelope);
    const settled = new Map<string, string>();
    const job = (owner: string, name: string, input = quick) =>
      pool!.prepare(input, envelope, { owner }).then(
        () => settled.set(name, 'prepared'),
        (err: PrepareError) => settled.set(name, err.code),
      );
    const jobs = [job('a', 'a0', endless()), job('a', 'a1'), job('a', 'a2'), job('b', 'b1')];
    // b's second would leave it with as many waiting as a: the full queue refuses it, as before.
    const b2 = await rejection(pool.prepare(quick, envelope, { owner: 'b' }));
    expect([b2.code, b2.message]).toEqual([
      'busy',
      'The server is busy processing other emails. Try again in a few seconds.',
    ]);
    // c's first takes the place of a's newest; then each owner has one waiting, and d's is refused.
    jobs.push(job('c', 'c1'));
    expect((await rejection(pool.prepare(quick, envelope, { owner: 'd' }))).code).toBe('busy');
    expect([...settled]).toEqual([['a2', 'busy']]);
    await pool.close();
    await Promise.all(jobs);
  });

  /** Runs `body` as an ES module in a fresh Node process that has nothing else to keep it alive. */
  function runAlone(body: string): string {
    const poolModule = JSON.stringify(new URL('./transform-pool.ts', import.meta.url).href);
    const script = `import { createTransformPool } from ${poolModule};
      const pool = createTransformPool({ processes: 1, budgetMs: 30_000 });
      const envelope = { ...${JSON.stringify(envelope)}, date: new Date() };
      ${body}`;
    return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
  }

  it('close() resolves in a process with nothing else running, and an idle pool lets one end', () => {
    // Before close() held the processes it waits for, such a process ended with close() unresolved.
    expect(
      runAlone(
        `await pool.prepare(${JSON.stringify(quick)}, envelope); await pool.close(); console.log('closed');`,
      ),
    ).toBe('closed\n');
    // An idle process is not waited for: this ends at once, not after the pool's idle minute.
    const started = Date.now();
    expect(runAlone(`await pool.prepare(${JSON.stringify(quick)}, envelope); console.log('prepared');`)).toBe(
      'prepared\n',
    );
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
