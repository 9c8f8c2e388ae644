import { z } from 'zod';
import { PRO_PRICE_ID, SUBSCRIPTION_STATUSES, PLANS } from '../plans.ts';
import { user } from './auth.ts';

/** Billing API contract (docs/spec.md §7 billing calls). */

export const BILLING_MESSAGES = {
  disabled: 'Billing is not enabled on this server',
  /** How an operator changes plans when billing is off (docs/decisions/0017-billing-off.md). */
  adminHint: 'An administrator can change a plan with: npm run admin -- set-plan EMAIL pro|free',
} as const;

export const createCheckoutRequest = z.strictObject({
  price: z.literal(PRO_PRICE_ID, { error: `Unknown price: the only plan on sale is ${PRO_PRICE_ID}` }),
});
export type CreateCheckoutRequest = z.infer<typeof createCheckoutRequest>;

/** create-portal and sync take no input; an empty JSON object is accepted too. */
export const emptyRequest = z.strictObject({}).nullish();

/** A Stripe-hosted page (Checkout or the billing portal) the browser is sent to. */
export const redirectUrlResponse = z.object({ url: z.string() });
export type RedirectUrlResponse = z.infer<typeof redirectUrlResponse>;

export const syncResponse = z.object({ ok: z.literal(true), user });
export type SyncResponse = z.infer<typeof syncResponse>;

/** GET /api/billing/subscription: what the account page shows about the subscription. */
export const subscriptionResponse = z.object({
  billingEnabled: z.boolean(),
  plan: z.enum(PLANS),
  status: z.enum(SUBSCRIPTION_STATUSES),
  /** True once the user has a billing account (so Manage Billing can open the portal). */
  hasBillingAccount: z.boolean(),
  cancelAtPeriodEnd: z.boolean(),
  /** ISO time the paid period ends (renewal, or the end of Pro when cancelling); null if unknown. */
  currentPeriodEnd: z.string().nullable(),
});
export type SubscriptionInfo = z.infer<typeof subscriptionResponse>;

export const webhookResponse = z.object({ received: z.literal(true) });
