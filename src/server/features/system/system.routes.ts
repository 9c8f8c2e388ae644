import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { healthResponse, publicConfig, type PublicConfig } from '../../../shared/contract/system.ts';
import { MAX_RECIPIENTS, PRO_PRICE_ID, PRO_PRICE_MONTHLY } from '../../../shared/plans.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { PUBLIC_ROUTE } from '../../http/auth.ts';

export function publicConfigOf(deps: FeatureDeps): PublicConfig {
  const { config } = deps;
  return {
    freeMonthlyLimit: config.freeMonthlyLimit,
    proMonthlyLimit: config.proMonthlyLimit,
    proPriceMonthly: PRO_PRICE_MONTHLY,
    proPriceId: PRO_PRICE_ID,
    maxRecipients: MAX_RECIPIENTS,
    providers: { google: Boolean(config.google), github: Boolean(config.github) },
    billingEnabled: Boolean(config.stripe),
    // Sign-up's bot challenge (ALTCHA, self-hosted); 'none' means sign-up needs no token.
    captcha:
      config.captcha.provider === 'altcha'
        ? { provider: 'altcha', challengeUrl: '/api/auth/captcha/challenge' }
        : { provider: 'none', challengeUrl: null },
    mailCatcher: deps.mailCatcher ?? false,
    renderer: deps.renderer.available,
    supportEmail: config.supportEmail,
    abuseEmail: config.abuseEmail,
  };
}

export function registerSystemRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const body = publicConfigOf(deps);

  r.get('/api/health', { config: PUBLIC_ROUTE, schema: { response: { 200: healthResponse } } }, async () => {
    await sql`select 1`.execute(deps.db);
    return { ok: true as const, database: 'up' as const };
  });

  r.get(
    '/api/config',
    { config: PUBLIC_ROUTE, schema: { response: { 200: publicConfig } } },
    async (_req, res) => {
      void res.header('Cache-Control', 'no-cache');
      return body;
    },
  );
}
