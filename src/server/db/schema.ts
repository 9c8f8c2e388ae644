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

export type OutboxState = 'queued' | 'sending' | 'sent' | 'retry_wait' | 'failed';

export interface MailOutboxTable {
  id: Generated<string>;
  priority: number;
  state: Generated<OutboxState>;
  message_id: string;
  to_addresses: string[];
  reply_to: string | null;
  subject: string;
  html: string;
  text: string | null;
  email_id: string | null;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  lease_until: Date | null;
  locked_by: string | null;
  uncertain: Generated<boolean>;
  last_error_code: number | null;
  last_error: string | null;
  created_at: Generated<Date>;
  sent_at: Date | null;
}

export interface Database {
  app_meta: AppMetaTable;
  mail_outbox: MailOutboxTable;
}
