import type { Knex } from "knex";

/**
 * The partner API (docs/product-rules.md#partner-api, spec/partner.tsp).
 *
 * - Provisioning: `workspaces.parent_workspace_id` and the unique index on (parent_workspace_id,
 *   lower(customer_email)) came with the foundation migration; provisioning inserts with ON CONFLICT on that index,
 *   so concurrent duplicates create one workspace. Both are checked here rather than assumed, so a database migrated
 *   from an older foundation gets them too.
 * - `partner_monitors`: one monitor per (workspace, monitor type). The firehose reads `cadence` and `enabled` of the
 *   `social` and `news` monitors (docs/product-rules.md#firehose).
 * - The partner alert rule (`__partner_default__`) sends to the addresses the partner gave and only for the monitor
 *   types it chose: two nullable columns of `alert_rules` (null = the workspace's members / every event).
 */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasColumn("workspaces", "parent_workspace_id"))) {
    await knex.schema.alterTable("workspaces", (t) => {
      t.uuid("parent_workspace_id").nullable().references("workspaces.id").onDelete("SET NULL");
    });
  }
  await knex.raw(
    `CREATE UNIQUE INDEX IF NOT EXISTS workspaces_partner_customer_email
       ON workspaces (parent_workspace_id, lower(customer_email)) WHERE parent_workspace_id IS NOT NULL`,
  );
  // Reach checks and children lists look workspaces up by parent.
  await knex.raw(
    "CREATE INDEX IF NOT EXISTS workspaces_parent ON workspaces (parent_workspace_id) WHERE parent_workspace_id IS NOT NULL",
  );

  await knex.schema.createTable("partner_monitors", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.text("monitor_type").notNullable();
    t.text("label").nullable();
    t.text("cadence").notNullable().defaultTo("daily");
    t.boolean("enabled").notNullable().defaultTo(true);
    // Partner-defined configuration, stored as given (spec/partner.tsp PartnerMonitor.config_json).
    t.jsonb("config_json").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // One monitor per type: registration inserts with ON CONFLICT on this key.
    t.unique(["workspace_id", "monitor_type"]);
  });
  for (const check of [
    `partner_monitors_type_check CHECK (monitor_type IN
       ('pricing','product','hiring','narrative','news','social','reviews','funding'))`,
    "partner_monitors_cadence_check CHECK (cadence IN ('hourly','daily','weekly'))",
  ]) {
    await knex.raw(`ALTER TABLE partner_monitors ADD CONSTRAINT ${check}`);
  }

  await knex.schema.alterTable("alert_rules", (t) => {
    // Addresses the rule mails (lowercased); null = every member of the workspace.
    t.jsonb("email_recipients_json").nullable();
    // Monitor types the rule covers (docs/product-rules.md#partner-api mapping); null = no monitor-type filter.
    t.jsonb("monitor_types_json").nullable();
  });
  for (const check of [
    `alert_rules_email_recipients_check CHECK (email_recipients_json IS NULL
       OR jsonb_typeof(email_recipients_json) = 'array')`,
    `alert_rules_monitor_types_check CHECK (monitor_types_json IS NULL OR (jsonb_typeof(monitor_types_json) = 'array'
       AND monitor_types_json <@ '["pricing","product","hiring","narrative","news","social","reviews","funding"]'::jsonb))`,
  ]) {
    await knex.raw(`ALTER TABLE alert_rules ADD CONSTRAINT ${check}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("alert_rules", (t) => {
    t.dropColumn("monitor_types_json");
    t.dropColumn("email_recipients_json");
  });
  await knex.schema.dropTableIfExists("partner_monitors");
  await knex.raw("DROP INDEX IF EXISTS workspaces_parent");
}
