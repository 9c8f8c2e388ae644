import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * Property-based fuzzing of every JSON endpoint in the route table: arbitrary and
 * near-valid bodies, headers and ids. Properties: never a 5xx, never a stack trace or internal
 * detail in a body, always the one error shape, and a rejected request changes nothing.
 */

const FIELDS = [
  'email',
  'password',
  'captchaToken',
  'token',
  'newPassword',
  'currentPassword',
  'newEmail',
  'loginAlerts',
  'ticket',
  'to',
  'subject',
  'html',
  'inlineCss',
  'price',
  'cursor',
  'limit',
  'q',
];

const nasty = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '\ud800',
  'a\udc00b',
  '\r\n',
  '../../etc/passwd',
  "' OR 1=1 --",
  '%',
  '_',
  '<script>alert(1)</script>',
  'a@x.com, "b"@y.com',
  'pro_monthly',
  '00000000-0000-0000-0000-000000000000',
  'x'.repeat(5000),
  '__proto__',
  'constructor',
  '😀'.repeat(50),
  '-1',
  '1e309',
);
const value = fc.oneof(
  nasty,
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }),
);
// Near-valid: the endpoints' own field names with wrong, edge or hostile values.
const nearValidBody = fc.dictionary(
  fc.constantFrom(...FIELDS, '__proto__', 'userId', 'plan', 'verified'),
  value,
  {
    maxKeys: 5,
  },
);
const body = fc.oneof(nearValidBody, fc.jsonValue(), fc.constant(undefined), fc.string());
const idSegment = fc.oneof(nasty, fc.string({ minLength: 1, maxLength: 40 }), fc.uuid());

/**
 * A path segment as a client could send it: a lone surrogate, which encodeURIComponent refuses,
 * goes as the three bytes it would take in UTF-8 if it could (%ED%A0%80), which is not UTF-8.
 */
function encodeSegment(text: string): string {
  // Code point by code point (the u flag keeps a pair whole and a lone surrogate alone).
  return text.replace(/[^]/gu, (unit) => {
    const code = unit.charCodeAt(0);
    if (unit.length > 1 || code < 0xd800 || code > 0xdfff) return encodeURIComponent(unit);
    return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
      .map((b) => `%${b.toString(16).toUpperCase()}`)
      .join('');
  });
}

const STACK =
  /\bat .+\(.+:\d+:\d+\)|node_modules|\/src\/server\/|ECONNREFUSED|syntax error at or near|TypeError|ReferenceError/;

describe('fuzzing every JSON endpoint', () => {
  let ctx: TestContext;
  let user: TestUser;
  let pro: TestUser;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CAPTCHA_MAX_NUMBER: '100' } });
    user = await createUser(ctx.db);
    pro = await createUser(ctx.db, { plan: 'pro' });
    await insertEmail(ctx.db, {
      userId: pro.user.id,
      to: 'c@example.com',
      subject: 's',
      html: '<p>x</p>',
      inlineCss: false,
      createdAt: new Date(),
    });
  });
  afterAll(async () => ctx?.close());

  /** A digest of the state a rejected request must not touch. */
  async function snapshot(): Promise<string> {
    const { rows } = await sql<{ digest: string }>`
      select md5(
        coalesce((select string_agg(u::text, ',' order by id) from (select id, email, password_hash, verified_at, plan,
          subscription_status, login_alerts, stripe_customer_id from users) u), '') ||
        coalesce((select string_agg(e::text, ',' order by id) from (select id, to_addresses, subject from emails) e), '') ||
        coalesce((select string_agg(x::text, ',' order by thread_id) from (select thread_id, slug, expires_at, password_hash, views from email_shares) x), '') ||
        coalesce((select string_agg(r::text, ',' order by id) from (select id, name, comment from email_reviews) r), '') ||
        coalesce((select string_agg(s::text, ',' order by id) from (select id, user_id, expires_at from sessions) s), '') ||
        coalesce((select string_agg(t::text, ',' order by id) from (select id, purpose, used_at from tokens) t), '') ||
        (select count(*) from mail_outbox)::text || (select count(*) from usage_ledger)::text ||
        coalesce((select string_agg(c::text, ',') from usage_counters c), '')
      ) as digest`.execute(ctx.db);
    return rows[0]!.digest;
  }

  it('has a route table to walk', () => {
    const urls = ctx.app.routeTable.map((r) => `${r.method} ${r.url}`);
    for (const expected of [
      'POST /api/auth/signup',
      'POST /api/email/send',
      'GET /api/email/:id',
      'POST /api/billing/webhook',
    ]) {
      expect(urls).toContain(expected);
    }
  });

  it('never answers 5xx, never leaks internals, and a rejected request changes nothing', async () => {
    // Routes that redirect browsers to providers are not JSON endpoints.
    const routes = ctx.app.routeTable.filter((r) => !/\/(google|github)(\/callback)?$/.test(r.url));
    const auth = fc.constantFrom<Record<string, string>>(
      {},
      user.headers,
      pro.headers,
      { authorization: 'Bearer not-a-real-token' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: `Bearer ${'A'.repeat(43)}` },
    );
    const contentType = fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        body,
        auth,
        contentType,
        idSegment,
        fc.dictionary(fc.constantFrom('cursor', 'limit', 'q', 'x'), fc.oneof(nasty, fc.string()), {
          maxKeys: 3,
        }),
        async (route, payload, headers, type, id, query) => {
          const url =
            route.url.replace(/:[a-zA-Z]+/g, () => encodeSegment(id) || 'x') +
            (Object.keys(query).length ? `?${new URLSearchParams(query).toString()}` : '');
          const before = await snapshot();
          const withBody = route.method !== 'GET' && route.method !== 'DELETE' && payload !== undefined;
          const res = await ctx.app.inject({
            method: route.method as 'GET',
            url,
            headers: { ...headers, ...(withBody ? { 'content-type': type } : {}) },
            ...(withBody ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
          });
          expect(
            res.statusCode,
            `${route.method} ${url} → ${res.statusCode} ${res.body.slice(0, 200)}`,
          ).toBeLessThan(500);
          expect(res.body).not.toMatch(STACK);
          if (res.statusCode >= 400) {
            const parsed = res.json() as { error?: unknown };
            expect(typeof parsed.error).toBe('string');
            expect(
              await snapshot(),
              `${route.method} ${url} changed state while answering ${res.statusCode}`,
            ).toBe(before);
          }
        },
      ),
      { numRuns: 1000, seed: Number(process.env.FUZZ_SEED ?? 20261121), verbose: 1 },
    );
  }, 240_000);
});
