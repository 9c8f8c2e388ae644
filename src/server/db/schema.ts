import type { ColumnType, Generated } from 'kysely';

/**
 * Table types for Kysely. Each feature adds its tables here, next to its migration.
 * `Generated` columns have database defaults; `ColumnType<Select, Insert, Update>` narrows writes.
 */

export interface AppMetaTable {
  key: string;
  value: string;
  created_at: ColumnType<Date, never, never>;
}

export interface Database {
  app_meta: AppMetaTable;
}

/** Marker so unused-import lint does not strip the helper types other features will use. */
export type _Generated<T> = Generated<T>;
