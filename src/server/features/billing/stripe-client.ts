import type Stripe from 'stripe';
import type { Config } from '../../config.ts';

/**
 * The Stripe API client, built from configuration (docs/architecture.md §4). STRIPE_API_URL points
 * it somewhere else than api.stripe.com (a local fake in tests). Returns undefined when billing is
 * off (docs/decisions/0017-billing-off.md), and then the SDK is never loaded: it costs about 20 MiB
 * of memory and 70 ms of start-up, and billing is off in a default install.
 */
export async function createStripeClient(config: Config): Promise<Stripe | undefined> {
  if (!config.stripe) return undefined;
  const { default: StripeClient } = await import('stripe');
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
  return new StripeClient(config.stripe.secretKey, options);
}
