import { afterAll, describe, expect, it } from 'vitest';
import { poll } from '../../../tests/support/poll.ts';
import { measureBeside, type MeasureBeside } from './measure-beside.ts';
import { measureMessage, type MessagePart } from './measure-message.ts';
import { testEnvelope } from './prepare-test-support.ts';
import { bundledEntry } from './transform-pool.ts';

const envelope = testEnvelope;

function part(stories: number, ownText: string | null = null): MessagePart {
  const body = Array.from(
    { length: stories },
    (_, n) =>
      `<table><tr><td><p>Story ${n}: Grüße <a href="https://example.com/${n}">read on</a></p></td></tr></table>`,
  ).join('\n');
  return { html: `<!DOCTYPE html><html><body>${body}</body></html>`, subject: 'Weekly ✓', ownText };
}

/** A started thread, once it says it is ready. */
async function ready(beside: MeasureBeside, probe = part(1)): Promise<Promise<unknown>> {
  let started: Promise<unknown> | undefined;
  await poll(() => (started = beside.start(probe, envelope)) !== undefined, {
    timeoutMs: 30_000,
    what: 'the thread',
  });
  return started!;
}

describe('measuring beside the checks', () => {
  const threads: MeasureBeside[] = [];
  afterAll(async () => {
    await Promise.all(threads.map((t) => t.close()));
  });

  it('gives exactly what measuring in the process gives: text part, message bytes, headers', async () => {
    const beside = measureBeside(await bundledEntry('measure-thread'));
    threads.push(beside);
    await ready(beside);
    for (const input of [part(400), part(3, 'My own text\nline two')]) {
      const here = await measureMessage(input, envelope);
      const there = await beside.start(input, envelope)!;
      expect(there.text).toBe(here.text);
      expect(there.headers).toEqual(here.headers);
      expect(Buffer.compare(there.message, here.message)).toBe(0);
    }
  });

  it('fails the job of a thread that runs out of memory, then starts another', async () => {
    const beside = measureBeside(await bundledEntry('measure-thread'), 24);
    threads.push(beside);
    await ready(beside);
    const huge = part(60_000); // ~7 MB of HTML: far beyond a 24 MB heap
    const failed = await beside.start(huge, envelope)!.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(Error);
    // Later jobs: measured by the caller while another thread starts, then by that thread.
    expect(beside.start(part(2), envelope)).toBeUndefined();
    const again = (await ready(beside, part(2))) as Awaited<ReturnType<typeof measureMessage>>;
    expect(again.text).toBe((await measureMessage(part(2), envelope)).text);
  });
});
