import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import { hitRateLimit, rateRule } from '../../src/server/http/rate-limit.ts';
import { createTestDatabase } from '../support/test-db.ts';

/**
 * The fixed-window counters (src/server/http/rate-limit.ts): one atomic upsert per hit, whose
 * commit does not wait for the disk flush (docs/decisions/0093-rate-counters-without-flush-wait.md).
 */
describe('rate counters', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  const rule = rateRule('test_rule', 2, 60_000, 'tries');

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(createPool(database.url, 3));
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('counts every hit in its window, across the limit, and starts again in the next window', async () => {
    const at = new Date('2026-05-10T10:00:30Z');
    const hits = [];
    for (let i = 0; i < 3; i++) hits.push(await hitRateLimit(db, rule, 'someone@example.com', at));
    expect(hits.map((h) => [h.count, h.allowed])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    expect(hits[2]!.retryAfterMs).toBe(30_000);
    const next = await hitRateLimit(db, rule, 'someone@example.com', new Date('2026-05-10T10:01:00Z'));
    expect([next.count, next.allowed]).toEqual([1, true]);
    // Another subject has its own counter.
    expect((await hitRateLimit(db, rule, 'other@example.com', at)).count).toBe(1);
  });

  it('concurrent hits are each counted once', async () => {
    const at = new Date('2026-05-10T11:00:00Z');
    const counts = await Promise.all(
      Array.from({ length: 12 }, async () => (await hitRateLimit(db, rule, 'busy@example.com', at)).count),
    );
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('relaxes only its own commit: the pooled connection keeps durable commits', async () => {
    const one = createDb(createPool(database.url, 1));
    try {
      // The test cluster runs without durable commits; this one connection asks for them.
      await sql`set synchronous_commit = on`.execute(one);
      await hitRateLimit(one, rule, 'durable@example.com', new Date('2026-05-10T12:00:00Z'));
      const { rows } = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(one);
      expect(rows[0]!.synchronous_commit).toBe('on');
    } finally {
      await one.destroy();
    }
  });
});
