import type { Knex } from "knex";

/**
 * Alert rules (docs/product-rules.md#alert-rules, spec/alert-rules.tsp), and the default rule every workspace starts
 * with, backfilled for the workspaces that exist already (new ones get theirs from `createWorkspaceFor`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("alert_rules", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    // `null` = every competitor of the workspace. A rule for one competitor goes when the competitor goes.
    t.uuid("competitor_id").nullable().references("competitors.id").onDelete("CASCADE");
    t.text("name").notNullable();
    t.double("confidence_threshold").notNullable();
    t.jsonb("delivery_channels_json").notNullable();
    // `null` = every event type.
    t.jsonb("event_types_json").nullable();
    t.text("frequency").notNullable();
    t.text("severity_threshold").notNullable();
    t.boolean("is_active").notNullable().defaultTo(true);
    t.boolean("is_default").notNullable().defaultTo(false);
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // The list: one workspace, oldest first.
    t.index(["workspace_id", "created_at"]);
  });
  // Deleting a competitor cascades to its rules; without an index each delete would scan the table.
  await knex.raw("CREATE INDEX alert_rules_competitor ON alert_rules (competitor_id) WHERE competitor_id IS NOT NULL");
  // "The rule every workspace starts with": at most one per workspace (it may be deleted, leaving none).
  await knex.raw("CREATE UNIQUE INDEX alert_rules_one_default ON alert_rules (workspace_id) WHERE is_default");
  for (const check of [
    "alert_rules_frequency_check CHECK (frequency IN ('immediate','daily','weekly'))",
    "alert_rules_severity_check CHECK (severity_threshold IN ('low','medium','high','critical'))",
    "alert_rules_confidence_check CHECK (confidence_threshold >= 0 AND confidence_threshold <= 1)",
    // jsonb_typeof first: `<@` would also accept a bare string contained in the array.
    `alert_rules_channels_check CHECK (jsonb_typeof(delivery_channels_json) = 'array'
       AND jsonb_array_length(delivery_channels_json) >= 1
       AND delivery_channels_json <@ '["email","slack"]'::jsonb)`,
    `alert_rules_event_types_check CHECK (event_types_json IS NULL OR (jsonb_typeof(event_types_json) = 'array'
       AND jsonb_array_length(event_types_json) >= 1
       AND event_types_json <@ '["pricing_change","product_change","hiring_change","narrative_change"]'::jsonb))`,
  ]) {
    await knex.raw(`ALTER TABLE alert_rules ADD CONSTRAINT ${check}`);
  }

  // The default rule of every existing workspace, as `createDefaultAlertRule` makes it. The name is written out
  // (not imported from src/) so this migration keeps doing what it did when the naming code changes.
  await knex.raw(
    `INSERT INTO alert_rules (workspace_id, name, confidence_threshold, delivery_channels_json, event_types_json,
                              frequency, severity_threshold, is_active, is_default)
     SELECT w.id, ?, 0.5, '["email"]'::jsonb, NULL, 'daily', 'medium', true, true
       FROM workspaces w
      WHERE NOT EXISTS (SELECT 1 FROM alert_rules r WHERE r.workspace_id = w.id)`,
    ["Medium+ changes — every competitor"],
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("alert_rules");
}
