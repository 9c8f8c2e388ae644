import { describe, expect, it } from 'vitest';
import { compareVersions, latestVersion } from './versions.ts';

describe('caniemail versions', () => {
  it('compares part by part as numbers, not as text', () => {
    expect(compareVersions('16', '9')).toBeGreaterThan(0);
    expect(compareVersions('16.80', '16.9')).toBeGreaterThan(0);
    expect(compareVersions('10.15.7', '10.15')).toBeGreaterThan(0);
    expect(compareVersions('2024-05', '2024')).toBeGreaterThan(0);
    expect(compareVersions('2023-12', '2024-01')).toBeLessThan(0);
    expect(compareVersions('6.1.31.2', '6.1.31.')).toBeGreaterThan(0);
    expect(compareVersions('16.0', '16.0')).toBe(0);
  });
  it('takes the latest version', () => {
    // Sorted as text, "9" would be the latest.
    expect(latestVersion(['10', '11', '9', '12', '13'])).toBe('13');
    expect(latestVersion(['2007', '2010', '2019', '2016'])).toBe('2019');
    expect(latestVersion(['12.1', '2024-10'])).toBe('2024-10');
    expect(latestVersion([])).toBeUndefined();
  });
});
