import { describe, expect, it } from 'vitest';
import { dateTime, relativeTime } from './relative-time.ts';

const now = new Date('2026-11-21T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const en = { locale: 'en-US', timeZone: 'UTC' };

describe('relativeTime (docs/spec.md §9)', () => {
  it('says "just now" under a minute, and for a time slightly in the future (clock skew)', () => {
    expect(relativeTime(now, now)).toBe('just now');
    expect(relativeTime(ago(59 * S), now)).toBe('just now');
    expect(relativeTime(new Date(now.getTime() + 30 * S), now)).toBe('just now');
  });

  it('counts minutes under 60 minutes, singular and plural', () => {
    expect(relativeTime(ago(60 * S), now)).toBe('1 minute ago');
    expect(relativeTime(ago(119 * S), now)).toBe('1 minute ago');
    expect(relativeTime(ago(2 * M), now)).toBe('2 minutes ago');
    expect(relativeTime(ago(59 * M + 59 * S), now)).toBe('59 minutes ago');
  });

  it('counts hours under 24 hours', () => {
    expect(relativeTime(ago(60 * M), now)).toBe('1 hour ago');
    expect(relativeTime(ago(5 * H + 59 * M), now)).toBe('5 hours ago');
    expect(relativeTime(ago(23 * H + 59 * M), now)).toBe('23 hours ago');
  });

  it('counts days under 30 days', () => {
    expect(relativeTime(ago(24 * H), now)).toBe('1 day ago');
    expect(relativeTime(ago(3 * D + 2 * H), now)).toBe('3 days ago');
    expect(relativeTime(ago(29 * D + 23 * H), now)).toBe('29 days ago');
  });

  it('shows a date from 30 days on', () => {
    expect(relativeTime(ago(30 * D), now, en)).toBe('Oct 22, 2026');
    expect(relativeTime('2025-01-05T08:00:00Z', now, en)).toBe('Jan 5, 2025');
  });

  it('accepts ISO strings and shows a dash for an unreadable date', () => {
    expect(relativeTime('2026-11-21T11:15:00Z', now)).toBe('45 minutes ago');
    expect(relativeTime('not a date', now)).toBe('—');
  });
});

describe('dateTime', () => {
  it('formats the date and the time of day', () => {
    expect(dateTime('2026-11-21T15:04:00Z', en)).toBe('Nov 21, 2026, 3:04 PM');
    expect(dateTime('nope', en)).toBe('—');
  });
});
