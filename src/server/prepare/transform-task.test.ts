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

/** A stand-in thread that answers with a marked text part, or fails every job. */
function fakeBeside(answer: 'marked' | 'fail'): MeasureBeside & { calls: number } {
  const fake = {
    calls: 0,
    start: (part: Parameters<MeasureBeside['start']>[0], env: Parameters<MeasureBeside['start']>[1]) => {
      fake.calls++;
      if (answer === 'fail') return Promise.reject(new Error('the measuring thread stopped (exit code 1)'));
      return measureMessage({ ...part, ownText: 'from the thread' }, env);
    },
    close: async () => undefined,
  };
  return fake;
}

describe('a transform job', () => {
  it('hands a large message to the measuring thread, and a small one never', async () => {
    const large = task(400);
    expect(large.input.html.length).toBeGreaterThan(BESIDE_FROM_CHARS);
    const beside = fakeBeside('marked');
    const outcome = await runTask(large, beside);
    expect(outcome.ok && outcome.prepared.text).toBe('from the thread');
    expect(beside.calls).toBe(1);

    const small = task(3);
    const inLine = await runTask(small, beside);
    expect(inLine.ok && inLine.prepared.text).toMatch(/^Story 0: more/);
    expect(beside.calls).toBe(1);
  });

  it('measures in line when the thread fails the job: the same answer as without a thread', async () => {
    const large = task(400);
    const beside = fakeBeside('fail');
    expect(await runTask(large, beside)).toEqual(await runTask(large));
    expect(beside.calls).toBe(1);
  });
});
