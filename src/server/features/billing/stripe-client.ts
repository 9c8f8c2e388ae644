import Stripe from 'stripe';
import type { Config } from '../../config.ts';

/**
 * The Stripe API client, built from configuration (docs/architecture.md §4). STRIPE_API_URL points
 * it somewhere else than api.stripe.com (a local fake in tests). Returns undefined when billing is
 * off (docs/decisions/0017-billing-off.md).
 */
export function createStripeClient(config: Config): Stripe | undefined {
  if (!config.stripe) return undefined;
  const options: ConstructorParameters<typeof Stripe>[1] = {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    appInfo: { name: 'Proofmail' },
  };
  if (config.stripe.apiUrl) {
    const url = new URL(config.stripe.apiUrl);
    const protocol = url.protocol === 'http:' ? 'http' : 'https';
    options.host = url.hostname;
    options.port = url.port || (protocol === 'http' ? 80 : 443);
    options.protocol = protocol;
  }
  return new Stripe(config.stripe.secretKey, options);
}
