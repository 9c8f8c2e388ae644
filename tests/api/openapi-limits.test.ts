import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { API_KEY_MESSAGES } from '../../src/shared/contract/api-keys.ts';
import { TARGET_CLIENT_IDS } from '../../src/shared/contract/checks.ts';
import { REVIEW_MESSAGES } from '../../src/shared/review-rules.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, uniqueEmail, type TestUser } from '../support/users.ts';

/**
 * The OpenAPI document states the limits the server enforces, no looser and no stricter
 * (docs/decisions/0074-openapi-from-the-contract.md, 0114-answers-that-say-what-the-api-takes.md).
 * The contract's zod schemas bound the parser loosely and the services check the real limits with
 * their own messages, so the document's limits come from `.meta()` beside them. This file reads
 * each limit from the document and proves it on the running app: a value at the limit is taken,
 * one just past it is refused. A document that promised more than the server takes fails the
 * first; one that promised less, the second.
 */

type Schema = {
  type?: string | string[];
  maxLength?: number;
  minLength?: number;
  maximum?: number;
  minimum?: number;
  maxItems?: number;
  minItems?: number;
  enum?: unknown[];
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
};
type Operation = {
  parameters: { name: string; in: string; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content: Record<string, { schema?: object }> }>;
};
type Doc = { info: { description: string }; paths: Record<string, Record<string, Operation>> };

let ctx: TestContext;
let doc: Doc;
let pro: TestUser;

beforeAll(async () => {
  ctx = await createTestContext({
    env: { CAPTCHA_PROVIDER: 'none', FREE_SENDS_PER_MINUTE: '1000', PRO_SENDS_PER_MINUTE: '1000' },
  });
  pro = await createUser(ctx.db, { plan: 'pro' });
  doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
});
afterAll(async () => ctx?.close());

const operation = (method: string, path: string): Operation => {
  const op = doc.paths[path]?.[method];
  expect(op, `${method} ${path}`).toBeDefined();
  return op!;
};

/** The non-null branch of `T | null`, as z.toJSONSchema writes a nullable. */
const present = (schema: Schema): Schema =>
  schema.anyOf?.find((s) => s.type !== 'null' && s.type !== undefined) ?? schema;

/** A property of the request body, by path (`pin.x`). */
function bodyField(method: string, path: string, field: string): Schema {
  let at = present(operation(method, path).requestBody!.content['application/json']!.schema);
  for (const name of field.split('.')) {
    const next = at.properties?.[name];
    expect(next, `${method} ${path} ${field}`).toBeDefined();
    at = present(next!);
  }
  return at;
}

function queryParam(method: string, path: string, name: string): Schema {
  const p = operation(method, path).parameters.find((x) => x.in === 'query' && x.name === name);
  expect(p, `${method} ${path} ?${name}`).toBeDefined();
  return p!.schema;
}

const limit = (value: number | undefined, what: string): number => {
  expect(value, what).toBeTypeOf('number');
  return value!;
};

const ok = (res: LightMyRequestResponse, what: string) =>
  expect(res.statusCode, `${what}: ${res.body}`).toBe(200);
const refused = (res: LightMyRequestResponse, what: string, status = 400) =>
  expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBe(status);

