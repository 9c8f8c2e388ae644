import { describe, expect, it } from 'vitest';
import { connectionTurns } from './connection-turns.ts';

/** Work that runs until the test ends it. */
function held() {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { work: () => done, end };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

class Full extends Error {}
const full = () => new Full('too many');

describe('connectionTurns', () => {
  it("runs one turn per key at a time, in order, while other keys' run beside it", async () => {
    const turns = connectionTurns({ slots: 2 });
    const started: string[] = [];
    const a1 = held();
    const a2 = held();
    const b1 = held();
    const runs = [
      turns.run('alice', () => (started.push('a1'), a1.work()), full),
      turns.run('alice', () => (started.push('a2'), a2.work()), full),
      turns.run('bob', () => (started.push('b1'), b1.work()), full),
    ];
    await settle();
    expect(started).toEqual(['a1', 'b1']);
    a1.end();
    await settle();
    expect(started).toEqual(['a1', 'b1', 'a2']);
    a2.end();
    b1.end();
    await Promise.all(runs);
  });

  it('holds the process to its slots: a third key waits for a free one', async () => {
    const turns = connectionTurns({ slots: 2 });
    const started: string[] = [];
    const jobs = ['a', 'b', 'c'].map((key) => ({ key, ...held() }));
    const runs = jobs.map((j) => turns.run(j.key, () => (started.push(j.key), j.work()), full));
    await settle();
    expect(started).toEqual(['a', 'b']);
    jobs[1]!.end();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    jobs[0]!.end();
    jobs[2]!.end();
    await Promise.all(runs);
  });

  it('gives a free slot to the key that waited without a turn, not to the one with most waiting', async () => {
    const turns = connectionTurns({ slots: 1 });
    const started: string[] = [];
    const jobs = ['a1', 'a2', 'a3', 'b1'].map((name) => ({ name, ...held() }));
    const runs = jobs.map((j) => turns.run(j.name[0]!, () => (started.push(j.name), j.work()), full));
    await settle();
    expect(started).toEqual(['a1']);
    jobs[0]!.end();
    await settle();
    // b arrived after a2 and a3, and goes before them: a has had a turn, b none.
    expect(started).toEqual(['a1', 'b1']);
    jobs[3]!.end();
    await settle();
    jobs[1]!.end();
    await settle();
    jobs[2]!.end();
    await Promise.all(runs);
    expect(started).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it("refuses a key once its waiting turns are full, and frees the key's turn after a failure", async () => {
    const turns = connectionTurns({ slots: 4, maxWaiting: 2 });
    const first = held();
    const runs = [
      turns.run('alice', first.work, full),
      turns.run('alice', async () => 1, full),
      turns.run('alice', async () => 2, full),
    ];
    await settle();
    await expect(turns.run('alice', async () => 3, full)).rejects.toBeInstanceOf(Full);
    // Other keys are not held to alice's queue.
    expect(await turns.run('bob', async () => 'bob', full)).toBe('bob');
    first.end();
    expect(await Promise.all(runs)).toEqual([undefined, 1, 2]);
    await expect(turns.run('alice', async () => Promise.reject(new Error('boom')), full)).rejects.toThrow(
      'boom',
    );
    expect(await turns.run('alice', async () => 'again', full)).toBe('again');
  });
});
