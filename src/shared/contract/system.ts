import { z } from 'zod';

export const healthResponse = z.object({
  ok: z.literal(true),
  database: z.literal('up'),
});
export type HealthResponse = z.infer<typeof healthResponse>;

/** Public configuration the browser needs; never a secret (docs/architecture.md §4). */
export const publicConfig = z.object({
  freeMonthlyLimit: z.number().int().nonnegative(),
  proMonthlyLimit: z.number().int().nonnegative(),
  proPriceMonthly: z.number(),
  proPriceId: z.string(),
  maxRecipients: z.number().int().positive(),
  providers: z.object({ google: z.boolean(), github: z.boolean() }),
  billingEnabled: z.boolean(),
  captcha: z.object({
    provider: z.enum(['altcha', 'none']),
    challengeUrl: z.string().nullable(),
  }),
  mailCatcher: z.boolean(),
  /** Whether PNG and PDF exports and pixel diffs can be made (a Chromium was found). */
  renderer: z.boolean(),
  supportEmail: z.string(),
  abuseEmail: z.string(),
});
export type PublicConfig = z.infer<typeof publicConfig>;
