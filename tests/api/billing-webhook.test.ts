import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_STRIPE_WEBHOOK_SECRET,
  startFakeStripe,
  type FakeStripe,
  type FakeSubscription,
} from '../support/fake-stripe.ts';
import { runAdmin } from '../support/child-process.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * Stripe webhooks: signatures on the raw body, exactly-once effects, subscriptions
 * re-read from Stripe so delivery order does not matter, and the plan rules over time.
 */

const DAY = 24 * 3600_000;

describe('billing: webhooks and plan rules', () => {
  let ctx: TestContext;
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe();
    ctx = await createTestContext({ env: { PUBLIC_URL: 'https://proofmail.test', ...stripe.env } });
  });
  afterAll(async () => {
    await ctx?.close();
    await stripe?.stop();
  });

  const send = (payload: string, headers: Record<string, string>) =>
    ctx.app.inject({ method: 'POST', url: '/api/billing/webhook', headers, payload });
  const webhook = (type: string, object: object, id?: string) => {
    const signed = stripe.signedEvent(type, object, { id });
    return send(signed.payload, signed.headers);
  };
  const me = async (u: TestUser) => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: u.headers });
    expect(res.statusCode).toBe(200);
    return res.json().user as { plan: string; subscriptionStatus: string };
  };
  const historyStatus = async (u: TestUser) =>
    (await ctx.app.inject({ method: 'GET', url: '/api/email', headers: u.headers })).statusCode;
  const eventRows = (id: string) =>
    ctx.db.selectFrom('stripe_events').selectAll().where('id', '=', id).execute();
  const listCallsFor = (customer: string) =>
    stripe.callsTo('/v1/subscriptions', 'GET').filter((r) => r.query.customer === customer).length;

  /** A user with a Stripe customer (made through the app's own checkout call). */
  async function customerUser(): Promise<{ u: TestUser; customer: string }> {
    const u = await createUser(ctx.db);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/billing/create-checkout',
      headers: u.headers,
      payload: { price: 'pro_monthly' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const row = await ctx.db
      .selectFrom('users')
      .select('stripe_customer_id')
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    return { u, customer: row.stripe_customer_id! };
  }

  /** A user whose active subscription has been applied through a webhook. */
  async function proUser(): Promise<{ u: TestUser; customer: string; sub: FakeSubscription }> {
    const { u, customer } = await customerUser();
    const sub = stripe.createSubscription(customer);
    expect((await webhook('customer.subscription.created', { ...sub })).statusCode).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'pro', subscriptionStatus: 'active' });
    return { u, customer, sub };
  }

  it('rejects a bad signature with 400 and changes nothing', async () => {
    const { u, customer } = await customerUser();
    const sub = stripe.createSubscription(customer);
    const before = listCallsFor(customer);

    const wrongSecret = stripe.signedEvent(
      'customer.subscription.created',
      { ...sub },
      { secret: 'whsec_someone_else' },
    );
    const tampered = stripe.signedEvent('customer.subscription.created', { ...sub });
    const tamperedPayload = tampered.payload.replace('"active"', '"trialing"');
    const unsigned = stripe.signedEvent('customer.subscription.created', { ...sub });

    for (const [payload, headers] of [
      [wrongSecret.payload, wrongSecret.headers],
      [tamperedPayload, tampered.headers],
      [unsigned.payload, { 'content-type': 'application/json' }],
      [unsigned.payload, { ...unsigned.headers, 'stripe-signature': 't=1,v1=deadbeef' }],
    ] as const) {
      const res = await send(payload, headers);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('invalid_signature');
    }
    expect(await eventRows(wrongSecret.event.id)).toEqual([]);
    expect(await eventRows(tampered.event.id)).toEqual([]);
    expect(listCallsFor(customer)).toBe(before);
    expect(await me(u)).toMatchObject({ plan: 'free', subscriptionStatus: 'none' });

    // The same event, correctly signed, is applied: the rejection above was the signature.
    expect((await send(unsigned.payload, unsigned.headers)).statusCode).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'pro' });
  });

  it('verifies the signature on the raw bytes, whatever their formatting', async () => {
    const { u, customer } = await customerUser();
    const sub = stripe.createSubscription(customer);
    // Pretty-printed JSON: re-serialising the parsed body would break the signature.
    const payload = JSON.stringify(
      {
        id: 'evt_pretty_1',
        object: 'event',
        type: 'customer.subscription.updated',
        created: 1,
        data: { object: sub },
      },
      null,
      2,
    );
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: FAKE_STRIPE_WEBHOOK_SECRET });
    const res = await send(payload, { 'content-type': 'application/json', 'stripe-signature': header });
    expect(res.statusCode, res.body).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'pro' });
  });

  it('answers a validly signed body without an id or a data.object 400, naming what is missing', async () => {
    const { u, customer } = await customerUser();
    const sub = stripe.createSubscription(customer);
    const signedBody = (body: unknown) => {
      const payload = JSON.stringify(body);
      const header = Stripe.webhooks.generateTestHeaderString({
        payload,
        secret: FAKE_STRIPE_WEBHOOK_SECRET,
      });
      return send(payload, { 'content-type': 'application/json', 'stripe-signature': header });
    };
    const type = 'customer.subscription.updated';
    for (const [body, error] of [
      [{ object: 'event', type, data: { object: sub } }, 'The Stripe event has no id'],
      [{ id: null, object: 'event', type, data: { object: sub } }, 'The Stripe event has no id'],
      [{ id: 'evt_no_data', object: 'event', type }, 'The Stripe event has no data.object'],
      [{ id: 'evt_null_data', object: 'event', type, data: null }, 'The Stripe event has no data.object'],
      [{ id: 'evt_no_object', object: 'event', type, data: {} }, 'The Stripe event has no data.object'],
      [
        { id: 'evt_string_object', object: 'event', type, data: { object: 'sub' } },
        'The Stripe event has no data.object',
      ],
      [null, 'The Stripe event is not a JSON object'],
      [['evt_in_an_array'], 'The Stripe event is not a JSON object'],
    ] as const) {
      const res = await signedBody(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual({ error, code: 'invalid_event' });
    }
    expect(await me(u)).toMatchObject({ plan: 'free' });
    for (const id of ['evt_no_data', 'evt_null_data', 'evt_no_object', 'evt_string_object'])
      expect(await eventRows(id)).toEqual([]);
  });

  it('applies the same event delivered 5 times concurrently exactly once', async () => {
    const { u, customer } = await customerUser();
    const sub = stripe.createSubscription(customer);
    const before = listCallsFor(customer);
    const signed = stripe.signedEvent('customer.subscription.created', { ...sub });
    const results = await Promise.all(Array.from({ length: 5 }, () => send(signed.payload, signed.headers)));
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    expect(await eventRows(signed.event.id)).toHaveLength(1);
    // One effect: Stripe was read once, for this customer.
    expect(listCallsFor(customer) - before).toBe(1);
    expect(await me(u)).toMatchObject({ plan: 'pro', subscriptionStatus: 'active' });

    // A later redelivery changes nothing either, even though Stripe's state moved on.
    stripe.updateSubscription(sub.id, { status: 'canceled' });
    expect((await send(signed.payload, signed.headers)).statusCode).toBe(200);
    expect(listCallsFor(customer) - before).toBe(1);
    expect(await me(u)).toMatchObject({ plan: 'pro' });
  });

  it('ends free when subscription.deleted arrives before an older subscription.updated', async () => {
    const { u, sub } = await proUser();
    const staleUpdate = { ...sub, status: 'active' }; // what Stripe sent first, delivered last
    stripe.updateSubscription(sub.id, { status: 'canceled' });
    expect(
      (await webhook('customer.subscription.deleted', { ...stripe.subscriptions.get(sub.id)! })).statusCode,
    ).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'free', subscriptionStatus: 'canceled' });
    expect((await webhook('customer.subscription.updated', staleUpdate)).statusCode).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'free', subscriptionStatus: 'canceled' });
    expect(await historyStatus(u)).toBe(403);
  });

  it('keeps Pro after cancelling at period end until the period ends, then applies free limits', async () => {
    const { u, sub } = await proUser();
    const end = new Date(ctx.clock.now().getTime() + 3 * DAY);
    stripe.updateSubscription(sub.id, { cancelAtPeriodEnd: true, currentPeriodEnd: end });
    expect(
      (await webhook('customer.subscription.updated', { ...stripe.subscriptions.get(sub.id)! })).statusCode,
    ).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'pro', subscriptionStatus: 'active' });
    const info = (
      await ctx.app.inject({ method: 'GET', url: '/api/billing/subscription', headers: u.headers })
    ).json();
    expect(info).toMatchObject({
      cancelAtPeriodEnd: true,
      currentPeriodEnd: new Date(Math.floor(end.getTime() / 1000) * 1000).toISOString(),
    });

    const start = ctx.clock.now();
    try {
      ctx.clock.advance(2 * DAY);
      expect(await me(u)).toMatchObject({ plan: 'pro' });
      expect(await historyStatus(u)).toBe(200);
      ctx.clock.advance(1 * DAY + 60_000); // past the period end, no webhook yet
      expect(await me(u)).toMatchObject({ plan: 'free' });
      expect(await historyStatus(u)).toBe(403);
      const usage = await ctx.app.inject({ method: 'GET', url: '/api/user/usage', headers: u.headers });
      expect(usage.statusCode).toBe(200);
      expect(usage.json().usage.limit).toBe(ctx.config.freeMonthlyLimit);
    } finally {
      ctx.clock.set(start);
    }
  });

  it("an operator's Pro granted over a cancelled subscription stands when Stripe reports it over", async () => {
    const { u, sub } = await proUser();
    // Cancelled at the end of a period that is now over; Stripe still says active.
    stripe.updateSubscription(sub.id, {
      cancelAtPeriodEnd: true,
      currentPeriodEnd: Date.now() / 1000 - 3600,
    });
    const current = () => ({ ...stripe.subscriptions.get(sub.id)! });
    expect((await webhook('customer.subscription.updated', current())).statusCode).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'free' });

    const granted = await runAdmin(['set-plan', u.user.email, 'pro'], { DATABASE_URL: ctx.databaseUrl });
    expect(granted.code, granted.stderr).toBe(0);
    expect(await me(u)).toMatchObject({ plan: 'pro' });
    // Stripe's events and a sync re-read the subscription: no Pro in force there, the grant stands.
    expect((await webhook('customer.subscription.updated', current())).statusCode).toBe(200);
    const synced = await ctx.app.inject({ method: 'POST', url: '/api/billing/sync', headers: u.headers });
    expect(synced.json().user).toMatchObject({ plan: 'pro' });
    stripe.updateSubscription(sub.id, { status: 'canceled' });
    expect((await webhook('customer.subscription.deleted', current())).statusCode).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'pro' });
    expect(await historyStatus(u)).toBe(200);
  });

  it('past_due keeps Pro with the past_due status; unpaid then ends it', async () => {
    const { u, sub } = await proUser();
    stripe.updateSubscription(sub.id, { status: 'past_due' });
    const invoice = { id: 'in_1', object: 'invoice', customer: sub.customer, status: 'open' };
    expect((await webhook('invoice.payment_failed', invoice)).statusCode).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'pro', subscriptionStatus: 'past_due' });
    expect(await historyStatus(u)).toBe(200);

    stripe.updateSubscription(sub.id, { status: 'unpaid' });
    expect(
      (await webhook('customer.subscription.updated', { ...stripe.subscriptions.get(sub.id)! })).statusCode,
    ).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'free', subscriptionStatus: 'unpaid' });
  });

  it('trialing is Pro', async () => {
    const { u, customer } = await customerUser();
    const sub = stripe.createSubscription(customer, { status: 'trialing' });
    expect((await webhook('customer.subscription.created', { ...sub })).statusCode).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'pro', subscriptionStatus: 'trialing' });
  });

  it('a new subscription after a cancelled one brings Pro back', async () => {
    const { u, customer, sub } = await proUser();
    stripe.updateSubscription(sub.id, { status: 'canceled' });
    await webhook('customer.subscription.deleted', { ...stripe.subscriptions.get(sub.id)! });
    expect(await me(u)).toMatchObject({ plan: 'free' });
    const next = stripe.createSubscription(customer);
    await webhook('checkout.session.completed', {
      id: 'cs_again',
      object: 'checkout.session',
      customer,
      subscription: next.id,
      client_reference_id: u.user.id,
    });
    expect(await me(u)).toMatchObject({ plan: 'pro', subscriptionStatus: 'active' });
    const row = await ctx.db
      .selectFrom('users')
      .select('stripe_subscription_id')
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    expect(row.stripe_subscription_id).toBe(next.id);
  });

  it('acknowledges unknown event types and events of unknown customers without effect', async () => {
    const { u, customer } = await customerUser();
    stripe.createSubscription(customer);
    const before = listCallsFor(customer);
    let res = await webhook('customer.updated', { id: customer, object: 'customer', customer });
    expect(res.statusCode).toBe(200);
    expect(listCallsFor(customer)).toBe(before);
    expect(await me(u)).toMatchObject({ plan: 'free' });

    const stranger = stripe.signedEvent('customer.subscription.updated', {
      id: 'sub_x',
      object: 'subscription',
      customer: 'cus_nobody',
      status: 'active',
    });
    res = await send(stranger.payload, stranger.headers);
    expect(res.statusCode).toBe(200);
    expect(await eventRows(stranger.event.id)).toHaveLength(1);
  });

  it('does not record an event whose effect failed, so Stripe’s retry applies it', async () => {
    const { u, customer } = await customerUser();
    const sub = stripe.createSubscription(customer);
    const signed = stripe.signedEvent('customer.subscription.created', { ...sub });
    stripe.failCalls('/v1/subscriptions', 10);
    try {
      const res = await send(signed.payload, signed.headers);
      expect(res.statusCode).toBe(502);
    } finally {
      stripe.failCalls('/v1/subscriptions', 0);
    }
    expect(await eventRows(signed.event.id)).toEqual([]);
    expect(await me(u)).toMatchObject({ plan: 'free' });
    expect((await send(signed.payload, signed.headers)).statusCode).toBe(200);
    expect(await me(u)).toMatchObject({ plan: 'pro' });
  });

  /** A Stripe customer made straight at (fake) Stripe, linked to no user of ours. */
  const strangerCustomer = async (email: string) =>
    (
      await new Stripe(stripe.env.STRIPE_SECRET_KEY!, {
        host: '127.0.0.1',
        port: new URL(stripe.url).port,
        protocol: 'http',
      }).customers.create({ email })
    ).id;
  const customerOf = async (u: TestUser) =>
    (
      await ctx.db
        .selectFrom('users')
        .select('stripe_customer_id')
        .where('id', '=', u.user.id)
        .executeTakeFirstOrThrow()
    ).stripe_customer_id;
  const checkoutCompleted = (id: string, customer: string, userId: string) =>
    webhook('checkout.session.completed', {
      id,
      object: 'checkout.session',
      customer,
      client_reference_id: userId,
    });

  it('links a checkout whose customer was not stored, by the server-set client_reference_id', async () => {
    const u = await createUser(ctx.db);
    const customer = await strangerCustomer(u.user.email);
    stripe.createSubscription(customer);
    const res = await webhook('checkout.session.completed', {
      id: 'cs_link',
      object: 'checkout.session',
      customer,
      client_reference_id: u.user.id,
      metadata: { userId: u.user.id },
    });
    expect(res.statusCode).toBe(200);
    expect(await customerOf(u)).toBe(customer);
    expect(await me(u)).toMatchObject({ plan: 'pro' });
  });

  it("a checkout event naming a second user for someone's customer applies to that customer's owner only", async () => {
    const { u: owner, customer } = await proUser();
    const second = await createUser(ctx.db); // no customer: the one kind of user a checkout may link
    const res = await checkoutCompleted('cs_second', customer, second.user.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(await customerOf(second)).toBeNull();
    expect(await me(second)).toMatchObject({ plan: 'free', subscriptionStatus: 'none' });
    expect(await customerOf(owner)).toBe(customer);
    expect(await me(owner)).toMatchObject({ plan: 'pro', subscriptionStatus: 'active' });
  });

  it('a checkout event naming a user who has a customer, with another customer, changes nothing', async () => {
    const { u, customer } = await customerUser(); // Free, with a customer of its own
    const foreign = await strangerCustomer('someone.else@example.com');
    stripe.createSubscription(foreign); // active: applied to u, it would make u Pro
    const res = await checkoutCompleted('cs_foreign', foreign, u.user.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(await customerOf(u)).toBe(customer);
    expect(await me(u)).toMatchObject({ plan: 'free', subscriptionStatus: 'none' });
    expect(listCallsFor(foreign)).toBe(0); // Stripe was never asked about that customer
    const linked = await ctx.db
      .selectFrom('users')
      .select('id')
      .where('stripe_customer_id', '=', foreign)
      .execute();
    expect(linked).toEqual([]);
  });
});
