import { afterAll, describe, expect, it } from 'vitest';
import { poll } from '../../../tests/support/poll.ts';
import { textFromHtml } from '../mail/text-part.ts';
import { measureBeside, type MeasureBeside } from './measure-beside.ts';
import { measureMessage, type MessagePart } from './measure-message.ts';
import { testEnvelope } from './prepare-test-support.ts';
import { bundledEntry } from './transform-pool.ts';

const envelope = testEnvelope;

function html(stories: number): string {
  const body = Array.from(
    { length: stories },
    (_, n) =>
      `<table><tr><td><p>Story ${n}: Grüße <a href="https://example.com/${n}">read on</a></p></td></tr></table>`,
  ).join('\n');
  return `<!DOCTYPE html><html><body>${body}</body></html>`;
}

function part(stories: number, text = 'My own text\nline two'): MessagePart {
  return { html: html(stories), text, subject: 'Weekly ✓' };
}

/** The first text part a thread generates, once it says it is ready. */
async function ready(beside: MeasureBeside, probe = html(1)): Promise<string> {
  let started: Promise<string> | undefined;
  await poll(() => (started = beside.text(probe)) !== undefined, { timeoutMs: 30_000, what: 'the thread' });
  return started!;
}

describe('the measuring thread', () => {
  const threads: MeasureBeside[] = [];
  afterAll(async () => {
    await Promise.all(threads.map((t) => t.close()));
  });

  it('gives exactly what the process gives: the text part, the message bytes and headers', async () => {
    const beside = measureBeside(await bundledEntry('measure-thread'));
    threads.push(beside);
    await ready(beside);
    expect(await beside.text(html(400))!).toBe(textFromHtml(html(400)));
    for (const input of [part(400, textFromHtml(html(400))), part(3)]) {
      const here = await measureMessage(input, envelope);
      const there = await beside.measure(input, envelope)!;
      expect(there.headers).toEqual(here.headers);
      expect(Buffer.compare(there.message, here.message)).toBe(0);
    }
  });

  it('fails the job of a thread that runs out of memory, then starts another', async () => {
    const beside = measureBeside(await bundledEntry('measure-thread'), 24);
    threads.push(beside);
    await ready(beside);
    const huge = html(60_000); // ~7 MB of HTML: far beyond a 24 MB heap
    const failed = await beside.text(huge)!.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(Error);
    // Later jobs: done by the caller while another thread starts, then by that thread.
    expect(beside.measure(part(2), envelope)).toBeUndefined();
    expect(await ready(beside, html(2))).toBe(textFromHtml(html(2)));
  });
});
