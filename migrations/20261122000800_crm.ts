import type { Knex } from "knex";

/**
 * CRM write-back (docs/product-rules.md#crm-write-back, `crm-connect` in docs/operations.md#admin-cli): one connection
 * per workspace and provider, one sync per (connection, event) with per-record progress, and the daily rollup
 * engagements, each claimed once per (connection, account, UTC day).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("crm_connections", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.text("provider").notNullable();
    // Salesforce instance URL / HubSpot API base, without a trailing slash.
    t.text("base_url").notNullable();
    // The bearer token, sent as `Authorization: Bearer …`; never printed by the CLI (crm-status shows its last 4).
    t.text("token").notNullable();
    // `high` unless crm-connect says otherwise: every write lands on a sales rep's open deals (src/crm/connections.ts).
    t.text("severity_threshold").notNullable().defaultTo("high");
    // {last_move, last_move_date, last_move_severity} → the CRM's property names (the provider's defaults unless renamed).
    t.jsonb("field_names").notNullable();
    // {competitor_id: {account_ids: […]} | {filter: {…}} | {view_id: "…"}}
    t.jsonb("mapping").notNullable().defaultTo("{}");
    // `errored` after the CRM refused the token (401): no new syncs until crm-connect runs again.
    t.text("status").notNullable().defaultTo("active");
    t.text("last_error").nullable();
    t.timestamp("errored_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // What makes crm-connect an upsert.
    t.unique(["workspace_id", "provider"]);
  });
  await knex.raw(
    "ALTER TABLE crm_connections ADD CONSTRAINT crm_connections_provider_check CHECK (provider IN ('salesforce','hubspot'))",
  );
  await knex.raw(
    "ALTER TABLE crm_connections ADD CONSTRAINT crm_connections_severity_check CHECK (severity_threshold IN ('low','medium','high','critical'))",
  );
  await knex.raw(
    "ALTER TABLE crm_connections ADD CONSTRAINT crm_connections_status_check CHECK (status IN ('active','errored'))",
  );

  await knex.schema.createTable("crm_syncs", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("connection_id").notNullable().references("crm_connections.id").onDelete("CASCADE");
    t.uuid("event_id").notNullable().references("events.id").onDelete("CASCADE");
    t.text("status").notNullable().defaultTo("pending");
    t.integer("attempts").notNullable().defaultTo(0);
    // A run holds the sync until then (renewed per record), so two runs never write the same records at once.
    t.timestamp("locked_until", { useTz: true }).nullable();
    t.integer("records_total").nullable();
    t.integer("records_failed").notNullable().defaultTo(0);
    t.text("last_error").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("finished_at", { useTz: true }).nullable();
    // One sync per event and connection: the event consumer inserts ON CONFLICT DO NOTHING (idempotent).
    t.unique(["connection_id", "event_id"]);
    t.index(["event_id"]);
  });
  await knex.raw(
    "ALTER TABLE crm_syncs ADD CONSTRAINT crm_syncs_status_check CHECK (status IN ('pending','done','failed','stopped'))",
  );

  await knex.schema.createTable("crm_writes", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("sync_id").notNullable().references("crm_syncs.id").onDelete("CASCADE");
    // The opportunity (Salesforce) or deal (HubSpot) id.
    t.text("record_id").notNullable();
    t.text("status").notNullable().defaultTo("pending");
    // Per-step progress: a retried sync skips what is already written (the note POST is not idempotent).
    t.timestamp("patched_at", { useTz: true }).nullable();
    t.timestamp("noted_at", { useTz: true }).nullable();
    t.text("note_id").nullable();
    t.text("error").nullable();
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["sync_id", "record_id"]);
  });
  await knex.raw(
    "ALTER TABLE crm_writes ADD CONSTRAINT crm_writes_status_check CHECK (status IN ('pending','done','failed'))",
  );

  await knex.schema.createTable("crm_rollup_runs", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("connection_id").notNullable().references("crm_connections.id").onDelete("CASCADE");
    t.date("day").notNullable();
    t.text("status").notNullable().defaultTo("pending");
    t.text("last_error").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("finished_at", { useTz: true }).nullable();
    // One rollup job per connection and day, however often the scheduler asks (enqueueDueCrmRollups).
    t.unique(["connection_id", "day"]);
  });
  await knex.raw(
    "ALTER TABLE crm_rollup_runs ADD CONSTRAINT crm_rollup_runs_status_check CHECK (status IN ('pending','done','failed','stopped'))",
  );

  await knex.schema.createTable("crm_rollups", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("connection_id").notNullable().references("crm_connections.id").onDelete("CASCADE");
    t.text("account_id").notNullable();
    t.date("day").notNullable();
    // `claimed` before the POST, `done` with the engagement id after it: a second run finds the row and sends nothing.
    t.text("status").notNullable().defaultTo("claimed");
    t.timestamp("claimed_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text("engagement_id").nullable();
    t.integer("events_count").notNullable();
    t.text("error").nullable();
    t.timestamp("done_at", { useTz: true }).nullable();
    // "One per account per day, even when the job runs twice" (docs/product-rules.md#daily-rollup).
    t.unique(["connection_id", "account_id", "day"]);
  });
  await knex.raw(
    "ALTER TABLE crm_rollups ADD CONSTRAINT crm_rollups_status_check CHECK (status IN ('claimed','done','failed'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("crm_rollups");
  await knex.schema.dropTableIfExists("crm_rollup_runs");
  await knex.schema.dropTableIfExists("crm_writes");
  await knex.schema.dropTableIfExists("crm_syncs");
  await knex.schema.dropTableIfExists("crm_connections");
}
