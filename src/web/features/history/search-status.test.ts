import { describe, expect, it } from 'vitest';
import { searchStatus } from './search-status.ts';

describe('searchStatus', () => {
  it('says what a search found', () => {
    expect(searchStatus('spring', 0, false)).toBe('No emails found matching the query');
    expect(searchStatus('spring', 1, false)).toBe('1 email found');
    expect(searchStatus('spring', 7, false)).toBe('7 emails found');
    expect(searchStatus('spring', 20, true)).toBe('More than 20 emails found');
  });

  it('says the search was cleared when there is no query', () => {
    expect(searchStatus('', 20, true)).toBe('Search cleared, showing all emails');
    expect(searchStatus('', 0, false)).toBe('Search cleared, showing all emails');
  });
});
