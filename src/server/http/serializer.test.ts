import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { meResponse, settingsResponse } from '../../shared/contract/auth.ts';
import { emailListResponse } from '../../shared/contract/email.ts';
import { compileWithFastJson, responseSerializerCompiler } from './serializer.ts';

const zodOf = (schema: z.ZodType) =>
  zodSerializerCompiler({ schema, method: 'GET', url: '/t' } as never) as (data: unknown) => string;
const compiledOf = (schema: z.ZodType) =>
  responseSerializerCompiler({ schema, method: 'GET', url: '/t' } as never);

const user = {
  id: '7a1c3c1e-1111-4222-8333-944444444444',
  email: 'someone@example.com',
  verified: true,
  plan: 'pro',
  createdAt: '2026-11-23T01:58:38.606Z',
  subscriptionStatus: 'active',
  hasPassword: false,
};

describe('the compiled response serializer', () => {
  it('writes the same bytes as the zod serializer for real answers', () => {
    const cases: [z.ZodType, unknown][] = [
      [meResponse, { user }],
      [settingsResponse, { ok: true, user, prefs: { loginAlerts: true } }],
      [emailListResponse, { items: [], nextCursor: null }],
    ];
    for (const [schema, data] of cases) {
      expect(compileWithFastJson(schema)).toBeDefined();
      let expected: string;
      try {
        expected = zodOf(schema)(data);
      } catch {
        continue; // a sample that does not fit this schema's current shape proves nothing here
      }
      expect(compiledOf(schema)(data)).toBe(expected);
    }
  });

  it('writes only the properties the schema names, like zod', () => {
    const withSecret = { user: { ...user, passwordHash: '$argon2id$secret', stripeCustomerId: 'cus_1' } };
    const out = compiledOf(meResponse)(withSecret);
    expect(out).toBe(zodOf(meResponse)(withSecret));
    expect(out).not.toContain('secret');
    expect(out).not.toContain('cus_1');
  });

  it('optional, nullable, union and record fields carry what zod writes (required ones first)', () => {
    const schema = z.object({
      a: z.string().optional(),
      b: z.number().nullable(),
      c: z.union([
        z.object({ kind: z.literal('x'), x: z.number() }),
        z.object({ kind: z.literal('y'), y: z.string() }),
      ]),
      d: z.record(z.string(), z.boolean()),
      e: z.array(z.object({ n: z.number().int() })),
      f: z.enum(['one', 'two']),
    });
    for (const data of [
      { b: null, c: { kind: 'x', x: 1 }, d: {}, e: [], f: 'one' },
      {
        a: 'é "quoted" \n',
        b: 2.5,
        c: { kind: 'y', y: 'z', extra: 1 },
        d: { k: true },
        e: [{ n: 3 }],
        f: 'two',
      },
    ]) {
      expect(JSON.parse(compiledOf(schema)(data))).toStrictEqual(JSON.parse(zodOf(schema)(data)));
    }
  });

  it('a missing required property is still an error, not a silent answer', () => {
    expect(() => compiledOf(meResponse)({})).toThrow();
  });

  it('keeps the zod serializer where JSON Schema cannot say the same (transforms, dates)', () => {
    const transformed = z.object({ n: z.string().transform((s) => s.length) });
    const dated = z.object({ at: z.date() });
    expect(compileWithFastJson(transformed)).toBeUndefined();
    expect(compileWithFastJson(dated)).toBeUndefined();
    expect(compiledOf(dated)({ at: new Date(0) })).toBe(zodOf(dated)({ at: new Date(0) }));
  });
});
