import { describe, expect, it } from 'vitest';
import { countLines, describeText, formatBytes } from './format-size.ts';

describe('formatBytes', () => {
  it.each([
    [0, '0 bytes'],
    [1, '1 byte'],
    [12, '12 bytes'],
    [1023, '1,023 bytes'],
    [1024, '1.0 KB'],
    [1536, '1.5 KB'],
    [10 * 1024, '10 KB'],
    [102 * 1024 + 400, '102 KB'],
    [1024 * 1024, '1.0 MB'],
    [25 * 1024 * 1024, '25 MB'],
  ])('%i → %s', (bytes, text) => expect(formatBytes(bytes)).toBe(text));
});

describe('countLines and describeText', () => {
  it('counts lines as an editor does', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('<p>Hi</p>')).toBe(1);
    expect(countLines('a\nb')).toBe(2);
    expect(countLines('a\r\nb\r\n')).toBe(2);
    expect(countLines('\n')).toBe(1);
  });

  it('reads "1 line · 12 bytes", with plurals and UTF-8 sizes', () => {
    expect(describeText('<p>Hello</p>')).toBe('1 line · 12 bytes');
    expect(describeText('')).toBe('0 lines · 0 bytes');
    expect(describeText('é\n€')).toBe('2 lines · 6 bytes');
  });
});