describe('string lengths: at the documented limit taken, one past it refused', () => {
  const preview = (payload: object) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/email/preview',
      headers: pro.headers,
      payload: { html: '<p>x</p>', ...payload },
    });

  it('html and text of send and preview: 1 MB of UTF-8, said in bytes, refused with 413 past it', async () => {
    for (const path of ['/api/email/send', '/api/email/preview']) {
      for (const field of ['html', 'text']) {
        const schema = bodyField('post', path, field);
        expect(schema.maxLength, `${path} ${field}`).toBe(1_048_576);
        expect(schema.description, `${path} ${field}`).toMatch(/1 MB of UTF-8/);
      }
    }
    const max = limit(bodyField('post', '/api/email/preview', 'html').maxLength, 'html');
    const html = (n: number) => `<p>${'a'.repeat(n - 7)}</p>`;
    const textMax = limit(bodyField('post', '/api/email/preview', 'text').maxLength, 'text');
    ok(await preview({ html: html(max), text: 'b'.repeat(textMax) }), 'preview at the limits');
    const overHtml = await preview({ html: html(max + 1) });
    refused(overHtml, 'preview html past the limit', 413);
    expect(overHtml.json().code).toBe('html_too_large');
    const overText = await preview({ text: 'b'.repeat(textMax + 1) });
    refused(overText, 'preview text past the limit', 413);
    expect(overText.json().code).toBe('text_too_large');
    // The limit is bytes: the same number of characters of two bytes each is past it.
    refused(await preview({ html: `<p>${'é'.repeat((max - 7) / 2 + 1)}</p>` }), 'two-byte html', 413);

    const send = (payload: object) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/email/send',
        headers: pro.headers,
        payload: { to: 'a@example.com', ...payload },
      });
    const sendMax = limit(bodyField('post', '/api/email/send', 'html').maxLength, 'send html');
    ok(await send({ html: html(sendMax) }), 'send at the limit');
    refused(await send({ html: html(sendMax + 1) }), 'send past the limit', 413);
  });

  it('subject and to of a preview', async () => {
    const subject = limit(bodyField('post', '/api/email/preview', 'subject').maxLength, 'subject');
    ok(await preview({ subject: 's'.repeat(subject) }), 'subject at the limit');
    refused(await preview({ subject: 's'.repeat(subject + 1) }), 'subject past the limit');
    expect(limit(bodyField('post', '/api/email/send', 'subject').maxLength, 'send subject')).toBe(subject);

    const to = limit(bodyField('post', '/api/email/preview', 'to').maxLength, 'to');
    // Entries are trimmed (docs/spec.md §5), so one address padded with blanks fills the field.
    ok(await preview({ to: 'a@example.com'.padEnd(to) }), 'to at the limit');
    refused(await preview({ to: 'a@example.com'.padEnd(to + 1) }), 'to past the limit');
    expect(limit(bodyField('post', '/api/email/send', 'to').maxLength, 'send to')).toBe(to);
    expect(bodyField('post', '/api/email/send', 'to').description).toMatch(/5/);
  });

  it('sample data: documented as an object, and only an object is taken', async () => {
    expect(bodyField('post', '/api/email/preview', 'template.data').type).toBe('object');
    ok(await preview({ template: { syntax: 'handlebars', data: { name: 'Ada' } } }), 'object');
    refused(await preview({ template: { syntax: 'handlebars', data: ['Ada'] } }), 'array');
  });

  it('an API key name: 1 to 64, and past the parser’s own bound the same answer', async () => {
    const schema = bodyField('post', '/api/keys', 'name');
    const max = limit(schema.maxLength, 'name');
    expect(max).toBe(64);
    expect(schema.minLength).toBe(1);
    const create = (name: string) =>
      ctx.app.inject({ method: 'POST', url: '/api/keys', headers: pro.headers, payload: { name } });
    ok(await create('k'.repeat(max)), 'name at the limit');
    const tooLong = { error: API_KEY_MESSAGES.nameTooLong, code: 'invalid_name' };
    for (const length of [max + 1, 256, 257, 5_000]) {
      const res = await create('k'.repeat(length));
      refused(res, `name of ${length}`);
      expect(res.json(), `name of ${length}`).toEqual(tooLong);
    }
    refused(await create(''), 'empty name');
  });

  it('history: q, cursor and limit', async () => {
    const list = (query: Record<string, string>) =>
      ctx.app.inject({ method: 'GET', url: '/api/email', headers: pro.headers, query });
    const q = limit(queryParam('get', '/api/email', 'q').maxLength, 'q');
    ok(await list({ q: 'q'.repeat(q) }), 'q at the limit');
    refused(await list({ q: 'q'.repeat(q + 1) }), 'q past the limit');

    // A cursor is opaque: one of the documented length that the server takes is a real one
    // (`created_at|id`, base64url) with room to spare after it; one character more is refused.
    const cursorMax = limit(queryParam('get', '/api/email', 'cursor').maxLength, 'cursor');
    const head = `${new Date().toISOString()}|${randomUUID()}|`;
    const cursor = Buffer.from(head.padEnd(Math.floor((cursorMax * 3) / 4), 'x')).toString('base64url');
    expect(cursor).toHaveLength(cursorMax);
    ok(await list({ cursor }), 'cursor at the limit');
    refused(await list({ cursor: `${cursor}A` }), 'cursor past the limit');

    const pageSize = queryParam('get', '/api/email', 'limit');
    ok(await list({ limit: String(limit(pageSize.maximum, 'limit')) }), 'limit at the maximum');
    refused(await list({ limit: String(pageSize.maximum! + 1) }), 'limit past the maximum');
    ok(await list({ limit: String(limit(pageSize.minimum, 'limit')) }), 'limit at the minimum');
    refused(await list({ limit: String(pageSize.minimum! - 1) }), 'limit under the minimum');
  });

  it('a new password: at least 8 characters, at most 1024', async () => {
    const schema = bodyField('post', '/api/auth/signup', 'password');
    const min = limit(schema.minLength, 'password minLength');
    const max = limit(schema.maxLength, 'password maxLength');
    expect(min).toBe(8);
    const signUp = (password: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: uniqueEmail('limits'), password },
      });
    ok(await signUp('zq8!Lm#2xv'.slice(0, min)), 'password at the minimum');
    refused(await signUp('zq8!Lm#2xv'.slice(0, min - 1)), 'password under the minimum');
    ok(await signUp('zq8!Lm#2'.repeat(max / 8)), 'password at the maximum');
    refused(await signUp('zq8!Lm#2'.repeat(max / 8) + 'x'), 'password past the maximum');
    for (const [path, field] of [
      ['/api/auth/reset-password', 'newPassword'],
      ['/api/user/change-password', 'newPassword'],
    ] as const) {
      expect(bodyField('post', path, field).minLength, `${path} ${field}`).toBe(min);
    }
    // Signing in takes any password up to the cap: the document gives it no minimum.
    expect(bodyField('post', '/api/auth/signin', 'password').minLength).toBeUndefined();
  });
});

