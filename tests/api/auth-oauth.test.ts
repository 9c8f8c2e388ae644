import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertApiKey } from '../../src/server/accounts/api-keys.repo.ts';
import { newApiKey } from '../../src/server/accounts/api-keys.ts';
import { fetchIdentity } from '../../src/server/features/auth/oauth.service.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import {
  FAKE_GOOGLE_CLIENT,
  startFakeGitHub,
  startFakeGoogle,
  type FakeGitHub,
  type FakeGoogle,
} from '../support/fake-oauth.ts';
import { bearer, expectNoSecrets, mailTo, signIn, signUp } from '../support/auth-api.ts';
import { holdSignIns, whileWaiting } from '../support/lock-wait.ts';
import { startLoopbackServer } from '../support/loopback-http.ts';
import { poll } from '../support/poll.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

const PUBLIC_URL = 'http://proofmail.test';

describe('social sign-in', () => {
  let ctx: TestContext;
  let google: FakeGoogle;
  let github: FakeGitHub;

  beforeAll(async () => {
    google = await startFakeGoogle();
    github = await startFakeGitHub();
    ctx = await createTestContext({
      env: { CAPTCHA_PROVIDER: 'none', PUBLIC_URL, ...google.env, ...github.env },
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await google?.stop();
    await github?.stop();
  });

  interface FlowResult {
    /** Where the callback sent the browser. */
    landing: URL;
    start: Awaited<ReturnType<TestContext['app']['inject']>>;
    /** The `name=value` of the cookie binding the ticket to this browser, when the callback set one. */
    ticketCookie: string | undefined;
    /** Every Set-Cookie header of the callback. */
    callbackCookies: string[];
  }

  const setCookies = (res: { headers: Record<string, unknown> }): string[] =>
    [res.headers['set-cookie'] ?? []].flat().map(String);

  /**
   * Plays the browser: start at /api/auth/<p>, follow the provider's redirect (it approves at
   * once), and come back to our callback with the state cookie.
   */
  async function flow(
    provider: 'google' | 'github',
    tamper: { state?: string; dropCookie?: boolean; cookie?: string } = {},
  ): Promise<FlowResult> {
    const start = await ctx.app.inject({ method: 'GET', url: `/api/auth/${provider}` });
    expect(start.statusCode).toBe(302);
    const setCookie = String(start.headers['set-cookie']);
    const cookie = setCookie.split(';')[0]!;
    const authorize = await fetch(String(start.headers.location), { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const back = new URL(authorize.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(`${PUBLIC_URL}/api/auth/${provider}/callback`);
    if (tamper.state) back.searchParams.set('state', tamper.state);
    const callback = await ctx.app.inject({
      method: 'GET',
      url: back.pathname + back.search,
      headers: tamper.dropCookie ? {} : { cookie: tamper.cookie ?? cookie },
    });
    expect(callback.statusCode).toBe(302);
    const callbackCookies = setCookies(callback);
    const ticketCookie = callbackCookies
      .find((c) => c.startsWith('pm_oauth_ticket=') && !c.includes('Max-Age=0'))
      ?.split(';')[0];
    return { landing: new URL(String(callback.headers.location)), start, ticketCookie, callbackCookies };
  }

  /** POST /api/auth/exchange from a browser holding `cookie` (none: another browser). */
  const exchange = (ticket: string | null, cookie?: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/auth/exchange',
      payload: { ticket },
      headers: cookie ? { cookie } : {},
    });

  async function signInVia(provider: 'google' | 'github') {
    const { landing, ticketCookie } = await flow(provider);
    expect(landing.pathname).toBe('/auth/callback');
    expect(landing.searchParams.get('error')).toBeNull();
    expect(landing.searchParams.get('provider')).toBe(provider);
    const ticket = landing.searchParams.get('token')!;
    const res = await exchange(ticket, ticketCookie);
    expect(res.statusCode, res.body).toBe(200);
    return {
      ticket,
      res,
      body: res.json() as {
        user: { id: string; email: string; verified: boolean; hasPassword: boolean };
        token: string;
      },
    };
  }

  it('GET /api/auth/google redirects to the provider with PKCE (S256), state and a bound cookie', async () => {
    const { start } = await flow('google');
    const url = new URL(String(start.headers.location));
    expect(url.origin + url.pathname).toBe(`${google.issuer}/authorize`);
    expect(url.searchParams.get('client_id')).toBe(FAKE_GOOGLE_CLIENT.id);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/api/auth/google/callback`);
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    const state = url.searchParams.get('state')!;
    const cookie = String(start.headers['set-cookie']);
    expect(cookie).toContain(`pm_oauth_google=${state}.`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/api\/auth\/google\/callback/);
  });

  it('Google: a new person gets a new verified, password-less account', async () => {
    const email = uniqueEmail('g-new');
    google.setIdentity({ sub: 'g-new-1', email, email_verified: true });
    const { ticket, res, body } = await signInVia('google');
    expect(body.user).toMatchObject({ email, verified: true, hasPassword: false, plan: 'free' });
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.token).not.toBe(ticket);
    expectNoSecrets(res, [ticket]);
    const me = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(body.token) });
    expect(me.json().user.email).toBe(email);
    // The same Google account later signs in to the same user.
    const again = await signInVia('google');
    expect(again.body.user.id).toBe(body.user.id);
    // No password exists: password sign-in fails like any wrong password, and change-password explains.
    const byPassword = await signIn(ctx, email, PASSWORD);
    expect(byPassword.statusCode).toBe(401);
    expect(byPassword.json().error).toBe('Invalid email or password');
    const change = await ctx.app.inject({
      method: 'POST',
      url: '/api/user/change-password',
      headers: bearer(body.token),
      payload: { currentPassword: 'anything at all', newPassword: 'a new password' },
    });
    expect(change.statusCode).toBe(400);
    expect(change.json().code).toBe('no_password');
  });

  it('Google: links to an existing account only by a verified email, keeping its password', async () => {
    const account = await signUp(ctx);
    // Make the password account verified first.
    await ctx.db
      .updateTable('users')
      .set({ verified_at: new Date() })
      .where('id', '=', account.userId)
      .execute();
    google.setIdentity({ sub: 'g-link-1', email: account.email.toUpperCase(), email_verified: true });
    const { body } = await signInVia('google');
    expect(body.user.id).toBe(account.userId);
    expect(body.user.hasPassword).toBe(true);
    expect((await signIn(ctx, account.email)).statusCode).toBe(200);
    const link = await ctx.db
      .selectFrom('oauth_accounts')
      .selectAll()
      .where('provider_user_id', '=', 'g-link-1')
      .executeTakeFirstOrThrow();
    expect(link.user_id).toBe(account.userId);
  });

  it('Google: links by an internationalised domain written in either form', async () => {
    const local = uniqueEmail('g-idn').split('@')[0]!;
    const account = await signUp(ctx, `${local}@xn--bcher-kva.example`);
    await ctx.db
      .updateTable('users')
      .set({ verified_at: new Date() })
      .where('id', '=', account.userId)
      .execute();
    google.setIdentity({ sub: 'g-idn-1', email: `${local}@bücher.example`, email_verified: true });
    const { body } = await signInVia('google');
    expect(body.user.id).toBe(account.userId);
    expect(body.user.email).toBe(`${local}@xn--bcher-kva.example`);
  });

  it('Google: an unverified provider email is not linked and creates nothing', async () => {
    const account = await signUp(ctx);
    google.setIdentity({ sub: 'g-unverified-1', email: account.email, email_verified: false });
    const { landing } = await flow('google');
    expect(landing.pathname).toBe('/auth/callback');
    expect(landing.searchParams.get('error')).toBe('email_not_verified');
    expect(landing.searchParams.get('token')).toBeNull();
    const links = await ctx.db
      .selectFrom('oauth_accounts')
      .select('id')
      .where('provider_user_id', '=', 'g-unverified-1')
      .execute();
    expect(links).toHaveLength(0);

    google.setIdentity({ sub: 'g-unverified-2', email: uniqueEmail('g-unv'), email_verified: false });
    expect((await flow('google')).landing.searchParams.get('error')).toBe('email_not_verified');
    google.setIdentity({ sub: 'g-no-email' });
    expect((await flow('google')).landing.searchParams.get('error')).toBe('email_not_verified');
  });

  it('Google: taking over an unverified password account removes the squatter’s password, sessions and API keys', async () => {
    const squatter = await signUp(ctx); // never verified the address it claimed
    // A key the squatter made before keys needed a verified address.
    const { key, hash, prefix } = newApiKey();
    await insertApiKey(ctx.db, {
      userId: squatter.userId,
      name: 'Backup',
      keyHash: hash,
      prefix,
      now: new Date(),
    });
    google.setIdentity({ sub: 'g-owner-1', email: squatter.email, email_verified: true });
    const { body } = await signInVia('google');
    expect(body.user).toMatchObject({ id: squatter.userId, verified: true, hasPassword: false });
    expect(
      (await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(squatter.token) }))
        .statusCode,
    ).toBe(401);
    expect((await signIn(ctx, squatter.email, PASSWORD)).statusCode).toBe(401);
    expect(
      (await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(key) })).statusCode,
    ).toBe(401);
  });

  it('Google: a sign-in with the squatter’s password read before the takeover opens no session after it', async () => {
    const squatter = await signUp(ctx);
    google.setIdentity({ sub: 'g-owner-race', email: squatter.email, email_verified: true });
    const late = await whileWaiting(ctx.db, {
      hold: holdSignIns,
      start: () => signIn(ctx, squatter.email, PASSWORD),
      meanwhile: () => signInVia('google'),
    });
    expect(late.statusCode, late.body).toBe(401);
    expect(late.json()).toEqual({ error: 'Invalid email or password', code: 'invalid_credentials' });
    const sessions = await ctx.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', squatter.userId)
      .execute();
    expect(sessions).toHaveLength(1); // the owner's, from the exchange
  });

  it('Google: an id token for another audience is refused', async () => {
    google.setIdentity({ sub: 'g-aud', email: uniqueEmail('g-aud'), email_verified: true });
    google.wrongAudienceOnce();
    const { landing } = await flow('google');
    expect(landing.searchParams.get('error')).toBe('auth_failed');
    expect(ctx.logs()).toMatch(
      /"reason":"JWTClaimValidationFailed: unexpected \\"aud\\" claim value","msg":"social sign-in failed"/,
    );
  });

  it('GitHub: a new person with a verified primary email gets a verified account', async () => {
    const email = uniqueEmail('gh-new');
    github.setIdentity({
      id: 424242,
      login: 'newbie',
      emails: [
        { email: uniqueEmail('gh-secondary'), primary: false, verified: true },
        { email, primary: true, verified: true },
      ],
    });
    const before = github.tokenExchanges();
    const { body } = await signInVia('github');
    expect(github.tokenExchanges()).toBe(before + 1);
    expect(body.user).toMatchObject({ email, verified: true, hasPassword: false });
  });

  it('GitHub: links by a verified primary email', async () => {
    const account = await signUp(ctx);
    await ctx.db
      .updateTable('users')
      .set({ verified_at: new Date() })
      .where('id', '=', account.userId)
      .execute();
    github.setIdentity({
      id: 5150,
      login: 'linker',
      emails: [{ email: account.email, primary: true, verified: true }],
    });
    const { body } = await signInVia('github');
    expect(body.user.id).toBe(account.userId);
  });

  it('GitHub: an unverified primary email is not used, even when another address is verified', async () => {
    const account = await signUp(ctx);
    github.setIdentity({
      id: 7007,
      login: 'unverified',
      emails: [
        { email: account.email, primary: true, verified: false },
        { email: uniqueEmail('gh-other'), primary: false, verified: true },
      ],
    });
    const { landing } = await flow('github');
    expect(landing.searchParams.get('error')).toBe('email_not_verified');
    expect(
      await ctx.db.selectFrom('oauth_accounts').select('id').where('provider_user_id', '=', '7007').execute(),
    ).toHaveLength(0);
  });

  it('passes the provider’s error on, and reports auth_failed for anything else', async () => {
    const denied = await ctx.app.inject({
      method: 'GET',
      url: '/api/auth/google/callback?error=access_denied&state=x',
    });
    expect(denied.statusCode).toBe(302);
    expect(denied.headers.location).toBe(`${PUBLIC_URL}/auth/callback?error=access_denied&provider=google`);

    const weird = await ctx.app.inject({
      method: 'GET',
      url: '/api/auth/github/callback?error=%3Cscript%3E',
    });
    expect(weird.headers.location).toBe(`${PUBLIC_URL}/auth/callback?error=auth_failed&provider=github`);

    const noCode = await ctx.app.inject({ method: 'GET', url: '/api/auth/github/callback' });
    expect(noCode.headers.location).toBe(`${PUBLIC_URL}/auth/callback?error=auth_failed&provider=github`);
  });

  it('refuses a callback whose state does not match this browser’s cookie (login CSRF)', async () => {
    google.setIdentity({ sub: 'g-csrf', email: uniqueEmail('g-csrf'), email_verified: true });
    expect((await flow('google', { state: 'forged-state' })).landing.searchParams.get('error')).toBe(
      'auth_failed',
    );
    expect((await flow('google', { dropCookie: true })).landing.searchParams.get('error')).toBe(
      'auth_failed',
    );
    expect(
      (await flow('google', { cookie: 'pm_oauth_google=other.verifier' })).landing.searchParams.get('error'),
    ).toBe('auth_failed');
  });

  it('reports auth_failed when the provider refuses the code', async () => {
    google.setIdentity({ sub: 'g-fail', email: uniqueEmail('g-fail'), email_verified: true });
    google.failNextTokenRequest('invalid_grant');
    const { landing } = await flow('google');
    expect(landing.toString()).toBe(`${PUBLIC_URL}/auth/callback?error=auth_failed&provider=google`);
  });

  it('gives up on a token endpoint that never answers, and closes the connection', async () => {
    const silent = await startLoopbackServer(() => new Promise<void>(() => undefined));
    try {
      for (const provider of ['google', 'github'] as const) {
        const config = { ...ctx.config, [provider]: { ...ctx.config[provider]!, tokenUrl: silent.url } };
        const startedAt = Date.now();
        const closedBefore = silent.closedSockets;
        await expect(
          fetchIdentity({ config, clock: ctx.clock }, provider, 'code', 'verifier', 300),
        ).rejects.toThrow(/timeout/i);
        expect(Date.now() - startedAt).toBeLessThan(5_000);
        await poll(() => silent.closedSockets > closedBefore, { what: 'the silent connection closed' });
      }
      expect(silent.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    } finally {
      await silent.close();
    }
  });

  describe('POST /api/auth/exchange', () => {
    it('a ticket works once', async () => {
      google.setIdentity({ sub: 'g-once', email: uniqueEmail('g-once'), email_verified: true });
      const { landing, ticketCookie } = await flow('google');
      const ticket = landing.searchParams.get('token')!;
      const first = await exchange(ticket, ticketCookie);
      expect(first.statusCode).toBe(200);
      // The exchange clears the binding cookie, and the ticket is spent even for its own browser.
      expect(setCookies(first)).toContainEqual(
        expect.stringMatching(/^pm_oauth_ticket=; Max-Age=0; Path=\/api\/auth\/exchange;/),
      );
      const again = await exchange(ticket, ticketCookie);
      expect(again.statusCode).toBe(400);
      expect(again.json().code).toBe('invalid_ticket');
    });

    it('the callback binds the ticket to this browser with an HttpOnly, SameSite=Lax cookie for the exchange only', async () => {
      google.setIdentity({ sub: 'g-cookie', email: uniqueEmail('g-cookie'), email_verified: true });
      const { callbackCookies, ticketCookie } = await flow('google');
      expect(ticketCookie).toMatch(/^pm_oauth_ticket=[A-Za-z0-9_-]{43}$/);
      const set = callbackCookies.find((c) => c.startsWith(`${ticketCookie};`))!;
      expect(set).toContain('Max-Age=60;');
      expect(set).toContain('Path=/api/auth/exchange;');
      expect(set).toMatch(/HttpOnly; SameSite=Lax/);
      // The state cookie is cleared in the same answer.
      expect(callbackCookies).toContainEqual(expect.stringMatching(/^pm_oauth_google=; Max-Age=0;/));
    });

    it('login CSRF: a ticket opened in another browser is refused, and stays usable in the one that earned it', async () => {
      // The attacker signs in with their own account and stops at the redirect to /auth/callback.
      const attackerEmail = uniqueEmail('g-attacker');
      google.setIdentity({ sub: 'g-attacker', email: attackerEmail, email_verified: true });
      const attacker = await flow('google');
      const ticket = attacker.landing.searchParams.get('token')!;
      // The victim's browser opens that link: no binding cookie, or the cookie of its own flow.
      google.setIdentity({ sub: 'g-victim', email: uniqueEmail('g-victim'), email_verified: true });
      const victim = await flow('google');
      for (const cookie of [
        undefined,
        victim.ticketCookie,
        'pm_oauth_ticket=' + 'A'.repeat(43),
        'pm_oauth_ticket=short',
      ]) {
        const res = await exchange(ticket, cookie);
        expect(res.statusCode, String(cookie)).toBe(400);
        expect(res.json()).toEqual({
          error: 'This sign-in link is invalid or has expired. Please sign in again.',
          code: 'invalid_ticket',
        });
        expect(res.body).not.toContain(attackerEmail);
      }
      const sessions = await ctx.db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select('sessions.id')
        .where('users.email', '=', attackerEmail)
        .execute();
      expect(sessions).toHaveLength(0);
      // The refusals did not spend it: in the attacker's own browser it still works.
      expect((await exchange(ticket, attacker.ticketCookie)).json().user.email).toBe(attackerEmail);
    });

    it('a ticket expires after 60 seconds (injected clock)', async () => {
      google.setIdentity({ sub: 'g-late', email: uniqueEmail('g-late'), email_verified: true });
      const { landing, ticketCookie } = await flow('google');
      const ticket = landing.searchParams.get('token')!;
      ctx.clock.advance(61_000);
      const res = await exchange(ticket, ticketCookie);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('This sign-in link is invalid or has expired. Please sign in again.');
    });

    it('only oauth tickets are accepted, not verification links', async () => {
      const account = await signUp(ctx);
      const verifyMail = (await mailTo(ctx, account.email))[0]!;
      const verifyToken = /token=([A-Za-z0-9_-]{43})/.exec(verifyMail.text!)![1]!;
      expect((await exchange(verifyToken)).statusCode).toBe(400);
      expect((await exchange('garbage')).statusCode).toBe(400);
    });
  });

  it('never puts a session token in a URL', async () => {
    google.setIdentity({ sub: 'g-url', email: uniqueEmail('g-url'), email_verified: true });
    const { landing, ticketCookie } = await flow('google');
    const ticket = landing.searchParams.get('token')!;
    const { token } = (await exchange(ticket, ticketCookie)).json();
    expect(landing.toString()).not.toContain(token);
    // The ticket in the URL is not a session: it opens nothing by itself.
    const asSession = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(ticket) });
    expect(asSession.statusCode).toBe(401);
    const rows = await ctx.db
      .selectFrom('sessions')
      .select('id')
      .where('token_hash', '=', createHash('sha256').update(ticket).digest())
      .execute();
    expect(rows).toHaveLength(0);
  });
});

describe('social sign-in not configured', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none' } });
  });
  afterAll(async () => ctx?.close());

  it('sends the browser back to the page it came from with error=provider_not_configured, not a JSON 404', async () => {
    const base = 'http://localhost:3000';
    const cases: { url: string; referer?: string; to: string }[] = [
      { url: '/api/auth/google', to: '/signin' },
      { url: '/api/auth/github?from=signup', to: '/signup' },
      { url: '/api/auth/google', referer: `${base}/signup`, to: '/signup' },
      { url: '/api/auth/google', referer: `${base}/signin?next=x`, to: '/signin' },
      // Never anywhere else: another origin, another page, a crafted `from`.
      { url: '/api/auth/google', referer: 'https://evil.example/signup', to: '/signin' },
      { url: '/api/auth/google', referer: `${base}/app/account`, to: '/signin' },
      { url: '/api/auth/github?from=//evil.example', to: '/signin' },
      { url: '/api/auth/github?from=app', to: '/signin' },
    ];
    for (const { url, referer, to } of cases) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: referer ? { referer } : {} });
      expect(res.statusCode, url).toBe(302);
      const provider = url.includes('github') ? 'github' : 'google';
      expect(res.headers.location, `${url} ${referer}`).toBe(
        `${base}${to}?error=provider_not_configured&provider=${provider}`,
      );
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    // A provider that comes back to a callback the server no longer has configured.
    const callback = await ctx.app.inject({ method: 'GET', url: '/api/auth/github/callback?code=x&state=y' });
    expect(callback.statusCode).toBe(302);
    expect(callback.headers.location).toBe(
      `${base}/auth/callback?error=provider_not_configured&provider=github`,
    );
    const config = await ctx.app.inject({ method: 'GET', url: '/api/config' });
    expect(config.json().providers).toEqual({ google: false, github: false });
  });
});
