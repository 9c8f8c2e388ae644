/**
 * What the history's polite status says once a search has settled (WCAG 4.1.3: a result that
 * appears without the focus moving is announced): `query` is the settled search ('' when the box
 * was cleared), `count` the emails of the first page and `more` whether the list goes on.
 */
export function searchStatus(query: string, count: number, more: boolean): string {
  if (!query) return 'Search cleared, showing all emails';
  if (count === 0) return 'No emails found matching the query';
  if (more) return `More than ${count} emails found`;
  return `${count} ${count === 1 ? 'email' : 'emails'} found`;
}
