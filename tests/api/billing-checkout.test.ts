import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkToken, mailTo } from '../support/auth-api.ts';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.ts';
import { poll } from '../support/poll.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, PASSWORD, uniqueEmail, type TestUser } from '../support/users.ts';

/** Checkout, the billing portal and sync, against the local fake Stripe. */

const PUBLIC_URL = 'https://proofmail.test';

describe('billing: checkout, portal and sync', () => {
  let ctx: TestContext;
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe();
    ctx = await createTestContext({ env: { PUBLIC_URL, ...stripe.env } });
  });
  afterAll(async () => {
    await ctx?.close();
    await stripe?.stop();
  });

  const post = (url: string, u?: TestUser, payload?: object) =>
    ctx.app.inject({
      method: 'POST',
      url,
      headers: u?.headers,
      ...(payload === undefined ? {} : { payload }),
    });
  const checkout = (u: TestUser, payload: object = { price: 'pro_monthly' }) =>
    post('/api/billing/create-checkout', u, payload);
  const me = async (u: TestUser) => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: u.headers });
    expect(res.statusCode).toBe(200);
    return res.json().user as { plan: string; subscriptionStatus: string };
  };
  const customerOf = async (u: TestUser) =>
    (
      await ctx.db
        .selectFrom('users')
        .select('stripe_customer_id')
        .where('id', '=', u.user.id)
        .executeTakeFirstOrThrow()
    ).stripe_customer_id;
  const sessionIdOf = (url: string) => url.split('/').pop()!;
  const webhook = (type: string, object: object, id?: string) => {
    const signed = stripe.signedEvent(type, object, { id });
    return ctx.app.inject({
      method: 'POST',
      url: '/api/billing/webhook',
      headers: signed.headers,
      payload: signed.payload,
    });
  };

  it('reports billing as enabled in /api/config', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/config' });
    expect(res.json().billingEnabled).toBe(true);
  });

  it('starts Checkout for the pro_monthly price with server-set ids and return URLs', async () => {
    const u = await createUser(ctx.db, { email: 'buyer@example.com' });
    const res = await checkout(u);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { url } = res.json() as { url: string };
    expect(url).toMatch(new RegExp(`^${stripe.url}/pay/cs_test_`));

    const session = stripe.checkoutSessions.get(sessionIdOf(url))!;
    expect(session.mode).toBe('subscription');
    expect(session.line_items).toEqual([{ price: stripe.env.STRIPE_PRICE_PRO_MONTHLY, quantity: 1 }]);
    expect(session.client_reference_id).toBe(u.user.id);
    expect(session.metadata).toEqual({ userId: u.user.id });
    expect(session.subscription_metadata).toEqual({ userId: u.user.id });
    expect(session.success_url).toBe(`${PUBLIC_URL}/app/account?payment=success`);
    expect(session.cancel_url).toBe(`${PUBLIC_URL}/plan`);

    const customerId = await customerOf(u);
    expect(customerId).toBe(session.customer);
    expect(stripe.customers.get(customerId!)).toMatchObject({
      email: 'buyer@example.com',
      metadata: { userId: u.user.id },
    });
  });

  it('creates the Stripe customer once and reuses it, even for concurrent requests', async () => {
    const u = await createUser(ctx.db);
    const before = stripe.callsTo('/v1/customers', 'POST').length;
    const results = await Promise.all(Array.from({ length: 5 }, () => checkout(u)));
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const again = await checkout(u);
    expect(again.statusCode).toBe(200);
    expect(stripe.callsTo('/v1/customers', 'POST').length - before).toBe(1);
    const customerId = await customerOf(u);
    const sessions = [...results, again].map((r) => stripe.checkoutSessions.get(sessionIdOf(r.json().url))!);
    expect(new Set(sessions.map((s) => s.customer))).toEqual(new Set([customerId]));
  });

  it('replaces a stored customer that was deleted in Stripe', async () => {
    const u = await createUser(ctx.db);
    expect((await checkout(u)).statusCode).toBe(200);
    const first = await customerOf(u);
    stripe.deleteCustomer(first!);
    const res = await checkout(u);
    expect(res.statusCode, res.body).toBe(200);
    const second = await customerOf(u);
    expect(second).not.toBe(first);
    expect(stripe.checkoutSessions.get(sessionIdOf(res.json().url))!.customer).toBe(second);
  });

  it('accepts only the pro_monthly price and no extra fields', async () => {
    const u = await createUser(ctx.db);
    for (const payload of [
      { price: 'pro_yearly' },
      { price: 'price_123' },
      {},
      { price: 'pro_monthly', customer: 'cus_x' },
    ]) {
      const res = await checkout(u, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toBeTruthy();
    }
    expect(await customerOf(u)).toBeNull();
  });

  it('needs a signed-in user', async () => {
    for (const url of ['/api/billing/create-checkout', '/api/billing/create-portal', '/api/billing/sync']) {
      const res = await post(url, undefined, url.endsWith('checkout') ? { price: 'pro_monthly' } : undefined);
      expect(res.statusCode, url).toBe(401);
    }
    expect((await ctx.app.inject({ method: 'GET', url: '/api/billing/subscription' })).statusCode).toBe(401);
  });

  it('refuses a second checkout for a Pro user', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const res = await checkout(u);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'already_pro' });
  });

  it('a second checkout expires the first, so that only one can be paid; one paid before its webhook is already Pro', async () => {
    const u = await createUser(ctx.db);
    const first = sessionIdOf((await checkout(u)).json().url);
    const second = sessionIdOf((await checkout(u)).json().url);
    expect(stripe.checkoutSessions.get(first)!.status).toBe('expired');
    expect(stripe.checkoutSessions.get(second)!.status).toBe('open');
    const payFirst = await fetch(`${stripe.url}/pay/${first}`);
    expect(await payFirst.text()).toContain('This checkout session has expired');

    // The second is paid, and its webhook has not come yet: a third checkout finds the
    // subscription, stores the plan, and sells nothing.
    const paid = await fetch(`${stripe.url}/pay/${second}`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    const third = await checkout(u);
    expect(third.statusCode).toBe(409);
    expect(third.json()).toMatchObject({ code: 'already_pro' });
    expect(await me(u)).toMatchObject({ plan: 'pro', subscriptionStatus: 'active' });
    const customer = (await customerOf(u))!;
    const open = [...stripe.checkoutSessions.values()].filter(
      (s) => s.customer === customer && s.status === 'open',
    );
    expect(open).toEqual([]);
  });

  it('sells again once a cancelled subscription has run out, though Stripe still says active', async () => {
    const u = await createUser(ctx.db, { now: ctx.clock.now() });
    const first = sessionIdOf((await checkout(u)).json().url);
    await fetch(`${stripe.url}/pay/${first}`, { method: 'POST', redirect: 'manual' });
    const sub = stripe.checkoutSessions.get(first)!.subscription!;
    // Cancelled at the period end, which is now past; the "deleted" event has not come.
    const ended = Math.floor(ctx.clock.now().getTime() / 1000) - 3600;
    stripe.updateSubscription(sub, { cancelAtPeriodEnd: true, currentPeriodEnd: ended });
    const again = await checkout(u);
    expect(again.statusCode, again.body).toBe(200);
  });

  it("gives the Stripe customer the account's new email address once a change is confirmed", async () => {
    const u = await createUser(ctx.db, {
      email: uniqueEmail('paula'),
      password: PASSWORD,
      now: ctx.clock.now(),
    });
    await checkout(u);
    const customer = (await customerOf(u))!;
    const newEmail = uniqueEmail('paula-new');
    const asked = await post('/api/user/change-email', u, { newEmail, currentPassword: PASSWORD });
    expect(asked.statusCode, asked.body).toBe(200);
    const token = linkToken((await mailTo(ctx, newEmail))[0], '/verify');
    const verified = await post('/api/auth/verify-email', undefined, { token });
    expect(verified.json()).toMatchObject({ ok: true, emailChanged: true });
    await poll(() => (stripe.customers.get(customer)!.email === newEmail ? true : undefined), {
      what: "the Stripe customer's new email",
    });
  });

  it('checkout → webhook → pro', async () => {
    const u = await createUser(ctx.db);
    const { url } = (await checkout(u)).json() as { url: string };
    expect(await me(u)).toMatchObject({ plan: 'free', subscriptionStatus: 'none' });
    // The customer pays on the (fake) Stripe page.
    const pay = await fetch(`${stripe.url}/pay/${sessionIdOf(url)}`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(`${PUBLIC_URL}/app/account?payment=success`);
    const session = stripe.checkoutSessions.get(sessionIdOf(url))!;
    const res = await webhook('checkout.session.completed', session);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ received: true });
    expect(await me(u)).toMatchObject({ plan: 'pro', subscriptionStatus: 'active' });
    const row = await ctx.db
      .selectFrom('users')
      .select(['stripe_subscription_id', 'current_period_end', 'cancel_at_period_end'])
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    expect(row.stripe_subscription_id).toBe(session.subscription);
    expect(row.cancel_at_period_end).toBe(false);
    expect(row.current_period_end!.getTime()).toBe(
      stripe.subscriptions.get(session.subscription!)!.items.data[0]!.current_period_end * 1000,
    );
    // History (Pro only) is open now.
    const history = await ctx.app.inject({ method: 'GET', url: '/api/email', headers: u.headers });
    expect(history.statusCode).toBe(200);
  });

  it('the return from Checkout grants nothing by itself; sync does once Stripe reports the subscription active', async () => {
    const u = await createUser(ctx.db);
    const { url } = (await checkout(u)).json() as { url: string };
    // Returning to the success URL without paying: sync finds no subscription.
    let res = await post('/api/billing/sync', u);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, user: { plan: 'free', subscriptionStatus: 'none' } });
    expect(await me(u)).toMatchObject({ plan: 'free' });
    expect((await ctx.app.inject({ method: 'GET', url: '/api/email', headers: u.headers })).statusCode).toBe(
      403,
    );

    // Payment still processing: an incomplete subscription grants nothing either.
    const customer = stripe.checkoutSessions.get(sessionIdOf(url))!.customer;
    const sub = stripe.createSubscription(customer, { status: 'incomplete' });
    res = await post('/api/billing/sync', u);
    expect(res.json().user).toMatchObject({ plan: 'free', subscriptionStatus: 'none' });

    // Stripe now reports it active; no webhook arrives, the sync alone upgrades.
    stripe.updateSubscription(sub.id, { status: 'active' });
    res = await post('/api/billing/sync', u);
    expect(res.json()).toMatchObject({
      ok: true,
      user: { id: u.user.id, plan: 'pro', subscriptionStatus: 'active' },
    });
    expect(await me(u)).toMatchObject({ plan: 'pro', subscriptionStatus: 'active' });
  });

  it('sync of a user without a billing account changes nothing (an operator-granted Pro stays)', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const res = await post('/api/billing/sync', u);
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ plan: 'pro' });
  });

  it('opens the billing portal for the caller’s own customer only', async () => {
    const alice = await createUser(ctx.db);
    const bob = await createUser(ctx.db);
    // No billing account yet: a clear 400.
    let res = await post('/api/billing/create-portal', alice);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'You have no billing account yet: upgrade to Pro first.',
      code: 'no_billing_account',
    });

    await checkout(alice);
    await checkout(bob);
    const aliceCustomer = await customerOf(alice);
    const bobCustomer = await customerOf(bob);
    expect(aliceCustomer).not.toBe(bobCustomer);

    res = await post('/api/billing/create-portal', alice);
    expect(res.statusCode, res.body).toBe(200);
    const portal = stripe.portalSessions.get(sessionIdOf(res.json().url))!;
    expect(portal.customer).toBe(aliceCustomer);
    expect(portal.return_url).toBe(`${PUBLIC_URL}/app/account`);

    // A customer id in the request is not an input: unknown fields are rejected.
    res = await post('/api/billing/create-portal', alice, { customer: bobCustomer });
    expect(res.statusCode).toBe(400);
    expect(stripe.callsTo('/v1/billing_portal/sessions').every((r) => r.body.customer !== bobCustomer)).toBe(
      true,
    );

    // Bob's sync reads Bob's customer only, and Alice's subscription never reaches him.
    stripe.createSubscription(aliceCustomer!);
    res = await post('/api/billing/sync', bob);
    expect(res.json().user).toMatchObject({ id: bob.user.id, plan: 'free' });
    expect(stripe.callsTo('/v1/subscriptions').at(-1)!.query.customer).toBe(bobCustomer);
    res = await post('/api/billing/sync', alice);
    expect(res.json().user).toMatchObject({ id: alice.user.id, plan: 'pro' });
  });

  it('shows the subscription details to the account page', async () => {
    const u = await createUser(ctx.db);
    const get = () => ctx.app.inject({ method: 'GET', url: '/api/billing/subscription', headers: u.headers });
    expect((await get()).json()).toEqual({
      billingEnabled: true,
      plan: 'free',
      status: 'none',
      hasBillingAccount: false,
      cancelAtPeriodEnd: false,
      currentPeriodEnd: null,
    });
    await checkout(u);
    const end = new Date(Date.now() + 5 * 24 * 3600_000);
    stripe.createSubscription((await customerOf(u))!, { cancelAtPeriodEnd: true, currentPeriodEnd: end });
    await post('/api/billing/sync', u);
    expect((await get()).json()).toEqual({
      billingEnabled: true,
      plan: 'pro',
      status: 'active',
      hasBillingAccount: true,
      cancelAtPeriodEnd: true,
      currentPeriodEnd: new Date(Math.floor(end.getTime() / 1000) * 1000).toISOString(),
    });
  });

  it('answers 502 without Stripe’s details when Stripe fails', async () => {
    const u = await createUser(ctx.db);
    await checkout(u);
    stripe.deleteCustomer((await customerOf(u))!);
    // The portal for a customer Stripe no longer has: Stripe answers 404, we answer a clean 502.
    const res = await post('/api/billing/create-portal', u);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({
      error: 'The payment provider could not be reached. Please try again in a moment.',
      code: 'billing_provider_error',
    });
    expect(res.body).not.toContain('cus_');
  });
});
