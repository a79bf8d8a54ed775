import type { Knex } from "knex";

/**
 * Access changes are announced (docs/architecture.md#consistency): every API process caches the caller behind a token
 * (membership, role, admin flag, plan: src/auth/context.ts) and must drop it the moment any of those change, whoever
 * changes them (the admin CLI, a payments webhook, partner provisioning, a password reset, an operator's SQL). Triggers
 * rather than calls in each writer: a writer added later cannot forget to announce.
 *
 * Channel `access_changed`, payload `{"user_id": …}` or `{"workspace_id": …}`. Postgres delivers a notice at commit,
 * to every session listening on the channel, and folds identical notices of one transaction into one.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION announce_access_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_TABLE_NAME = 'workspaces' THEN
        PERFORM pg_notify('access_changed', json_build_object('workspace_id', OLD.id)::text);
      ELSIF TG_TABLE_NAME = 'users' THEN
        PERFORM pg_notify('access_changed', json_build_object('user_id', OLD.id)::text);
      ELSE
        PERFORM pg_notify('access_changed', json_build_object('user_id', OLD.user_id)::text);
      END IF;
      RETURN NULL;
    END $$`);
  // Only the columns a cached caller holds: a digest-preference update announces nothing.
  await knex.raw(`
    CREATE TRIGGER users_access_changed AFTER UPDATE ON users FOR EACH ROW
    WHEN (OLD.is_admin IS DISTINCT FROM NEW.is_admin OR OLD.token_generation IS DISTINCT FROM NEW.token_generation
          OR OLD.email IS DISTINCT FROM NEW.email)
    EXECUTE FUNCTION announce_access_change()`);
  await knex.raw(`
    CREATE TRIGGER users_access_removed AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION announce_access_change()`);
  await knex.raw(`
    CREATE TRIGGER workspaces_access_changed AFTER UPDATE ON workspaces FOR EACH ROW
    WHEN (OLD.plan IS DISTINCT FROM NEW.plan OR OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION announce_access_change()`);
  await knex.raw(`
    CREATE TRIGGER workspaces_access_removed AFTER DELETE ON workspaces FOR EACH ROW
    EXECUTE FUNCTION announce_access_change()`);
  // A new membership needs no notice: a token of a workspace the user is not a member of is never cached.
  await knex.raw(`
    CREATE TRIGGER memberships_access_changed AFTER UPDATE ON memberships FOR EACH ROW
    WHEN (OLD.role IS DISTINCT FROM NEW.role OR OLD.user_id IS DISTINCT FROM NEW.user_id
          OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id)
    EXECUTE FUNCTION announce_access_change()`);
  await knex.raw(`
    CREATE TRIGGER memberships_access_removed AFTER DELETE ON memberships FOR EACH ROW
    EXECUTE FUNCTION announce_access_change()`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [trigger, table] of [
    ["users_access_changed", "users"],
    ["users_access_removed", "users"],
    ["workspaces_access_changed", "workspaces"],
    ["workspaces_access_removed", "workspaces"],
    ["memberships_access_changed", "memberships"],
    ["memberships_access_removed", "memberships"],
  ] as const) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${trigger} ON ${table}`);
  }
  await knex.raw("DROP FUNCTION IF EXISTS announce_access_change()");
}
