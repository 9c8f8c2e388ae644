import { describe, expect, it } from 'vitest';
import {
  accessOf,
  groupOperations,
  limitsOf,
  operationAnchor,
  resolveRef,
  typeLabel,
} from './openapi-model.ts';

describe('the API Reference model', () => {
  it('names anchors after method and path', () => {
    expect(operationAnchor('post', '/api/email/send')).toBe('post-api-email-send');
    expect(operationAnchor('delete', '/api/keys/{id}')).toBe('delete-api-keys-id');
  });

  it('reads who may call an operation from its security', () => {
    expect(accessOf({ security: [] })).toBe('public');
    expect(accessOf({ security: [{ session: [] }] })).toBe('session');
    expect(accessOf({ security: [{ session: [] }, { apiKey: [] }] })).toBe('apiKey');
  });

  it('groups by the first tag in the tags order, else by path prefix', () => {
    const groups = groupOperations({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      tags: [{ name: 'B' }, { name: 'A' }, { name: 'Empty' }],
      paths: {
        '/api/a': { get: { tags: ['A'] } },
        '/api/b': { post: { tags: ['B'] }, get: { tags: ['B'] } },
        '/api/x/y': { get: {} },
      },
    });
    expect(groups.map((g) => g.name)).toEqual(['B', 'A', '/api/x']);
    expect(groups[0]!.operations.map((o) => o.anchor)).toEqual(['get-api-b', 'post-api-b']);
  });

  it('labels types, nullables, arrays and limits, and resolves $defs refs', () => {
    expect(typeLabel({ type: ['string', 'null'] })).toBe('string | null');
    expect(typeLabel({ type: 'array', items: { type: 'integer' } })).toBe('array of integer');
    expect(typeLabel({ type: 'array', items: { $ref: '#/$defs/Check' } })).toBe('array of Check');
    expect(limitsOf({ type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 })).toEqual([]);
    expect(limitsOf({ type: 'string', maxLength: 4194304 })).toEqual(['at most 4,194,304 characters']);
    expect(limitsOf({ type: 'string', maxLength: 998, format: 'email' })).toEqual([
      'at most 998 characters',
      'email',
    ]);
    const root = { $defs: { Check: { type: 'object' } } };
    expect(resolveRef('#/$defs/Check', root)).toEqual({ type: 'object' });
    expect(resolveRef('#/$defs/None', root)).toBeUndefined();
  });
});
