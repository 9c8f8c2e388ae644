import { sql, type Kysely } from 'kysely';

/**
 * Session cache invalidation (docs/decisions/0070-session-cache.md): every change that ends a
 * session, or changes what the cached user carries, NOTIFYs the user's id on the channel the
 * session cache listens on (SESSION_CHANNEL in src/server/accounts/session-cache.ts). Triggers,
 * not calls in the code, so no path can forget it: routes, the operator CLI, billing webhooks,
 * housekeeping, a cascade from a deleted user, or SQL typed by hand. NOTIFY is transactional:
 * it is delivered when (and only if) the change commits, and identical ones in one transaction
 * are sent once.
 *
 * The users trigger fires only when a column of AccountUser (src/server/accounts/users.repo.ts)
 * or of the plan in force (src/server/accounts/effective-plan.ts) changes, so a sign-in's
 * last_login_alert_at or updated_at alone sends nothing; last_seen_at updates of sessions send
 * nothing either.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function proofmail_notify_session_user() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'sessions' then
        perform pg_notify('proofmail_sessions', old.user_id::text);
      else
        perform pg_notify('proofmail_sessions', old.id::text);
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger sessions_notify_delete after delete on sessions
    for each row execute function proofmail_notify_session_user()`.execute(db);
  await sql`
    create trigger sessions_notify_update after update on sessions
    for each row when (
      old.token_hash is distinct from new.token_hash
      or old.user_id is distinct from new.user_id
      or old.expires_at is distinct from new.expires_at
      or old.created_at is distinct from new.created_at
    ) execute function proofmail_notify_session_user()`.execute(db);
  await sql`
    create trigger users_notify_update after update on users
    for each row when (
      old.email is distinct from new.email
      or old.verified_at is distinct from new.verified_at
      or old.plan is distinct from new.plan
      or old.subscription_status is distinct from new.subscription_status
      or old.current_period_end is distinct from new.current_period_end
      or old.cancel_at_period_end is distinct from new.cancel_at_period_end
      or old.login_alerts is distinct from new.login_alerts
      or (old.password_hash is null) is distinct from (new.password_hash is null)
      or old.created_at is distinct from new.created_at
    ) execute function proofmail_notify_session_user()`.execute(db);
  await sql`
    create trigger users_notify_delete after delete on users
    for each row execute function proofmail_notify_session_user()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger users_notify_delete on users`.execute(db);
  await sql`drop trigger users_notify_update on users`.execute(db);
  await sql`drop trigger sessions_notify_update on sessions`.execute(db);
  await sql`drop trigger sessions_notify_delete on sessions`.execute(db);
  await sql`drop function proofmail_notify_session_user()`.execute(db);
}
