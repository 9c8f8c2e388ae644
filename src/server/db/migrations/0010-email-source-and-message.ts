import { sql, type Kysely } from 'kysely';

/**
 * What was written and what was sent (docs/architecture.md §9): the source and options of each
 * email beside the message as it left. Emails sent before this migration keep null in the new
 * columns; the API rebuilds what it can for them (features/email/email.service.ts).
 *
 * - `source_html`: the HTML as written, only when it differs from `html` (the HTML part as sent),
 *   i.e. when inlining changed it; null means "the same as `html`".
 * - `text_override`: the user's own text part, if they wrote one.
 * - `text_part`: the text part as sent.
 * - `headers`: the headers every recipient got alike, `[{ name, value }]`.
 * - `mail_from`: MAIL_FROM at the time of sending, so the message can be rebuilt byte for byte.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table emails
      add column format text not null default 'html' check (format in ('html')),
      add column source_html text,
      add column text_override text,
      add column text_part text,
      add column headers jsonb,
      add column mail_from text,
      add column html_bytes integer,
      add column message_bytes integer`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table emails
      drop column format,
      drop column source_html,
      drop column text_override,
      drop column text_part,
      drop column headers,
      drop column mail_from,
      drop column html_bytes,
      drop column message_bytes`.execute(db);
}
