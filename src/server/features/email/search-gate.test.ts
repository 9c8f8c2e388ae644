import { describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.ts';
import { searchGate, TOO_MANY_SEARCHES } from './search-gate.ts';

/** A search that runs until the test ends it. */
function held() {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { work: () => done, end };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('searchGate', () => {
  it("runs one search per user at a time, in order, while others' run beside it", async () => {
    const gate = searchGate({ slots: 2 });
    const started: string[] = [];
    const a1 = held();
    const a2 = held();
    const b1 = held();
    const runs = [
      gate.run('alice', () => (started.push('a1'), a1.work())),
      gate.run('alice', () => (started.push('a2'), a2.work())),
      gate.run('bob', () => (started.push('b1'), b1.work())),
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

  it('holds the process to its slots: a third user waits for a free one', async () => {
    const gate = searchGate({ slots: 2 });
    const started: string[] = [];
    const jobs = ['a', 'b', 'c'].map((owner) => ({ owner, ...held() }));
    const runs = jobs.map((j) => gate.run(j.owner, () => (started.push(j.owner), j.work())));
    await settle();
    expect(started).toEqual(['a', 'b']);
    jobs[1]!.end();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    jobs[0]!.end();
    jobs[2]!.end();
    await Promise.all(runs);
  });

  it('turns a user away with 429 once their waiting searches are full, and frees the turn after a failure', async () => {
    const gate = searchGate({ slots: 4, maxWaiting: 2 });
    const first = held();
    const runs = [
      gate.run('alice', first.work),
      gate.run('alice', async () => 1),
      gate.run('alice', async () => 2),
    ];
    await settle();
    const refused = await gate.run('alice', async () => 3).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ statusCode: 429, code: 'too_many_searches', message: TOO_MANY_SEARCHES });
    // Other users are not held to alice's queue.
    expect(await gate.run('bob', async () => 'bob')).toBe('bob');
    first.end();
    expect(await Promise.all(runs)).toEqual([undefined, 1, 2]);
    await expect(gate.run('alice', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run('alice', async () => 'again')).toBe('again');
  });
});
