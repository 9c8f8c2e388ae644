import { describe, expect, it } from 'vitest';
import { bannerTone, barColor, resetDay, usageMessage } from './usage-rules.ts';

describe('usage rules (docs/spec.md §4)', () => {
  it('colours the banner orange at 2 or fewer and red at 0', () => {
    expect(bannerTone(3)).toBe('normal');
    expect(bannerTone(2)).toBe('low');
    expect(bannerTone(1)).toBe('low');
    expect(bannerTone(0)).toBe('empty');
  });

  it('colours the bar green below 80 %, yellow from 80 %, red at 100 %', () => {
    expect(barColor(0, 10)).toBe('green');
    expect(barColor(7, 10)).toBe('green');
    expect(barColor(8, 10)).toBe('yellow');
    expect(barColor(9, 10)).toBe('yellow');
    expect(barColor(10, 10)).toBe('red');
    expect(barColor(12, 10)).toBe('red');
  });

  it('words the remaining allowance', () => {
    expect(usageMessage(0).text).toBe("You've reached your monthly limit");
    expect(usageMessage(2).text).toBe('Only 2 email(s) remaining this month');
    expect(usageMessage(1).text).toBe('Only 1 email(s) remaining this month');
    expect(usageMessage(7).text).toBe('7 emails remaining this month');
  });
});

describe('resetDay (when the free allowance starts over)', () => {
  const firstOfDecember = '2026-12-01T00:00:00.000Z';

  it('is the day alone where the reset falls at midnight', () => {
    expect(resetDay(firstOfDecember, 'en-US', 'UTC')).toBe('December 1');
    expect(resetDay(firstOfDecember, 'en-GB', 'UTC')).toBe('1 December');
  });

  it('names the local day and time elsewhere', () => {
    expect(resetDay(firstOfDecember, 'en-US', 'America/Los_Angeles')).toBe('November 30 at 4:00 PM');
    expect(resetDay(firstOfDecember, 'en-US', 'Asia/Kolkata')).toBe('December 1 at 5:30 AM');
  });

  it('is empty for a value that is not a time', () => {
    expect(resetDay('soon', 'en-US', 'UTC')).toBe('');
  });
});
