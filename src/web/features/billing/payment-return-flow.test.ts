import { describe, expect, it } from 'vitest';
import { confirmUpgrade, type PaymentReturnSteps } from './payment-return-flow.ts';

function steps(plans: string[], failSyncAt: number[] = []) {
  const log: string[] = [];
  let n = 0;
  const s: PaymentReturnSteps = {
    sync: async () => {
      n += 1;
      log.push(`sync${n}`);
      if (failSyncAt.includes(n)) throw new Error('sync failed');
    },
    refreshUser: async () => {
      log.push(`refresh${n}`);
    },
    fetchMe: async () => {
      log.push(`me${n}`);
      return { plan: plans[n - 1] ?? 'free' };
    },
    wait: async (ms) => {
      log.push(`wait${ms}`);
    },
  };
  return { s, log };
}

describe('payment return flow', () => {
  it('syncs, refreshes and fetches the user in that order until the plan is Pro', async () => {
    const { s, log } = steps(['free', 'free', 'Pro']);
    const result = await confirmUpgrade(s, { signal: new AbortController().signal });
    expect(result).toBe('pro');
    expect(log).toEqual([
      'sync1',
      'refresh1',
      'me1',
      'wait1000',
      'sync2',
      'refresh2',
      'me2',
      'wait1000',
      'sync3',
      'refresh3',
      'me3',
    ]);
  });

  it('gives up after 10 attempts 1 second apart', async () => {
    const { s, log } = steps([]);
    const attempts: number[] = [];
    const result = await confirmUpgrade(s, {
      signal: new AbortController().signal,
      onAttempt: (a) => attempts.push(a),
    });
    expect(result).toBe('pending');
    expect(attempts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(log.filter((l) => l.startsWith('sync'))).toHaveLength(10);
    expect(log.filter((l) => l === 'wait1000')).toHaveLength(9);
  });

  it('a failed sync still checks the user (a webhook may have upgraded them)', async () => {
    const { s } = steps(['pro'], [1]);
    expect(await confirmUpgrade(s, { signal: new AbortController().signal })).toBe('pro');
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    const { s } = steps([]);
    s.wait = async () => controller.abort(new Error('left the page'));
    await expect(confirmUpgrade(s, { signal: controller.signal })).rejects.toThrow('left the page');
  });
});
