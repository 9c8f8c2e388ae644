import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** A repo function takes either the database or an open transaction (docs/architecture.md §3). */
export type Executor = Kysely<Database> | Transaction<Database>;
