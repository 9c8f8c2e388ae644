import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../support/child-process.ts';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser } from '../support/users.ts';

/** A self-hosted install without Stripe (docs/decisions/0017-billing-off.md): clear errors, plans via the admin CLI. */

const DISABLED = { error: 'Billing is not enabled on this server', code: 'billing_disabled' };

describe('billing off (no STRIPE_SECRET_KEY)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => ctx?.close());

  it('says so in /api/config', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/config' });
    expect(res.json().billingEnabled).toBe(false);
  });

  it('answers every billing call with a clear billing_disabled error', async () => {
    const u = await createUser(ctx.db);
    const calls = [
      { url: '/api/billing/create-checkout', payload: { price: 'pro_monthly' } },
      { url: '/api/billing/create-portal' },
      { url: '/api/billing/sync' },
    ];
    for (const call of calls) {
      const res = await ctx.app.inject({ method: 'POST', headers: u.headers, ...call });
      expect(res.statusCode, call.url).toBe(400);
      expect(res.json()).toEqual(DISABLED);
    }
    const hook = await ctx.app.inject({
      method: 'POST',
      url: '/api/billing/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' },
      payload: '{}',
    });
    expect(hook.statusCode).toBe(400);
    expect(hook.json()).toEqual(DISABLED);

    const info = await ctx.app.inject({
      method: 'GET',
      url: '/api/billing/subscription',
      headers: u.headers,
    });
    expect(info.json()).toMatchObject({
      billingEnabled: false,
      plan: 'free',
      status: 'none',
      hasBillingAccount: false,
    });
  });

  it('tells the operator, not the user, how to grant a plan: in the log at start and on each refusal', async () => {
    const hint = 'An administrator can change a plan with: npm run admin -- set-plan EMAIL pro|free';
    expect(ctx.logs()).toContain(`Billing is off (STRIPE_SECRET_KEY is not set). ${hint}`);
    const u = await createUser(ctx.db);
    const before = ctx.logs().length;
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/billing/create-portal',
      headers: u.headers,
    });
    expect(res.json()).toEqual(DISABLED); // the answer names no command
    expect(ctx.logs().slice(before)).toContain(`Billing portal refused: billing is off. ${hint}`);
  });

  it(
    'the admin command grants Pro, which unlocks history; and takes it back',
    { timeout: 120_000 },
    async () => {
      const u = await createUser(ctx.db);
      const history = async () =>
        (await ctx.app.inject({ method: 'GET', url: '/api/email', headers: u.headers })).statusCode;
      expect(await history()).toBe(403);
      const granted = await runAdmin(['set-plan', u.user.email, 'pro'], { DATABASE_URL: ctx.databaseUrl });
      expect(granted.code, granted.stderr).toBe(0);
      const me = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: u.headers });
      expect(me.json().user).toMatchObject({ plan: 'pro' });
      expect(await history()).toBe(200);
      const revoked = await runAdmin(['set-plan', u.user.email, 'free'], { DATABASE_URL: ctx.databaseUrl });
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(await history()).toBe(403);
    },
  );
});

describe('billing on but partly configured', () => {
  let ctx: TestContext;
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe();
    const { STRIPE_WEBHOOK_SECRET: _secret, STRIPE_PRICE_PRO_MONTHLY: _price, ...env } = stripe.env;
    ctx = await createTestContext({ env });
  });
  afterAll(async () => {
    await ctx?.close();
    await stripe?.stop();
  });

  it('without a price, checkout explains it is not configured (503) and reaches no Stripe', async () => {
    const u = await createUser(ctx.db);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/billing/create-checkout',
      headers: u.headers,
      payload: { price: 'pro_monthly' },
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      error: 'Billing is not fully configured on this server. Please contact the administrator.',
      code: 'billing_not_configured',
    });
    expect(stripe.requests).toEqual([]);
  });

  it('without a webhook secret, webhooks are refused (503) rather than trusted unsigned', async () => {
    const signed = stripe.signedEvent('customer.subscription.updated', { id: 'sub_1', customer: 'cus_1' });
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/billing/webhook',
      headers: signed.headers,
      payload: signed.payload,
    });
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('webhook_not_configured');
  });
});
