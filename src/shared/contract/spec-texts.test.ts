import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_RECIPIENTS, MIN_PASSWORD_LENGTH } from '../plans.ts';
import { AUTH_MESSAGES } from './auth.ts';
import { SEND_MESSAGES } from './email.ts';

/**
 * The messages the forms show and the server answers that the spec words itself must be the
 * spec's words (docs/spec.md §5, §8), and the numbers in them must follow the constants they name
 * (docs/spec.md §9), not be typed in.
 */

const spec = readFileSync(new URL('../../../docs/spec.md', import.meta.url), 'utf8');
const authSource = readFileSync(new URL('./auth.ts', import.meta.url), 'utf8');

/** The keys of AUTH_MESSAGES listed between its `// spec texts` and `// ours` comments. */
function specTextKeys(): string[] {
  const block = /\/\/ spec texts\n([\s\S]*?)\n\s*\/\/ ours\n/.exec(authSource)?.[1];
  if (!block) throw new Error('AUTH_MESSAGES in auth.ts lost its "// spec texts" … "// ours" markers');
  return [...block.matchAll(/^\s*(\w+):/gm)].map((m) => m[1]!);
}

/** True when `text` stands in the spec as written: same case, not part of a longer word. */
function inSpec(text: string): boolean {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').test(spec);
}

/** A number from a line of docs/spec.md §9, e.g. "- Minimum password length: 8 characters.". */
function specConstant(label: string): number {
  const match = new RegExp(`^- ${label}: (\\d+)\\b`, 'm').exec(spec);
  if (!match) throw new Error(`docs/spec.md has no "- ${label}: N" line`);
  return Number(match[1]);
}

describe('spec texts are the spec’s words', () => {
  const keys = specTextKeys();

  it('finds the spec texts of AUTH_MESSAGES', () => {
    expect(keys).toEqual(expect.arrayContaining(['fillAllFields', 'passwordTooShort', 'invalidResetLink']));
    for (const key of keys) expect(AUTH_MESSAGES).toHaveProperty(key);
  });

  it.each(keys)('AUTH_MESSAGES.%s occurs verbatim in docs/spec.md', (key) => {
    const text = AUTH_MESSAGES[key as keyof typeof AUTH_MESSAGES];
    expect(inSpec(text), `"${text}" is not in docs/spec.md`).toBe(true);
  });

  it.each(Object.keys(SEND_MESSAGES))('SEND_MESSAGES.%s occurs verbatim in docs/spec.md', (key) => {
    const text = SEND_MESSAGES[key as keyof typeof SEND_MESSAGES];
    expect(inSpec(text), `"${text}" is not in docs/spec.md`).toBe(true);
  });
});

describe('numbers in messages follow their constants', () => {
  afterEach(() => {
    vi.doUnmock('../plans.ts');
    vi.resetModules();
  });

  it('the constants are the spec’s (§9)', () => {
    expect(MIN_PASSWORD_LENGTH).toBe(specConstant('Minimum password length'));
    expect(MAX_RECIPIENTS).toBe(specConstant('Maximum recipients per send'));
  });

  it('passwordTooShort is built from MIN_PASSWORD_LENGTH', async () => {
    vi.resetModules();
    vi.doMock('../plans.ts', async (original) => ({
      ...(await original<object>()),
      MIN_PASSWORD_LENGTH: 12,
    }));
    const { AUTH_MESSAGES: withTwelve } = await import('./auth.ts');
    expect(withTwelve.passwordTooShort).not.toBe(AUTH_MESSAGES.passwordTooShort);
    expect(withTwelve.passwordTooShort).toBe(
      AUTH_MESSAGES.passwordTooShort.replace(`${MIN_PASSWORD_LENGTH}`, '12'),
    );
  });

  it('tooManyDetail is built from MAX_RECIPIENTS', async () => {
    vi.resetModules();
    vi.doMock('../plans.ts', async (original) => ({ ...(await original<object>()), MAX_RECIPIENTS: 7 }));
    const { SEND_MESSAGES: withSeven } = await import('./email.ts');
    expect(withSeven.tooManyDetail).not.toBe(SEND_MESSAGES.tooManyDetail);
    expect(withSeven.tooManyDetail).toBe(SEND_MESSAGES.tooManyDetail.replace(`${MAX_RECIPIENTS}`, '7'));
  });
});
