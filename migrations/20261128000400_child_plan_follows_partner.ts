import type { Knex } from "knex";

/**
 * A provisioned child workspace is on its partner's plan, always (docs/product-rules.md#partner-api): the partner
 * pays for it, so a child must not keep a paid plan after its partner downgrades. Triggers rather than a read of the
 * parent wherever a plan is used (the caller's context, the scheduler, delivery gating, the firehose, billing): every
 * reader of `workspaces.plan` then sees the derived plan, and every writer (the payments webhook, the admin CLI, an
 * operator's SQL) moves the children with their partner in the same transaction. The children's updates fire
 * `workspaces_access_changed`, so cached callers of a child are dropped as for any plan change
 * (docs/product-rules.md#consistency).
 *
 * - `workspaces_child_plan` (BEFORE INSERT or UPDATE of plan or parent): a child's plan is its parent's, whatever the
 *   row says.
 * - `workspaces_children_follow` (AFTER UPDATE of plan): a partner's new plan is written to its children (and so on
 *   down, through the same triggers).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION workspace_plan_of_parent() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE parent_plan text;
    BEGIN
      IF NEW.parent_workspace_id IS NOT NULL THEN
        SELECT plan INTO parent_plan FROM workspaces WHERE id = NEW.parent_workspace_id;
        IF parent_plan IS NOT NULL THEN
          NEW.plan := parent_plan;
        END IF;
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER workspaces_child_plan BEFORE INSERT OR UPDATE OF plan, parent_workspace_id ON workspaces
    FOR EACH ROW EXECUTE FUNCTION workspace_plan_of_parent()`);
  await knex.raw(`
    CREATE FUNCTION workspace_children_follow() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE workspaces SET plan = NEW.plan, updated_at = now()
       WHERE parent_workspace_id = NEW.id AND plan IS DISTINCT FROM NEW.plan;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER workspaces_children_follow AFTER UPDATE OF plan ON workspaces FOR EACH ROW
    WHEN (OLD.plan IS DISTINCT FROM NEW.plan) EXECUTE FUNCTION workspace_children_follow()`);
  // Children that kept a plan their partner no longer has take it now (their own children follow through the
  // triggers above).
  await knex.raw(`
    UPDATE workspaces c SET plan = p.plan, updated_at = now()
      FROM workspaces p
     WHERE c.parent_workspace_id = p.id AND c.plan IS DISTINCT FROM p.plan`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DROP TRIGGER IF EXISTS workspaces_children_follow ON workspaces");
  await knex.raw("DROP TRIGGER IF EXISTS workspaces_child_plan ON workspaces");
  await knex.raw("DROP FUNCTION IF EXISTS workspace_children_follow()");
  await knex.raw("DROP FUNCTION IF EXISTS workspace_plan_of_parent()");
}
