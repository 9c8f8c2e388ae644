import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Location } from 'react-router';
import { socialErrorMessage } from './messages.ts';
import { returnTarget } from './navigation.ts';
import { waitFor } from './wait-for.ts';

const at = (state: unknown) => ({ pathname: '/signin', search: '', hash: '', key: 'k', state }) as Location;

describe('waitFor (bot challenge readiness, docs/spec.md §9)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('resolves true as soon as a poll finds it ready, polling every 100 ms', async () => {
    let checks = 0;
    let ready = false;
    const result = waitFor(() => {
      checks++;
      return ready;
    });
    expect(checks).toBe(1); // checked at once
    await vi.advanceTimersByTimeAsync(100);
    expect(checks).toBe(2);
    await vi.advanceTimersByTimeAsync(400);
    expect(checks).toBe(6);
    ready = true;
    await vi.advanceTimersByTimeAsync(100);
    await expect(result).resolves.toBe(true);
  });

  it('gives up after 30,000 ms', async () => {
    let settled: boolean | undefined;
    void waitFor(() => false).then((v) => (settled = v));
    await vi.advanceTimersByTimeAsync(29_900);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(200);
    expect(settled).toBe(false);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    const result = waitFor(() => false, { signal: controller.signal });
    controller.abort();
    await vi.advanceTimersByTimeAsync(100);
    await expect(result).resolves.toBe(false);
  });
});

describe('social sign-in error messages', () => {
  it('has a message for the codes the callback produces', () => {
    for (const code of ['no_token', 'auth_failed', 'email_not_verified', 'access_denied']) {
      const { message, code: shown } = socialErrorMessage(code);
      expect(message).not.toMatch(/^Social sign-in failed/);
      expect(shown).toBeNull();
    }
  });

  it('never shows text from the link: unknown codes get the generic message, odd ones not even the code', () => {
    expect(socialErrorMessage('server_error')).toEqual({
      message: 'Social sign-in failed. Please try again or use your email and password.',
      code: 'server_error',
    });
    expect(socialErrorMessage('Call +1 555 0100 now').code).toBeNull();
    expect(socialErrorMessage('constructor').code).toBe('constructor'); // no prototype lookups
    expect(socialErrorMessage('__proto__').message).toMatch(/^Social sign-in failed/);
  });
});

describe('return after sign-in', () => {
  it('goes back to an in-app page, and nowhere else', () => {
    expect(returnTarget(at({ from: '/app/account?tab=1' }))).toBe('/app/account?tab=1');
    expect(returnTarget(at(null))).toBe('/app/send');
    expect(returnTarget(at({ from: 'https://evil.example/app' }))).toBe('/app/send');
    expect(returnTarget(at({ from: '//evil.example/app' }))).toBe('/app/send');
    expect(returnTarget(at({ from: '/plan' }))).toBe('/app/send');
    expect(returnTarget(at({ from: '/application' }))).toBe('/app/send');
    expect(returnTarget(at({ from: 42 }))).toBe('/app/send');
  });
});
