import { describe, expect, it } from 'vitest';
import { DEFAULT_TARGET_CLIENTS } from '../../shared/contract/checks.ts';
import { BESIDE_FROM_CHARS, type MeasureBeside } from './measure-beside.ts';
import { measureMessage } from './measure-message.ts';
import { testEnvelope } from './prepare-test-support.ts';
import { runTask, type PrepareTask } from './transform-task.ts';

const envelope = { ...testEnvelope, date: testEnvelope.date.getTime() };

function task(stories: number): PrepareTask {
  const body = Array.from(
    { length: stories },
    (_, n) =>
      `<table><tr><td><p>Story ${n}: <a href="https://example.com/${n}">more</a></p></td></tr></table>`,
  ).join('\n');
  return {
    input: { html: `<style>p { color: #333 }</style>${body}`, subject: 'News', inlineCss: true, text: null },
    envelope,
    checks: { targetClients: [...DEFAULT_TARGET_CLIENTS], rawMessage: true },
  };
}

/**
 * A stand-in thread: its text part is marked, its message is measured with a marked sender; or it
 * fails every job. It records the HTML each call was given.
 */
function fakeBeside(answer: 'marked' | 'fail'): MeasureBeside & { texts: string[]; measured: string[] } {
  const fake = {
    texts: [] as string[],
    measured: [] as string[],
    text(html: string) {
      fake.texts.push(html);
      if (answer === 'fail') return Promise.reject(new Error('the measuring thread stopped (exit code 1)'));
      return Promise.resolve('from the thread');
    },
    measure(...[part, env]: Parameters<MeasureBeside['measure']>) {
      fake.measured.push(part.html);
      if (answer === 'fail') return Promise.reject(new Error('the measuring thread stopped (exit code 1)'));
      return measureMessage(part, { ...env, from: 'thread@thread.test' });
    },
    close: async () => undefined,
  };
  return fake;
}

describe('a transform job', () => {
  it('hands a large job’s text part and message to the thread, and a small one’s never', async () => {
    const large = task(400);
    expect(large.input.html.length).toBeGreaterThan(BESIDE_FROM_CHARS);
    const beside = fakeBeside('marked');
    const outcome = await runTask(large, beside);
    if (!outcome.ok) throw new Error(outcome.message);
    expect(outcome.prepared.text).toBe('from the thread');
    expect(outcome.prepared.headers).toContainEqual({ name: 'From', value: 'thread@thread.test' });
    // The text part is generated from the HTML before inlining; the message carries the inlined one.
    expect(beside.texts).toEqual([large.input.html]);
    expect(beside.measured).toEqual([outcome.prepared.html]);
    expect(outcome.prepared.html).toContain('style="color: #333;"');

    const small = task(3);
    const inLine = await runTask(small, beside);
    expect(inLine.ok && inLine.prepared.text).toMatch(/^Story 0: more/);
    expect(beside.texts).toHaveLength(1);
    expect(beside.measured).toHaveLength(1);
  });

  it('does the work in line when the thread fails it: the same answer as without a thread', async () => {
    const large = task(400);
    const beside = fakeBeside('fail');
    expect(await runTask(large, beside)).toEqual(await runTask(large));
    expect(beside.texts).toHaveLength(1);
    expect(beside.measured).toHaveLength(1);
  });
});
