const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can name a uuid row: anything else would make PostgreSQL fail the query (22P02). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}