describe('sharing and reviews', () => {
  let emailId: string;
  let slug: string;
  beforeAll(async () => {
    const email = await insertEmail(ctx.db, {
      userId: pro.user.id,
      to: 'a@example.com',
      subject: 'Limits',
      html: '<p>Limits</p>',
      inlineCss: false,
      createdAt: ctx.clock.now(),
    });
    emailId = email.id;
    const shared = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/${emailId}/share`,
      headers: pro.headers,
    });
    ok(shared, 'share');
    slug = shared.json().email.publicSlug;
  });

  const share = (payload: object) =>
    ctx.app.inject({ method: 'POST', url: `/api/email/${emailId}/share`, headers: pro.headers, payload });

  it('expiresInDays: exactly the documented values, or null', async () => {
    const schema = operation('post', '/api/email/{id}/share').requestBody!.content['application/json']!
      .schema;
    const days = present(present(schema).properties!.expiresInDays!);
    expect(days.enum).toEqual([1, 7, 30]);
    for (const value of days.enum!) ok(await share({ expiresInDays: value }), `expiresInDays ${value}`);
    ok(await share({ expiresInDays: null }), 'expiresInDays null');
    for (const value of [0, 2, 1.5, 31, 365]) {
      const res = await share({ expiresInDays: value });
      refused(res, `expiresInDays ${value}`);
      expect(res.json().code).toBe('invalid_expiry');
    }
  });

  it('the viewing password: 4 to 200 characters, and past the parser’s bound the same answer', async () => {
    const schema = bodyField('post', '/api/email/{id}/share', 'password');
    const min = limit(schema.minLength, 'password minLength');
    const max = limit(schema.maxLength, 'password maxLength');
    expect([min, max]).toEqual([4, 200]);
    ok(await share({ password: 'p'.repeat(min) }), 'password at the minimum');
    refused(await share({ password: 'p'.repeat(min - 1) }), 'password under the minimum');
    ok(await share({ password: 'p'.repeat(max) }), 'password at the maximum');
    for (const length of [max + 1, 10_001]) {
      const res = await share({ password: 'p'.repeat(length) });
      refused(res, `password of ${length}`);
      expect(res.json(), `password of ${length}`).toEqual({
        error: REVIEW_MESSAGES.passwordLong,
        code: 'invalid_password',
      });
    }
    ok(await share({ password: null }), 'no password');
  });

  it('a review: name, decision, comment, version and pin as documented', async () => {
    const path = '/api/email/public/{slug}/reviews';
    const post = (body: object) =>
      ctx.app.inject({
        method: 'POST',
        url: `/api/email/public/${slug}/reviews`,
        payload: { name: 'Dana', decision: 'approved', version: 1, ...body },
      });

    const name = limit(bodyField('post', path, 'name').maxLength, 'name');
    expect(name).toBe(80);
    ok(await post({ name: 'n'.repeat(name) }), 'name at the limit');
    for (const length of [name + 1, 10_001]) {
      const res = await post({ name: 'n'.repeat(length) });
      refused(res, `name of ${length}`);
      expect(res.json()).toEqual({ error: REVIEW_MESSAGES.nameTooLong, code: 'invalid_name' });
    }

    const comment = limit(bodyField('post', path, 'comment').maxLength, 'comment');
    expect(comment).toBe(2000);
    ok(await post({ decision: 'comment', comment: 'c'.repeat(comment) }), 'comment at the limit');
    for (const length of [comment + 1, 100_001]) {
      const res = await post({ decision: 'comment', comment: 'c'.repeat(length) });
      refused(res, `comment of ${length}`);
      expect(res.json()).toEqual({ error: REVIEW_MESSAGES.commentTooLong, code: 'invalid_comment' });
    }

    const decisions = bodyField('post', path, 'decision').enum;
    expect(decisions).toEqual(['approved', 'changes_requested', 'comment']);
    for (const decision of decisions!) ok(await post({ decision, comment: 'Fine' }), `decision ${decision}`);
    for (const decision of ['maybe', 'x'.repeat(101)]) {
      const res = await post({ decision });
      refused(res, `decision ${decision.slice(0, 10)}`);
      expect(res.json()).toEqual({ error: REVIEW_MESSAGES.decision, code: 'invalid_decision' });
    }

    expect(bodyField('post', path, 'version').minimum).toBe(1);
    refused(await post({ version: 0 }), 'version 0');

    for (const axis of ['x', 'y'] as const) {
      const schema = bodyField('post', path, `pin.${axis}`);
      expect([schema.minimum, schema.maximum], axis).toEqual([0, 1]);
    }
    ok(await post({ pin: { x: 1, y: 0 } }), 'pin at the edges');
    refused(await post({ pin: { x: 1.01, y: 0.5 } }), 'pin past the edge');
    refused(await post({ pin: { x: 0.5, y: -0.01 } }), 'pin before the edge');
  });
});

describe('target clients', () => {
  it('the known ids only, at least one, at most the documented count', async () => {
    const schema = bodyField('put', '/api/user/target-clients', 'targetClients');
    expect(schema.items?.enum).toEqual(TARGET_CLIENT_IDS);
    const put = (targetClients: string[]) =>
      ctx.app.inject({
        method: 'PUT',
        url: '/api/user/target-clients',
        headers: pro.headers,
        payload: { targetClients },
      });
    const min = limit(schema.minItems, 'minItems');
    const max = limit(schema.maxItems, 'maxItems');
    ok(await put(TARGET_CLIENT_IDS.slice(0, min)), 'at the minimum');
    refused(await put(TARGET_CLIENT_IDS.slice(0, min - 1)), 'under the minimum');
    ok(await put(Array(max).fill('gmail-web')), 'at the maximum');
    refused(await put(Array(max + 1).fill('gmail-web')), 'past the maximum');
    refused(await put(['no-such-client']), 'an unknown id');
  });
});

describe('what the document says about answers', () => {
  it('the captcha challenge documents its 404 when the captcha is off, and answers it', async () => {
    const op = operation('get', '/api/auth/captcha/challenge');
    expect(op.responses['404']?.description).toMatch(/CAPTCHA_PROVIDER=none/);
    expect(op.responses['404']?.content['application/json']?.schema).toBeDefined();
    const res = await ctx.app.inject({ method: 'GET', url: '/api/auth/captcha/challenge' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: 'The captcha is off on this server: sign-up needs no challenge.',
      code: 'captcha_off',
    });
  });

  it('does not claim that every answer is JSON: the exports are files', () => {
    expect(doc.info.description).not.toMatch(/every answer is JSON/i);
    expect(doc.info.description).toMatch(/\.eml/);
    for (const [path, type] of [
      ['/api/email/{id}/message.eml', 'message/rfc822'],
      ['/api/email/{id}/export.png', 'image/png'],
      ['/api/email/{id}/export.pdf', 'application/pdf'],
      ['/api/email/{id}/export.html', 'text/html'],
    ] as const) {
      expect(Object.keys(operation('get', path).responses['200']!.content), path).toEqual([type]);
    }
  });
});
