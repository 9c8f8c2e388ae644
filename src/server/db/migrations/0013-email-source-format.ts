import { sql, type Kysely } from 'kysely';

/**
 * The source's language and merge tags (docs/decisions/0067-mjml-in-the-transform-pool.md,
 * 0068-merge-tags-sandboxed.md), stored with each email so it can be opened again as written:
 *
 * - `format`: 'mjml' joins 'html' (the column and its check came with migration 0010);
 * - `template_syntax`: 'handlebars', 'liquid' or 'mailchimp', null when the source has no tags;
 * - `template_data`: the sample data the tags were filled with (a JSON object, at most 64 KB),
 *   null exactly when `template_syntax` is.
 *
 * `source_html` keeps what the user wrote: the MJML, or the source with its tags unfilled.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table emails
      drop constraint emails_format_check,
      add constraint emails_format_check check (format in ('html', 'mjml')),
      add column template_syntax text check (template_syntax in ('handlebars', 'liquid', 'mailchimp')),
      add column template_data jsonb,
      add constraint emails_template_check check (
        (template_syntax is null) = (template_data is null)
        and (template_data is null or jsonb_typeof(template_data) = 'object'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table emails
      drop constraint emails_template_check,
      drop column template_syntax,
      drop column template_data,
      drop constraint emails_format_check,
      add constraint emails_format_check check (format in ('html'))`.execute(db);
}
