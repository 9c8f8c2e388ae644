import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WAITING_TURNS } from '../../src/server/db/connection-turns.ts';
import { startFakeStripe, type FakeStripe, type FakeSubscription } from '../support/fake-stripe.ts';
import { poll } from '../support/poll.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * A slow Stripe holds up only the user (or customer) waiting for it: billing work that waits for
 * Stripe takes turns (src/server/db/connection-turns.ts), one per user and at most half the pool,
 * and holds no lock the user's other requests need. The pool is 10 connections with a 5 s wait.
 */

/** How long the fake Stripe takes to answer each call while a test has it slow. */
const STRIPE_DELAY_MS = 2_000;
/** One call running and MAX_WAITING_TURNS waiting behind it. */
const ADMITTED = 1 + MAX_WAITING_TURNS;
const PARALLEL = 20;

describe('billing while Stripe is slow', () => {
  let ctx: TestContext;
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe();
    ctx = await createTestContext({
      env: { PUBLIC_URL: 'https://proofmail.test', DATABASE_POOL_SIZE: '10', ...stripe.env },
    });
  });
  afterAll(async () => {
    stripe?.delayCalls(0);
    await ctx?.close();
    await stripe?.stop();
  });

  const post = (url: string, u: TestUser, payload?: object) =>
    ctx.app.inject({ method: 'POST', url, headers: u.headers, ...(payload ? { payload } : {}) });
  const send = (u: TestUser) =>
    post('/api/email/send', u, { to: 'client@example.com', subject: 'Hello', html: '<p>Hello</p>' });

  /** A Pro user paying through Stripe: a customer and an active subscription, synced. */
  async function payingUser(): Promise<{ u: TestUser; sub: FakeSubscription }> {
    const u = await createUser(ctx.db);
    expect((await post('/api/billing/create-checkout', u, { price: 'pro_monthly' })).statusCode).toBe(200);
    const { stripe_customer_id: customer } = await ctx.db
      .selectFrom('users')
      .select('stripe_customer_id')
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    const sub = stripe.createSubscription(customer!);
    const synced = await post('/api/billing/sync', u);
    expect(synced.json().user).toMatchObject({ plan: 'pro' });
    expect((await send(u)).statusCode).toBe(200); // the send path is warm before the clock matters
    return { u, sub };
  }

  type Timed = { res: LightMyRequestResponse; ms: number };

  /** Starts the calls (each answer with its time), and returns once Stripe has been asked. */
  async function whileStripeWaits(calls: (() => Promise<LightMyRequestResponse>)[]) {
    const started = Date.now();
    const answers = calls.map((call) => call().then((res): Timed => ({ res, ms: Date.now() - started })));
    await poll(() => stripe.delayedCalls() > 0, { what: 'a billing call waiting for Stripe' });
    return answers;
  }

  /** Another user's requests are answered at once, without waiting for Stripe or the pool. */
  async function othersAnsweredAtOnce(others: TestUser[]) {
    for (const other of others) {
      const started = Date.now();
      const usage = await ctx.app.inject({ method: 'GET', url: '/api/user/usage', headers: other.headers });
      expect(usage.statusCode, usage.body).toBe(200);
      const sent = await send(other);
      expect(sent.statusCode, sent.body).toBe(200);
      expect(Date.now() - started).toBeLessThan(STRIPE_DELAY_MS);
    }
  }

  /** The calls answered 200, and those refused 429 (each at once, not after waiting for Stripe). */
  async function outcomes(answers: Promise<Timed>[]) {
    const all = await Promise.all(answers);
    const refused = all.filter((a) => a.res.statusCode === 429);
    for (const r of refused) expect(r.ms).toBeLessThan(STRIPE_DELAY_MS);
    return { ok: all.filter((a) => a.res.statusCode === 200).length, refused: refused.map((r) => r.res) };
  }

  it("one user's parallel syncs wait their turn, the extra ones are 429, and everyone else is answered at once", async () => {
    const { u: alice } = await payingUser();
    const bob = await createUser(ctx.db);
    stripe.delayCalls(STRIPE_DELAY_MS);
    let answers: Promise<Timed>[];
    try {
      answers = await whileStripeWaits(
        Array.from({ length: PARALLEL }, () => () => post('/api/billing/sync', alice)),
      );
      // Bob, and Alice's own sends, are not held up by the pool or by a lock on her row.
      await othersAnsweredAtOnce([bob, alice]);
    } finally {
      stripe.delayCalls(0);
    }
    const { ok, refused } = await outcomes(answers);
    expect(ok).toBe(ADMITTED);
    expect(refused).toHaveLength(PARALLEL - ADMITTED);
    for (const r of refused) {
      expect(r.json()).toEqual({
        error: 'Too many billing requests at once: wait for your last one to finish.',
        code: 'too_many_billing_requests',
      });
      expect(r.headers['retry-after']).toBe('1');
    }
  }, 60_000);

  it("a customer's parallel webhooks wait their turn (429 past it, for Stripe to retry); everyone else is answered at once", async () => {
    const { u: alice, sub } = await payingUser();
    const bob = await createUser(ctx.db);
    const events = Array.from({ length: PARALLEL }, () =>
      stripe.signedEvent('customer.subscription.updated', { ...sub }),
    );
    stripe.delayCalls(STRIPE_DELAY_MS);
    const deliver = (e: (typeof events)[number]) =>
      ctx.app.inject({ method: 'POST', url: '/api/billing/webhook', headers: e.headers, payload: e.payload });
    let answers: Promise<Timed>[];
    try {
      answers = await whileStripeWaits(events.map((e) => () => deliver(e)));
      await othersAnsweredAtOnce([bob, alice]);
    } finally {
      stripe.delayCalls(0);
    }
    const { ok, refused } = await outcomes(answers);
    expect(ok).toBe(ADMITTED);
    expect(refused).toHaveLength(PARALLEL - ADMITTED);
    for (const r of refused) expect(r.json()).toMatchObject({ code: 'too_many_events' });
    // A refused event was not recorded, so Stripe's retry applies it.
    const recorded = async () =>
      (
        await ctx.db
          .selectFrom('stripe_events')
          .select('id')
          .where(
            'id',
            'in',
            events.map((e) => e.event.id),
          )
          .execute()
      ).length;
    expect(await recorded()).toBe(ADMITTED);
    for (const e of events) expect((await deliver(e)).statusCode).toBe(200);
    expect(await recorded()).toBe(PARALLEL);
  }, 60_000);

  it('a customer another process stored while Stripe made this one is the one used; this one is deleted', async () => {
    const u = await createUser(ctx.db);
    // The customer another app process made for u, and will store.
    const made = await fetch(`${stripe.url}/v1/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stripe.env.STRIPE_SECRET_KEY}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ email: u.user.email, 'metadata[userId]': u.user.id }).toString(),
    });
    const theirs = ((await made.json()) as { id: string }).id;
    stripe.delayCalls(STRIPE_DELAY_MS);
    let answer: LightMyRequestResponse;
    try {
      const pending = post('/api/billing/create-checkout', u, { price: 'pro_monthly' });
      await poll(() => stripe.delayedCalls() > 0, { what: 'the customer creation waiting for Stripe' });
      // Stored meanwhile, as the other process would: this row is not locked while Stripe answers.
      await ctx.db
        .updateTable('users')
        .set({ stripe_customer_id: theirs })
        .where('id', '=', u.user.id)
        .execute();
      stripe.delayCalls(0);
      answer = await pending;
    } finally {
      stripe.delayCalls(0);
    }
    expect(answer.statusCode, answer.body).toBe(200);
    const session = stripe.checkoutSessions.get((answer.json() as { url: string }).url.split('/').pop()!)!;
    expect(session.customer).toBe(theirs);
    const ofUser = [...stripe.customers.values()].filter((c) => c.metadata.userId === u.user.id);
    expect(ofUser.map((c) => [c.id === theirs, c.deleted ?? false]).sort()).toEqual([
      [false, true],
      [true, false],
    ]);
  });
});
