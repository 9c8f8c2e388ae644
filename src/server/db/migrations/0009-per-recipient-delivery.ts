import { sql, type Kysely } from 'kysely';

/**
 * One message per recipient, the body stored once (docs/architecture.md §5,
 * docs/decisions/0038-one-outbox-row-per-recipient.md):
 * - an outbox row of a user's send references its email (`email_id`) for the subject and HTML
 *   instead of carrying a copy; system mail keeps its own small content, hence nullable columns;
 * - `claimed_at` (by PostgreSQL's clock) and `final_dot_at` (this attempt sent the message's
 *   terminating "."): only an attempt that may have been accepted is flagged `uncertain`
 *   (docs/decisions/0041-uncertain-means-maybe-twice.md); `uncertain_attempts` counts them, and a
 *   second one ends in the new state `unconfirmed` instead of another blind retry;
 * - emails are soft-deleted (`deleted_at`) while a delivery still needs their content, and purged
 *   by the housekeeping job once every delivery has settled;
 * - a send is charged once (one ledger row per email, `outbox_id` now optional) and refunded only
 *   when every one of its recipients failed permanently (docs/decisions/0039-refund-when-every-recipient-failed.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table mail_outbox
    alter column subject drop not null,
    alter column html drop not null,
    add column claimed_at timestamptz,
    add column final_dot_at timestamptz,
    add column uncertain_attempts smallint not null default 0,
    drop constraint mail_outbox_state_check,
    add constraint mail_outbox_state_check
      check (state in ('queued', 'sending', 'sent', 'retry_wait', 'failed', 'unconfirmed')),
    add constraint mail_outbox_content_check check (email_id is not null or (subject is not null and html is not null))`.execute(
    db,
  );

  // Mail still waiting for several recipients becomes one row per recipient, each with its own
  // Message-ID on the same domain. Settled rows stay as they were: they are history.
  await sql`
    insert into mail_outbox (priority, state, message_id, to_addresses, reply_to, subject, html, text, email_id,
                             attempts, next_attempt_at, uncertain, last_error_code, last_error, created_at)
    select o.priority, o.state, '<' || gen_random_uuid() || '@' || substring(o.message_id from '@([^>]+)>$') || '>',
           array[r.address], o.reply_to, o.subject, o.html, o.text, o.email_id,
           o.attempts, o.next_attempt_at, o.uncertain, o.last_error_code, o.last_error, o.created_at
      from mail_outbox o
      cross join lateral unnest(o.to_addresses[2:]) as r(address)
     where o.state in ('queued', 'retry_wait') and cardinality(o.to_addresses) > 1`.execute(db);
  await sql`
    update mail_outbox set to_addresses = to_addresses[1:1]
     where state in ('queued', 'retry_wait') and cardinality(to_addresses) > 1`.execute(db);
  // The email row already holds the subject and HTML as sent: drop the outbox's copies.
  await sql`
    update mail_outbox o set subject = null, html = null
     where o.email_id is not null and exists (select 1 from emails e where e.id = o.email_id)`.execute(db);

  await sql`drop index mail_outbox_settled`.execute(db);
  await sql`create index mail_outbox_settled on mail_outbox (created_at)
            where state in ('sent', 'failed', 'unconfirmed')`.execute(db);

  await sql`alter table emails add column deleted_at timestamptz`.execute(db);
  await sql`create index emails_deleted on emails (deleted_at) where deleted_at is not null`.execute(db);

  await sql`alter table usage_ledger alter column outbox_id drop not null`.execute(db);
  await sql`create index usage_ledger_email on usage_ledger (email_id) where email_id is not null`.execute(
    db,
  );

  // Refund when every recipient of the send failed permanently. The ledger row is locked first,
  // so two recipients failing at once in two transactions serialise here: the second sees the
  // first's failure (each statement of a plpgsql function takes a new snapshot) and refunds.
  // Rows written before this migration are found by their outbox row, as before.
  await sql`
    create or replace function refund_failed_send() returns trigger language plpgsql as $$
    declare
      charged record;
    begin
      select id, user_id, month, refunded_at into charged from usage_ledger
        where (new.email_id is not null and email_id = new.email_id) or outbox_id = new.id
        order by id limit 1
        for update;
      if not found or charged.refunded_at is not null then
        return new;
      end if;
      if new.email_id is not null and exists (
        select 1 from mail_outbox where email_id = new.email_id and state <> 'failed'
      ) then
        return new;
      end if;
      update usage_ledger set refunded_at = now() where id = charged.id;
      update usage_counters set count = count - 1
        where user_id = charged.user_id and month = charged.month and count > 0;
      return new;
    end $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Outbox rows carry their content again (copied from their email while it is still there).
  await sql`
    update mail_outbox o set subject = coalesce(o.subject, e.subject, ''), html = coalesce(o.html, e.html, '')
      from mail_outbox o2 left join emails e on e.id = o2.email_id
     where o2.id = o.id and (o.subject is null or o.html is null)`.execute(db);
  await sql`
    create or replace function refund_failed_send() returns trigger language plpgsql as $$
    declare
      charged record;
    begin
      update usage_ledger set refunded_at = now()
        where outbox_id = new.id and refunded_at is null
        returning user_id, month into charged;
      if found then
        update usage_counters set count = count - 1
          where user_id = charged.user_id and month = charged.month and count > 0;
      end if;
      return new;
    end $$`.execute(db);
  // Each send's ledger row points at one of its outbox rows again.
  await sql`
    update usage_ledger l set outbox_id = (select o.id from mail_outbox o where o.email_id = l.email_id
                                            order by o.created_at, o.id limit 1)
     where l.outbox_id is null`.execute(db);
  await sql`delete from usage_ledger where outbox_id is null`.execute(db);
  await sql`alter table usage_ledger alter column outbox_id set not null`.execute(db);
  await sql`drop index if exists usage_ledger_email`.execute(db);
  await sql`delete from emails where deleted_at is not null`.execute(db);
  await sql`drop index if exists emails_deleted`.execute(db);
  await sql`alter table emails drop column deleted_at`.execute(db);
  await sql`drop index mail_outbox_settled`.execute(db);
  await sql`create index mail_outbox_settled on mail_outbox (created_at) where state in ('sent', 'failed')`.execute(
    db,
  );
  await sql`alter table mail_outbox disable trigger mail_outbox_refund_failed`.execute(db);
  await sql`update mail_outbox set state = 'failed' where state = 'unconfirmed'`.execute(db);
  await sql`alter table mail_outbox enable trigger mail_outbox_refund_failed`.execute(db);
  await sql`alter table mail_outbox
    alter column subject set not null,
    alter column html set not null,
    drop constraint mail_outbox_content_check,
    drop constraint mail_outbox_state_check,
    add constraint mail_outbox_state_check check (state in ('queued', 'sending', 'sent', 'retry_wait', 'failed')),
    drop column uncertain_attempts,
    drop column final_dot_at,
    drop column claimed_at`.execute(db);
}
