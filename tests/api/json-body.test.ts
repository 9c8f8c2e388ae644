import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * JSON bodies are measured before they are parsed (src/server/http/json-body.ts): a body whose
 * structure would hold the event loop is refused with a 400 naming the limit, before parsing, and
 * what the API does take, and Fastify's own refusals, are as before.
 */
describe('JSON bodies measured before parsing', () => {
  let ctx: TestContext;
  let user: TestUser;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { FREE_SENDS_PER_MINUTE: '1000' } });
    user = await createUser(ctx.db);
  });
  afterAll(async () => ctx?.close());

  const raw = (url: string, payload: string) =>
    ctx.app.inject({
      method: 'POST',
      url,
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload,
    });

  it('refuses 2.8 MB of nested brackets in the sample data before parsing it', async () => {
    const n = 1_400_000;
    // Malformed at its end: a parser would answer "not valid JSON"; the scan answers first.
    const body = `{"to":"a@example.com","html":"<p>x</p","template":{"syntax":"handlebars","data":{"a":${'['.repeat(n)}${']'.repeat(n)}}}`;
    const res = await raw('/api/email/preview', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'The request body nests too deeply: the limit is 64 levels of objects and arrays.',
      code: 'body_too_complex',
    });
  });

  it('refuses 700,000 values before parsing them', async () => {
    const body = `{"to":"a@example.com","html":"<p>x</p>","template":{"syntax":"handlebars","data":{"a":[${Array(700_000).fill('""').join(',')}]`;
    const res = await raw('/api/email/send', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('body_too_complex');
  });

  it('leaves sample data within the scan to name its own limits', async () => {
    const deep = `{"to":"a@example.com","html":"<p>x</p>","template":{"syntax":"handlebars","data":{"a":${'['.repeat(40)}${']'.repeat(40)}}}}`;
    expect((await raw('/api/email/preview', deep)).json().code).toBe('template_data_too_deep');
    const many = `{"to":"a@example.com","html":"<p>x</p>","template":{"syntax":"handlebars","data":{"a":[${Array(39_000).fill('0').join(',')}]}}}`;
    expect((await raw('/api/email/preview', many)).json().code).toBe('template_data_too_large');
  });

  it('sends HTML full of quotes, backslashes and brackets as written', async () => {
    const html = `<p title="[{\\&quot;}]">${'a "quoted", [bracketed] {braced} \\ back\\slashed \\\\ line. '.repeat(15_000)}</p>`;
    const res = await raw('/api/email/send', JSON.stringify({ to: 'a@example.com', subject: 'q', html }));
    expect(res.statusCode, res.body).toBe(200);
    const row = await ctx.db
      .selectFrom('emails')
      .select('html')
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(row.html).toBe(html);
  });

  it('answers a caller who may not use the route before reading its body', async () => {
    // Malformed JSON: were it parsed first, the answer would be 400 invalid_json.
    const bodies = ['{"to":', `{"html":${'['.repeat(100_000)}`];
    for (const [headers, status, code] of [
      [{}, 401, 'unauthenticated'],
      [{ authorization: 'Bearer pm_not-a-key' }, 401, 'invalid_api_key'],
    ] as const) {
      for (const payload of bodies) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/api/email/send',
          headers: { ...headers, 'content-type': 'application/json' },
          payload,
        });
        expect(res.statusCode).toBe(status);
        expect(res.json().code).toBe(code);
      }
    }
  });

  it('keeps Fastify’s refusals: prototype poisoning, malformed and empty JSON', async () => {
    const poisoned = await raw(
      '/api/email/preview',
      '{"to":"a@example.com","html":"x","__proto__":{"admin":true}}',
    );
    expect(poisoned.statusCode).toBe(400);
    // Valid JSON, refused for its key: the answer says which key, not that the JSON is broken.
    expect(poisoned.json()).toEqual({
      error: 'Request body has a key named "__proto__", which is not allowed: rename or remove it.',
      code: 'forbidden_key',
    });
    // Deeper, and spelt with escapes, it is the same key.
    const escaped = await raw(
      '/api/email/preview',
      '{"to":"a@example.com","html":"x","template":{"syntax":"handlebars","data":{"\\u005f_proto__":{}}}}',
    );
    expect(escaped.json().code).toBe('forbidden_key');
    const constructor = await raw(
      '/api/email/preview',
      '{"to":"a@example.com","html":"x","template":{"syntax":"handlebars","data":{"constructor":{"prototype":{"admin":true}}}}}',
    );
    expect(constructor.json()).toEqual({
      error:
        'Request body has a key named "constructor" holding "prototype", which is not allowed: rename or remove it.',
      code: 'forbidden_key',
    });
    // The words alone, as text, are fine.
    const words = await raw(
      '/api/email/preview',
      JSON.stringify({ to: 'a@example.com', html: '<p>"__proto__": and "constructor"</p>' }),
    );
    expect(words.statusCode, words.body).toBe(200);
    // Invalid JSON that names the key is still invalid JSON.
    expect((await raw('/api/email/preview', '{"__proto__":')).json().code).toBe('invalid_json');
    expect((await raw('/api/email/preview', '{"to":')).json()).toEqual({
      error: 'Request body is not valid JSON',
      code: 'invalid_json',
    });
    expect((await raw('/api/email/preview', '')).json()).toEqual({
      error: 'Request body is empty: send a JSON object',
      code: 'missing_body',
    });
  });

  it('answers a POST without a body, or with one that is not an object, by saying the body must be a JSON object', async () => {
    const expected = { error: 'Request body must be a JSON object', code: 'invalid_body' };
    for (const url of ['/api/email/preview', '/api/email/send', '/api/keys']) {
      const none = await ctx.app.inject({ method: 'POST', url, headers: user.headers });
      expect([none.statusCode, none.json()], url).toEqual([400, expected]);
      for (const body of ['null', '[]', '"text"', '42']) {
        const res = await raw(url, body);
        expect([res.statusCode, res.json()], `${url} ${body}`).toEqual([400, expected]);
      }
    }
    // A field of the wrong type is still named.
    expect((await raw('/api/email/preview', '{"html": 42}')).json().error).toMatch(/^html: /);
  });

  it('takes an empty body sent as JSON as no body where the route takes none, or takes one optionally', async () => {
    const pro = await createUser(ctx.db, { plan: 'pro' });
    const sent = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: pro.headers,
      payload: { to: 'a@example.com', html: '<p>x</p>' },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const id = sent.json().id as string;
    const emptyJson = (method: 'POST' | 'DELETE', url: string) =>
      ctx.app.inject({
        method,
        url,
        headers: { ...pro.headers, 'content-type': 'application/json' },
        payload: '',
      });
    // Options optional: shared with the defaults.
    const shared = await emptyJson('POST', `/api/email/${id}/share`);
    expect(shared.statusCode, shared.body).toBe(200);
    // No body at all: the route answers as it would without the header.
    expect((await emptyJson('DELETE', `/api/email/${id}/share`)).statusCode).toBe(200);
    expect((await emptyJson('DELETE', `/api/keys/${crypto.randomUUID()}`)).json().code).toBe(
      'api_key_not_found',
    );
    expect((await emptyJson('DELETE', `/api/email/${id}`)).statusCode).toBe(200);
    // A route that needs a body still says so.
    expect((await emptyJson('POST', '/api/email/preview')).json().code).toBe('missing_body');
  });

  it('answers a body sent as text/plain (what fetch sends for a string) like any other non-JSON type: 415', async () => {
    const body = JSON.stringify({ to: 'a@example.com', html: '<p>x</p>' });
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'TEXT/PLAIN; charset=iso-8859-1',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/email/preview',
        headers: { ...user.headers, 'content-type': type },
        payload: body,
      });
      expect(res.statusCode, type).toBe(415);
      expect(res.json(), type).toEqual({
        error: 'Unsupported content type: send JSON',
        code: 'unsupported_media_type',
      });
    }
    // Anonymous callers still get their 401 first, before the type is looked at.
    const anonymous = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/preview',
      headers: { 'content-type': 'text/plain' },
      payload: body,
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('no route takes a text/plain body: the route table has no other parser than JSON but the webhook', () => {
    // Stripe's webhook takes its raw bytes in a scope of its own (src/server/features/billing/billing.routes.ts).
    expect(ctx.app.hasContentTypeParser('text/plain')).toBe(false);
    expect(ctx.app.hasContentTypeParser('application/json')).toBe(true);
  });
});
