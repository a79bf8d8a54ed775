import type { Knex } from "knex";

/**
 * Source health and learned rules (docs/product-rules.md#source-health, docs/product-rules.md#learned-rules).
 *
 * - `sources.health_*`: whether the source is being read, why not, and whether an owner muted its notices.
 * - `source_notices`: one row per health transition, written in the transaction that changes the state (so a retried
 *   fetch job can never tell a transition twice), with its `source-notice-created` job.
 * - `alert_deliveries` and `webhook_deliveries` carry a notice instead of an event (exactly one of the two), so
 *   notices are sent, signed, retried and dead-lettered by the same code as events, once per (notice, recipient) and
 *   (subscription, notice).
 * - `alert_rules.notice_types_json`: the transitions an immediate rule alerts on (none for existing rules).
 * - `events.learn_keys`: the subject and region keys detection derived for the event, which a dismissal learns.
 * - `learned_rules`: what dismissals taught, per source and key.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("sources", (t) => {
    t.text("health_state").notNullable().defaultTo("healthy");
    t.text("health_reason").nullable();
    t.text("health_detail").nullable();
    t.text("health_action").nullable();
    t.timestamp("health_changed_at", { useTz: true }).nullable();
    t.boolean("health_notices_muted").notNullable().defaultTo(false);
  });
  await knex.raw(
    "ALTER TABLE sources ADD CONSTRAINT sources_health_state_check CHECK (health_state IN ('healthy','broken'))",
  );
  await knex.raw(
    `ALTER TABLE sources ADD CONSTRAINT sources_health_reason_check
       CHECK (health_reason IS NULL OR health_reason IN ('repeated_failures','not_found','walled','no_plans'))`,
  );

  await knex.schema.createTable("source_notices", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.uuid("source_id").notNullable().references("sources.id").onDelete("CASCADE");
    t.uuid("competitor_id").notNullable().references("competitors.id").onDelete("CASCADE");
    t.text("notice_type").notNullable();
    t.text("reason").notNullable();
    t.text("detail").notNullable();
    t.text("action").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw("CREATE INDEX source_notices_list ON source_notices (workspace_id, created_at DESC, id DESC)");
  await knex.raw("CREATE INDEX source_notices_source ON source_notices (source_id)");
  await knex.raw("CREATE INDEX source_notices_competitor ON source_notices (competitor_id)");
  await knex.raw(
    `ALTER TABLE source_notices ADD CONSTRAINT source_notices_type_check
       CHECK (notice_type IN ('source_broken','source_recovered'))`,
  );

  await knex.schema.alterTable("alert_rules", (t) => {
    t.jsonb("notice_types_json").notNullable().defaultTo(knex.raw("'[]'::jsonb"));
  });
  await knex.raw(
    `ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_notice_types_check CHECK (jsonb_typeof(notice_types_json) = 'array'
       AND notice_types_json <@ '["source_broken","source_recovered"]'::jsonb)`,
  );

  for (const table of ["alert_deliveries", "webhook_deliveries"]) {
    await knex.raw(`ALTER TABLE ${table} ALTER COLUMN event_id DROP NOT NULL`);
    await knex.schema.alterTable(table, (t) => {
      t.uuid("notice_id").nullable().references("source_notices.id").onDelete("CASCADE");
    });
    await knex.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_one_subject_check
       CHECK ((event_id IS NULL) <> (notice_id IS NULL))`);
  }
  await knex.raw(
    "CREATE UNIQUE INDEX alert_deliveries_notice_unique ON alert_deliveries (notice_id, channel, recipient) WHERE notice_id IS NOT NULL",
  );
  await knex.raw(
    "CREATE UNIQUE INDEX webhook_deliveries_notice_unique ON webhook_deliveries (subscription_id, notice_id) WHERE notice_id IS NOT NULL",
  );
  await knex.raw(
    "CREATE INDEX webhook_deliveries_notice ON webhook_deliveries (notice_id) WHERE notice_id IS NOT NULL",
  );

  await knex.schema.alterTable("events", (t) => {
    t.jsonb("learn_keys").nullable();
  });

  await knex.schema.createTable("learned_rules", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.uuid("source_id").notNullable().references("sources.id").onDelete("CASCADE");
    // Events are deleted with their competitor, rules with their source; an event may go first (history pruning).
    t.uuid("event_id").nullable().references("events.id").onDelete("SET NULL");
    t.text("event_title").notNullable();
    t.text("reason").notNullable();
    t.text("effect").notNullable();
    t.text("key").notNullable();
    t.text("description").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // One rule per key of a source: a later dismissal of the same kind of change replaces it.
    t.unique(["source_id", "key"]);
    t.index(["event_id"]);
  });
  await knex.raw(
    "ALTER TABLE learned_rules ADD CONSTRAINT learned_rules_reason_check CHECK (reason IN ('noise','not_relevant','wrong'))",
  );
  await knex.raw(
    "ALTER TABLE learned_rules ADD CONSTRAINT learned_rules_effect_check CHECK (effect IN ('suppress','demote'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("learned_rules");
  await knex.schema.alterTable("events", (t) => t.dropColumn("learn_keys"));
  await knex.raw("DELETE FROM alert_deliveries WHERE notice_id IS NOT NULL");
  await knex.raw("DELETE FROM webhook_deliveries WHERE notice_id IS NOT NULL");
  for (const table of ["alert_deliveries", "webhook_deliveries"]) {
    await knex.raw(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_one_subject_check`);
    await knex.schema.alterTable(table, (t) => t.dropColumn("notice_id"));
    await knex.raw(`ALTER TABLE ${table} ALTER COLUMN event_id SET NOT NULL`);
  }
  await knex.schema.alterTable("alert_rules", (t) => t.dropColumn("notice_types_json"));
  await knex.schema.dropTableIfExists("source_notices");
  await knex.raw("ALTER TABLE sources DROP CONSTRAINT sources_health_state_check");
  await knex.raw("ALTER TABLE sources DROP CONSTRAINT sources_health_reason_check");
  await knex.schema.alterTable("sources", (t) => {
    for (const column of [
      "health_state",
      "health_reason",
      "health_detail",
      "health_action",
      "health_changed_at",
      "health_notices_muted",
    ]) {
      t.dropColumn(column);
    }
  });
}
