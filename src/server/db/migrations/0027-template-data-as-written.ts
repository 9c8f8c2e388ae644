import { sql, type Kysely } from 'kysely';

/**
 * The merge tags' sample data kept as written: `jsonb` stores an object's keys sorted (shorter
 * first), so Edit and Resend, and the compare screen, gave `{"x":1,"name":"Ann"}` back for
 * `{"name":"Ann","x":1}`, and a template that loops over an object's keys (`{% for pair in obj %}`,
 * `{{#each obj}}`) filled in another order than the send did. `json` keeps the text as sent; the
 * column is only written and read whole. Rows stored before keep the order `jsonb` gave them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table emails
      drop constraint emails_template_check,
      alter column template_data type json using template_data::json,
      add constraint emails_template_check check (
        (template_syntax is null) = (template_data is null)
        and (template_data is null or json_typeof(template_data) = 'object'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table emails
      drop constraint emails_template_check,
      alter column template_data type jsonb using template_data::jsonb,
      add constraint emails_template_check check (
        (template_syntax is null) = (template_data is null)
        and (template_data is null or jsonb_typeof(template_data) = 'object'))`.execute(db);
}
