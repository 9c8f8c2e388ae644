/** PostgreSQL's unique_violation (23505): a concurrent writer took the same key first. */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}
