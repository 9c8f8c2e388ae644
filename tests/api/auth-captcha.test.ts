import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { solveCaptcha } from '../support/auth-api.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

describe('captcha (ALTCHA) on sign-up', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'altcha', CAPTCHA_MAX_NUMBER: '200' } });
  });
  afterAll(async () => ctx?.close());

  const signUp = (captchaToken?: string, email = uniqueEmail('captcha')) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload:
        captchaToken === undefined
          ? { email, password: PASSWORD }
          : { email, password: PASSWORD, captchaToken },
    });

  const expectCaptchaError = (res: Awaited<ReturnType<typeof signUp>>) => {
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Please complete the CAPTCHA', code: 'captcha_required' });
  };

  it('GET /api/config tells the browser to use ALTCHA and where the challenge is', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/config' });
    expect(res.json().captcha).toEqual({ provider: 'altcha', challengeUrl: '/api/auth/captcha/challenge' });
  });

  it('GET /api/auth/captcha/challenge answers a signed challenge that expires in about 10 minutes', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/auth/captcha/challenge' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(body.parameters).toMatchObject({ algorithm: 'SHA-256', cost: 1, keyLength: 32 });
    expect(body.parameters.keySignature).toMatch(/^[0-9a-f]{64}$/);
    const expiresInS = body.parameters.expiresAt - ctx.clock.now().getTime() / 1000;
    expect(expiresInS).toBeGreaterThan(9 * 60);
    expect(expiresInS).toBeLessThanOrEqual(10 * 60);
  });

  it('accepts a solved challenge', async () => {
    const res = await signUp(await solveCaptcha(ctx));
    expect(res.statusCode).toBe(200);
    expect(res.json().user.verified).toBe(false);
  });

  it('rejects a missing or empty solution', async () => {
    expectCaptchaError(await signUp());
    expectCaptchaError(await signUp(''));
  });

  it('rejects garbage and forged solutions', async () => {
    expectCaptchaError(await signUp('not base64 json at all'));
    expectCaptchaError(await signUp(Buffer.from('{"challenge":1}').toString('base64')));
    // A correct solution whose parameters were edited (the signature no longer matches).
    const token = await solveCaptcha(ctx);
    const payload = JSON.parse(Buffer.from(token, 'base64').toString());
    payload.challenge.parameters.expiresAt += 3600;
    expectCaptchaError(await signUp(Buffer.from(JSON.stringify(payload)).toString('base64')));
    // A wrong answer to a genuine challenge.
    const wrong = JSON.parse(Buffer.from(await solveCaptcha(ctx), 'base64').toString());
    wrong.solution.counter += 1;
    wrong.solution.derivedKey = 'ab'.repeat(32);
    expectCaptchaError(await signUp(Buffer.from(JSON.stringify(wrong)).toString('base64')));
  });

  it('rejects a replayed solution', async () => {
    const token = await solveCaptcha(ctx);
    expect((await signUp(token)).statusCode).toBe(200);
    expectCaptchaError(await signUp(token));
  });

  it('rejects an expired challenge (injected clock)', async () => {
    const token = await solveCaptcha(ctx);
    ctx.clock.advance(10 * 60_000 + 1000);
    expectCaptchaError(await signUp(token));
  });

  it('checks the fields before spending the captcha', async () => {
    const token = await solveCaptcha(ctx);
    const short = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: uniqueEmail(), password: 'short', captchaToken: token },
    });
    expect(short.json().error).toBe('Password must be at least 8 characters');
    expect((await signUp(token)).statusCode).toBe(200);
  });
});

describe('captcha turned off (CAPTCHA_PROVIDER=none)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none' } });
  });
  afterAll(async () => ctx?.close());

  it('reports no captcha, has no challenge route, and signs up without a token', async () => {
    const config = await ctx.app.inject({ method: 'GET', url: '/api/config' });
    expect(config.json().captcha).toEqual({ provider: 'none', challengeUrl: null });
    const challenge = await ctx.app.inject({ method: 'GET', url: '/api/auth/captcha/challenge' });
    expect(challenge.statusCode).toBe(404);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: uniqueEmail(), password: PASSWORD },
    });
    expect(res.statusCode).toBe(200);
  });
});
