import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  BILLING_MESSAGES,
  createCheckoutRequest,
  emptyRequest,
  redirectUrlResponse,
  subscriptionResponse,
  syncResponse,
  webhookResponse,
} from '../../../shared/contract/billing.ts';
import { toUserResponse } from '../../accounts/user-view.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { requireUser, PUBLIC_ROUTE } from '../../http/auth.ts';
import { MAX_WAITING_TURNS } from '../../db/connection-turns.ts';
import { enforceRateLimits, rateRule } from '../../http/rate-limit.ts';
import {
  billingDisabled,
  createCheckout,
  createPortal,
  handleWebhook,
  subscriptionInfo,
  syncUser,
  updateCustomerEmail,
  type BillingDeps,
} from './billing.service.ts';
import { createStripeClient } from './stripe-client.ts';

const MINUTE = 60_000;

/** Each call reaches Stripe; the payment return flow makes up to 10 syncs in a row. */
export const BILLING_RATE_RULES = {
  sessions: rateRule('billing-sessions-account', 20, 10 * MINUTE, 'billing requests'),
  sync: rateRule('billing-sync-account', 60, 10 * MINUTE, 'billing refreshes'),
} as const;

/** What a client should expect from the calls that wait for Stripe besides the default error answer. */
const STRIPE_CALL_ERRORS: Record<number, string> = {
  429: `More than ${MAX_WAITING_TURNS} of your billing requests already waiting behind your running one (\`too_many_billing_requests\`, with \`Retry-After\`).`,
};

/** Stripe events are small; anything far larger is not from Stripe. */
const WEBHOOK_BODY_LIMIT = 512 * 1024;

export function registerBillingRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  const billing: BillingDeps = {
    config: deps.config,
    db: deps.db,
    clock: deps.clock,
    stripe: deps.stripe,
    sessions: deps.sessions,
    turns: deps.slowTurns,
  };
  deps.accountEvents.onEmailChanged((change) => updateCustomerEmail(billing, change, app.log));
  const refuseBilling = (request: FastifyRequest, action: string) => {
    request.log.info(`${action} refused: billing is off. ${BILLING_MESSAGES.adminHint}`);
    return billingDisabled();
  };
  // Plugins load in order, so the client is there before the routes below can be reached.
  void app.register(async () => {
    billing.stripe ??= await createStripeClient(deps.config);
    // Billing off: end users are only told that it is off (docs/decisions/0057-billing-off-says-so.md);
    // how to grant a plan is for the operator, here and in the README.
    if (!billing.stripe)
      app.log.info(`Billing is off (STRIPE_SECRET_KEY is not set). ${BILLING_MESSAGES.adminHint}`);
    if (billing.stripe && !deps.config.stripe?.webhookSecret) {
      app.log.warn(
        'Billing is on but STRIPE_WEBHOOK_SECRET is not set: plans will only change through /api/billing/sync',
      );
    }
    if (billing.stripe && !deps.config.stripe?.priceProMonthly) {
      app.log.warn('Billing is on but STRIPE_PRICE_PRO_MONTHLY is not set: checkout cannot start');
    }
  });

  void app.register(async (api) => {
    const r = api.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/api/billing/subscription',
      { schema: { response: { 200: subscriptionResponse } } },
      async (request) => {
        const info = await subscriptionInfo(billing, requireUser(request));
        return {
          billingEnabled: info.billingEnabled,
          plan: info.plan,
          status: info.status,
          hasBillingAccount: info.hasBillingAccount,
          cancelAtPeriodEnd: info.cancelAtPeriodEnd,
          currentPeriodEnd: info.currentPeriodEnd,
        };
      },
    );

    r.post(
      '/api/billing/create-checkout',
      {
        config: { errorAnswers: STRIPE_CALL_ERRORS },
        schema: { body: createCheckoutRequest, response: { 200: redirectUrlResponse } },
      },
      async (request, reply) => {
        const user = requireUser(request);
        if (!billing.stripe) throw refuseBilling(request, 'Checkout');
        await enforceRateLimits(
          deps.db,
          reply,
          [{ rule: BILLING_RATE_RULES.sessions, subject: user.id }],
          deps.clock.now(),
        );
        return { url: await createCheckout(billing, user, request.log) };
      },
    );

    r.post(
      '/api/billing/create-portal',
      { schema: { body: emptyRequest, response: { 200: redirectUrlResponse } } },
      async (request, reply) => {
        const user = requireUser(request);
        if (!billing.stripe) throw refuseBilling(request, 'Billing portal');
        await enforceRateLimits(
          deps.db,
          reply,
          [{ rule: BILLING_RATE_RULES.sessions, subject: user.id }],
          deps.clock.now(),
        );
        return { url: await createPortal(billing, user, request.log) };
      },
    );

    r.post(
      '/api/billing/sync',
      {
        config: { errorAnswers: STRIPE_CALL_ERRORS },
        schema: { body: emptyRequest, response: { 200: syncResponse } },
      },
      async (request, reply) => {
        const user = requireUser(request);
        if (!billing.stripe) throw refuseBilling(request, 'Billing sync');
        await enforceRateLimits(
          deps.db,
          reply,
          [{ rule: BILLING_RATE_RULES.sync, subject: user.id }],
          deps.clock.now(),
        );
        const synced = await syncUser(billing, user.id, request.log);
        return { ok: true as const, user: toUserResponse(synced) };
      },
    );
  });

  // The webhook in its own scope: Stripe signs the exact bytes it sent, so this route keeps the
  // raw body instead of parsing JSON (the signature check then parses it).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_request, body, done) => {
        done(null, body);
      },
    );
    const r = scope.withTypeProvider<ZodTypeProvider>();
    r.post(
      '/api/billing/webhook',
      { config: PUBLIC_ROUTE, schema: { response: { 200: webhookResponse } } },
      async (request) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const header = request.headers['stripe-signature'];
        const signature = Array.isArray(header) ? header[0] : header;
        await handleWebhook(billing, raw, signature, request.log);
        return { received: true as const };
      },
    );
  });
}
