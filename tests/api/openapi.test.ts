import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { isDocumented, openApiPath, UNDOCUMENTED } from '../../src/server/http/openapi.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, PASSWORD, uniqueEmail, type TestUser } from '../support/users.ts';

/**
 * GET /api/openapi.json (docs/decisions/0074-openapi-from-the-contract.md): every /api route is in
 * the document (but those UNDOCUMENTED lists with a reason), and what each route answers matches the
 * schema the document gives for that answer. Every documented route is called here, as a user would.
 */

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }> };
};
type Operation = {
  security: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { content: Record<string, { schema?: object }> }>;
};

let ctx: TestContext;
let doc: Doc;
let owner: TestUser;
let key: string;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

beforeAll(async () => {
  ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none', FREE_SENDS_PER_MINUTE: '1000' } });
  owner = await createUser(ctx.db, { plan: 'pro', password: PASSWORD });
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/keys',
    headers: owner.headers,
    payload: { name: 'doc' },
  });
  key = res.json().key;
  const answer = await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(answer.statusCode).toBe(200);
  doc = answer.json();
});
afterAll(async () => ctx?.close());

const keyHeaders = () => ({ authorization: `Bearer ${key}` });

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with the session and API key bearer schemes, public without a session', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'http', scheme: 'bearer' });
    // Every schema in it compiles as JSON Schema 2020-12.
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          const schema = response.content['application/json']?.schema;
          if (schema) expect(() => ajv.compile(schema), `${method} ${path} ${status}`).not.toThrow();
        }
      }
    }
  });

  it('states patterns without flags, which JSON Schema drops: a parentId in capitals is valid in the document as on the server', async () => {
    const send = doc.paths['/api/email/send']!.post!.requestBody!.content['application/json']!.schema as {
      properties: { parentId: { pattern: string } };
    };
    const first = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: keyHeaders(),
      payload: { to: 'c@example.com', html: '<p>1</p>' },
    });
    const upper = (first.json().id as string).toUpperCase();
    expect(new RegExp(send.properties.parentId.pattern).test(upper)).toBe(true);
    const next = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: keyHeaders(),
      payload: { to: 'c@example.com', html: '<p>2</p>', parentId: upper },
    });
    expect(next.statusCode, next.body).toBe(200);
  });

  it('has every /api route of the route table, but those left out on purpose, with the security each accepts', () => {
    const documented = ctx.app.routeTable.filter(isDocumented);
    const left = ctx.app.routeTable.filter((r) => !isDocumented(r));
    for (const route of left)
      expect(UNDOCUMENTED.some((u) => u.pattern.test(`${route.method} ${route.url}`))).toBe(true);
    for (const route of documented) {
      const op = doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.url}`).toBeDefined();
      const schemes = op!.security.flatMap((s) => Object.keys(s)).sort();
      const expected = route.config?.public ? [] : route.config?.apiKey ? ['apiKey', 'session'] : ['session'];
      expect(schemes, `${route.method} ${route.url}`).toEqual(expected);
    }
    const count = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(count).toBe(documented.length);
    expect(doc.paths['/api/keys']?.post).toBeDefined();
    expect(doc.paths['/api/email/{id}']?.get?.security).toEqual([{ session: [] }, { apiKey: [] }]);
  });
});

describe('every documented answer matches what the route answers', () => {
  /** Checks a real answer against the document: its status is documented and its body fits the schema. */
  function conforms(method: string, url: string, res: LightMyRequestResponse): void {
    const op = doc.paths[openApiPath(url)]?.[method.toLowerCase()];
    const where = `${method} ${url} → ${res.statusCode} ${res.body.slice(0, 200)}`;
    expect(op, where).toBeDefined();
    const response =
      op!.responses[String(res.statusCode)] ?? (res.statusCode >= 300 ? op!.responses.default : undefined);
    expect(response, where).toBeDefined();
    const [type, media] = Object.entries(response!.content)[0]!;
    expect(String(res.headers['content-type']), where).toContain(type);
    if (type === 'application/json') {
      const validate = ajv.compile(media.schema!);
      expect(validate(res.json()), `${where}\n${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  }

  it('calls each documented route with a user, a key and sample bodies, and validates every answer', async () => {
    const unverified = await createUser(ctx.db, { verified: false });
    const throwaway = await createUser(ctx.db, { password: PASSWORD });
    const otherPro = await createUser(ctx.db, { plan: 'pro' });
    const sent = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: keyHeaders(),
      payload: { to: 'a@example.com', subject: 'Doc', html: '<p>Hi</p>' },
    });
    const emailId: string = sent.json().id;
    const second = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: keyHeaders(),
      payload: { to: 'b@example.com', html: '<p>Bye</p>' },
    });
    // A thread of two versions, deleted whole by the DELETE …/versions sample.
    const fourth = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: keyHeaders(),
      payload: { to: 'd@example.com', html: '<p>Round 1</p>' },
    });
    const fifth = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: keyHeaders(),
      payload: { to: 'd@example.com', html: '<p>Round 2</p>', parentId: fourth.json().id },
    });
    // Shared for the public view (the share and unshare samples below work on the first email).
    const third = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: keyHeaders(),
      payload: { to: 'c@example.com', html: '<p>Public</p>' },
    });
    const share = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/${third.json().id}/share`,
      headers: keyHeaders(),
    });
    const slug: string = share.json().email.publicSlug;
    // Stored directly, as an email sent before (no delivery to wait for).
    const protectedEmail = await insertEmail(ctx.db, {
      userId: owner.user.id,
      to: 'd@example.com',
      subject: 'Protected',
      html: '<p>Protected</p>',
      inlineCss: false,
      createdAt: ctx.clock.now(),
    });
    const locked = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/${protectedEmail.id}/share`,
      headers: keyHeaders(),
      payload: { password: 'open sesame', expiresInDays: 7 },
    });
    const lockedSlug: string = locked.json().email.publicSlug;
    const review = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/public/${slug}/reviews`,
      payload: { name: 'Spam', decision: 'comment', comment: 'Buy now', version: 1 },
    });
    const spare = await ctx.app.inject({
      method: 'POST',
      url: '/api/keys',
      headers: owner.headers,
      payload: { name: 'spare' },
    });

    type Call = {
      url?: string;
      headers?: Record<string, string>;
      payload?: object;
      query?: Record<string, string>;
    };
    const samples: Record<string, Call | Call[]> = {
      'GET /api/health': {},
      'GET /api/config': {},
      'GET /api/openapi.json': {},
      'GET /api/auth/captcha/challenge': {},
      'POST /api/auth/signup': [
        { payload: { email: uniqueEmail(), password: PASSWORD } },
        { payload: { email: 'x', password: '' } },
      ],
      'POST /api/auth/signin': [
        { payload: { email: owner.user.email, password: PASSWORD } },
        { payload: { email: owner.user.email, password: 'wrong password here' } },
      ],
      'POST /api/auth/signout': { headers: throwaway.headers },
      'GET /api/auth/me': [{ headers: keyHeaders() }, {}],
      'POST /api/auth/resend-verification': { headers: unverified.headers },
      'POST /api/auth/verify-email': { payload: { token: 'not-a-token' } },
      'POST /api/auth/cancel-email-change': { payload: { token: 'not-a-token' } },
      'POST /api/auth/request-password-reset': { payload: { email: uniqueEmail() } },
      'POST /api/auth/reset-password': {
        payload: { token: 'not-a-token', newPassword: 'a long new passphrase' },
      },
      'POST /api/auth/exchange': { payload: { ticket: 'not-a-ticket' } },
      'GET /api/user/me': { headers: keyHeaders() },
      'GET /api/user/settings': { headers: owner.headers },
      'PATCH /api/user/settings': { headers: owner.headers, payload: { loginAlerts: false } },
      'GET /api/user/target-clients': [{ headers: owner.headers }, { headers: keyHeaders() }],
      'PUT /api/user/target-clients': [
        { headers: owner.headers, payload: { targetClients: ['gmail-web', 'apple-mail-ios'] } },
        { headers: owner.headers, payload: { targetClients: ['no-such-client'] } },
      ],
      'POST /api/user/change-email': [
        { headers: owner.headers, payload: { newEmail: uniqueEmail(), currentPassword: PASSWORD } },
        { headers: keyHeaders(), payload: { newEmail: uniqueEmail(), currentPassword: PASSWORD } },
      ],
      'POST /api/user/change-password': {
        headers: unverified.headers,
        payload: { currentPassword: 'wrong', newPassword: 'another long passphrase' },
      },
      'GET /api/user/usage': { headers: keyHeaders() },
      'GET /api/billing/subscription': { headers: owner.headers },
      'POST /api/billing/create-checkout': { headers: owner.headers, payload: {} },
      'POST /api/billing/create-portal': { headers: owner.headers, payload: {} },
      'POST /api/billing/sync': { headers: owner.headers, payload: {} },
      'POST /api/email/send': [
        { headers: keyHeaders(), payload: { to: 'c@example.com', html: '<p>Hi</p>', inlineCss: true } },
        { headers: keyHeaders(), payload: { to: '', html: '' } },
        { headers: keyHeaders(), payload: { to: 'c@example.com', html: '<p>2</p>', parentId: emailId } },
        { headers: keyHeaders(), payload: { to: 'c@example.com', html: '<p>2</p>', parentId: 'nope' } },
      ],
      'POST /api/email/preview': {
        headers: keyHeaders(),
        payload: { html: '<style>p{color:red}</style><p>Hi</p>', inlineCss: true },
      },
      'GET /api/email/:id/message.eml': { url: `/api/email/${emailId}/message.eml`, headers: keyHeaders() },
      'GET /api/email/:id/export.html': { url: `/api/email/${emailId}/export.html`, headers: keyHeaders() },
      'GET /api/email/:id/export.eml': { url: `/api/email/${emailId}/export.eml`, headers: keyHeaders() },
      'GET /api/email/:id/export.png': [
        { url: `/api/email/${emailId}/export.png`, headers: keyHeaders(), query: { width: '320' } },
        { url: `/api/email/${emailId}/export.png`, headers: keyHeaders(), query: { mode: 'sepia' } },
      ],
      'GET /api/email/:id/export.pdf': {
        url: `/api/email/${emailId}/export.pdf`,
        headers: keyHeaders(),
        query: { width: '320', mode: 'dark' },
      },
      'GET /api/email/:id/thumbnail.png': {
        url: `/api/email/${emailId}/thumbnail.png`,
        headers: keyHeaders(),
      },
      'GET /api/email/:id/compare/:otherId/pixels': [
        {
          url: `/api/email/${emailId}/compare/${third.json().id}/pixels`,
          headers: keyHeaders(),
          query: { width: '320' },
        },
        { url: `/api/email/${emailId}/compare/${randomUUID()}/pixels`, headers: keyHeaders() },
      ],
      'GET /api/email': { headers: keyHeaders(), query: { limit: '5' } },
      'GET /api/email/:id': [
        { url: `/api/email/${emailId}`, headers: keyHeaders() },
        { url: `/api/email/${randomUUID()}`, headers: keyHeaders() },
      ],
      'DELETE /api/email/:id': { url: `/api/email/${second.json().id}`, headers: keyHeaders() },
      'DELETE /api/email/:id/versions': [
        { url: `/api/email/${fifth.json().id}/versions`, headers: keyHeaders() },
        { url: `/api/email/${randomUUID()}/versions`, headers: keyHeaders() },
      ],
      'POST /api/email/:id/share': { url: `/api/email/${emailId}/share`, headers: keyHeaders() },
      'POST /api/email/:id/share/rotate': {
        url: `/api/email/${emailId}/share/rotate`,
        headers: keyHeaders(),
      },
      'DELETE /api/email/:id/share': { url: `/api/email/${emailId}/share`, headers: keyHeaders() },
      'GET /api/email/shared': { headers: keyHeaders() },
      // Another user, so the owner's link for the public view stays up.
      'DELETE /api/email/shared': { headers: otherPro.headers },
      'GET /api/email/public/:slug': [
        { url: `/api/email/public/${slug}` },
        { url: '/api/email/public/nothing-here' },
      ],
      'POST /api/email/public/:slug/unlock': [
        { url: `/api/email/public/${lockedSlug}/unlock`, payload: { password: 'open sesame' } },
        { url: `/api/email/public/${lockedSlug}/unlock`, payload: { password: 'nope' } },
      ],
      'POST /api/email/public/:slug/reviews': [
        {
          url: `/api/email/public/${slug}/reviews`,
          payload: { name: 'Client', decision: 'approved', version: 1 },
        },
        { url: `/api/email/public/${slug}/reviews`, payload: { name: '', decision: 'approved', version: 1 } },
      ],
      'DELETE /api/email/:id/reviews/:reviewId': [
        { url: `/api/email/${third.json().id}/reviews/${review.json().review.id}`, headers: keyHeaders() },
        { url: `/api/email/${third.json().id}/reviews/${randomUUID()}`, headers: keyHeaders() },
      ],
      'DELETE /api/email/:id/reviews': {
        url: `/api/email/${protectedEmail.id}/reviews`,
        headers: keyHeaders(),
      },
      'GET /api/user/review-notifications': { headers: owner.headers },
      'PUT /api/user/review-notifications': {
        headers: owner.headers,
        payload: { reviewNotifications: true },
      },
      'POST /api/keys': [
        { headers: owner.headers, payload: { name: 'CI' } },
        { headers: owner.headers, payload: { name: '' } },
      ],
      'GET /api/keys': { headers: owner.headers },
      'DELETE /api/keys/:id': { url: `/api/keys/${spare.json().id}`, headers: owner.headers },
    };

    const documented = ctx.app.routeTable.filter(isDocumented);
    const statuses = new Map<string, number[]>();
    for (const route of documented) {
      const name = `${route.method} ${route.url}`;
      const calls = samples[name];
      expect(calls, `add a sample call for ${name}`).toBeDefined();
      for (const call of [calls!].flat()) {
        const res = await ctx.app.inject({
          method: route.method as 'GET',
          url: call.url ?? route.url,
          headers: call.headers,
          payload: call.payload,
          query: call.query,
        });
        expect(res.statusCode, `${name}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
        conforms(route.method, route.url, res);
        statuses.set(name, [...(statuses.get(name) ?? []), res.statusCode]);
      }
    }
    // The calls reached the routes' success answers, not only their refusals.
    const succeeded = [...statuses].filter(([, codes]) => codes.includes(200)).map(([name]) => name);
    expect(succeeded.length, JSON.stringify([...statuses])).toBeGreaterThanOrEqual(documented.length - 9);
    for (const name of [
      'POST /api/email/send',
      'GET /api/email/:id',
      'POST /api/email/preview',
      'POST /api/keys',
      'GET /api/keys',
    ]) {
      expect(statuses.get(name), name).toContain(200);
    }
  });
});
