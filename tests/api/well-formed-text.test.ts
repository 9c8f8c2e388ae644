import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * Text no request may carry (src/server/http/well-formed-text.ts): NUL and a lone UTF-16
 * surrogate are refused in validation with a 400 naming the field, by a preview exactly as by a
 * send, and nothing is stored or charged. A lone surrogate in a subject reached the outbox's JSON
 * column and failed there with a 500; NUL was a 200 for the preview and a 400 for the send.
 */
describe('text no request may carry', () => {
  let ctx: TestContext;
  let user: TestUser;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { FREE_SENDS_PER_MINUTE: '1000' } });
    user = await createUser(ctx.db);
  });
  afterAll(async () => ctx?.close());

  const post = (url: string, body: object, headers: Record<string, string> = user.headers) =>
    ctx.app.inject({ method: 'POST', url, headers, payload: body });
  const stored = async () => {
    const { rows } = await sql<{ n: string }>`
      select (select count(*) from emails) + (select count(*) from mail_outbox) + (select count(*) from usage_ledger) as n`.execute(
      ctx.db,
    );
    return Number(rows[0]!.n);
  };

  const cases: [string, object, string, number | undefined][] = [
    [
      'NUL in the HTML, with its line',
      { html: '<p>one</p>\n<p>tw\u0000o</p>' },
      'html (line 2, column 6) contains a NUL character (U+0000), which cannot be stored or sent: remove it.',
      2,
    ],
    [
      'a lone surrogate in the subject',
      { subject: 'Sale \ud83d ends' },
      'subject contains half of a character (the unpaired surrogate U+D83D), which cannot be stored or sent: remove it.',
      undefined,
    ],
    [
      'a lone low surrogate in the text part',
      { text: 'x\udc00' },
      'text contains half of a character (the unpaired surrogate U+DC00), which cannot be stored or sent: remove it.',
      undefined,
    ],
    [
      'NUL in sample data',
      { html: '<p>{{name}}</p>', template: { syntax: 'handlebars', data: { name: 'A\u0000' } } },
      'template.data.name contains a NUL character (U+0000), which cannot be stored or sent: remove it.',
      undefined,
    ],
    [
      'a lone surrogate in a key of nested sample data',
      { html: '<p>{{a}}</p>', template: { syntax: 'handlebars', data: { list: [{ ['k\ud800']: 1 }] } } },
      'A key in template.data.list[0] contains half of a character (the unpaired surrogate U+D800), which cannot be stored or sent: remove it.',
      undefined,
    ],
  ];

  for (const [name, fields, message, line] of cases) {
    it(`refuses ${name} alike in a preview and a send, storing nothing`, async () => {
      const body = { to: 'a@example.com', subject: 'Hello', html: '<p>x</p>', ...fields };
      const before = await stored();
      for (const url of ['/api/email/preview', '/api/email/send']) {
        const res = await post(url, body);
        expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
        expect(res.json()).toEqual({
          error: message,
          code: 'invalid_text',
          ...(line ? { problems: [{ line, message: expect.stringMatching(/^A NUL character/) }] } : {}),
        });
      }
      expect(await stored()).toBe(before);
    });
  }

  it('takes characters outside the Basic Multilingual Plane, escaped or not', async () => {
    const raw =
      '{"to":"a@example.com","subject":"Party \\ud83c\\udf89 🎉","html":"<p>\\ud83d\\ude00 😀</p>"}';
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload: raw,
    });
    expect(res.statusCode, res.body).toBe(200);
    const row = await ctx.db
      .selectFrom('emails')
      .select(['subject', 'html'])
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ subject: 'Party 🎉 🎉', html: '<p>😀 😀</p>' });
  });

  it('refuses it in a query string too, naming the parameter', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/email?q=a%00b', headers: user.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(
      'q contains a NUL character (U+0000), which cannot be stored or sent: remove it.',
    );
  });

  it('asks who is calling before it reads the body', async () => {
    const res = await post('/api/email/send', { to: 'a@example.com', html: '\u0000' }, {});
    expect(res.statusCode).toBe(401);
  });
});
