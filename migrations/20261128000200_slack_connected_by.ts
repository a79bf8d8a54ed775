import type { Knex } from "knex";

/**
 * `workspaces.slack_connected_by`: who connected the workspace's Slack incoming webhook, `vendor` (`slack-connect`,
 * the vendor's manual onboarding) or `partner` (`POST /v1/workspaces/{id}/alerts/subscribe`). The partner API never
 * replaces a connection the vendor made (docs/product-rules.md#partner-api). A webhook stored before this column
 * existed cannot say who stored it, so it counts as the vendor's: the partner API cannot overwrite it, and
 * `slack-connect` can, as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workspaces", (t) => {
    t.text("slack_connected_by").nullable();
  });
  await knex.raw(
    "ALTER TABLE workspaces ADD CONSTRAINT workspaces_slack_connected_by_check CHECK (slack_connected_by IN ('vendor', 'partner'))",
  );
  await knex("workspaces").whereNotNull("slack_webhook_url").update({ slack_connected_by: "vendor" });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workspaces", (t) => {
    t.dropColumn("slack_connected_by");
  });
}
