import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/test-app.ts';

describe('system API', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { FREE_MONTHLY_LIMIT: '50' } });
  });
  afterAll(async () => ctx?.close());

  it('GET /api/health pings the real database', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, database: 'up' });
  });

  it('GET /api/config answers the public settings and no secrets', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/config' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      freeMonthlyLimit: 50,
      proMonthlyLimit: 10000,
      proPriceMonthly: 13,
      proPriceId: 'pro_monthly',
      maxRecipients: 5,
      providers: { google: false, github: false },
      billingEnabled: false,
    });
    expect(JSON.stringify(body)).not.toMatch(/secret|password|postgres/i);
  });

  it('unknown /api paths answer the JSON 404 shape', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const res = await ctx.app.inject({ method, url: '/api/does-not-exist?token=abc' });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.json()).toEqual({ error: 'Not found', code: 'not_found' });
    }
  });

  it('sets the security headers on API responses', async () => {
    for (const url of ['/api/health', '/api/config', '/api/nothing']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBeTruthy();
    }
  });

  it('never logs query strings', async () => {
    await ctx.app.inject({ method: 'GET', url: '/api/health?token=very-secret-token-value' });
    expect(ctx.logs()).toContain('/api/health');
    expect(ctx.logs()).not.toContain('very-secret-token-value');
  });

  it('does not send CORS headers for origins that are not allowed', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/config',
      headers: { origin: 'https://evil.example' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS allowlist', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CORS_ORIGINS: 'https://app.example.com' } });
  });
  afterAll(async () => ctx?.close());

  it('answers the listed origin and never reflects another', async () => {
    const ok = await ctx.app.inject({
      method: 'OPTIONS',
      url: '/api/config',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const bad = await ctx.app.inject({
      method: 'GET',
      url: '/api/config',
      headers: { origin: 'https://evil.example' },
    });
    expect(bad.headers['access-control-allow-origin']).toBeUndefined();
  });
});
