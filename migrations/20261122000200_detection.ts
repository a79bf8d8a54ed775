import type { Knex } from "knex";

/**
 * The detection engine: snapshots of fetched bodies, diffs between them, events with evidence, pending
 * (unconfirmed) changes for flap damping, competitor profiles, and the scheduler's state.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("sources", (t) => {
    // HTTP validators of the last successful fetch, for conditional GET.
    t.text("etag").nullable();
    t.text("last_modified").nullable();
    t.uuid("last_snapshot_id").nullable();
    t.integer("consecutive_failures").notNullable().defaultTo(0);
    // The fetch job waiting for this source, if any: at most one queued fetch per source (run-now and scheduler).
    t.uuid("fetch_job_id").nullable();
    t.timestamp("fetch_queued_at", { useTz: true }).nullable();
  });
  // The scheduler's "due" scan: active sources by when they were last fetched.
  await knex.raw("CREATE INDEX sources_due ON sources (last_fetched_at NULLS FIRST) WHERE is_active");
  await knex.raw("CREATE INDEX sources_failing ON sources (last_error_at DESC) WHERE error_message IS NOT NULL");

  await knex.schema.createTable("snapshots", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("source_id").notNullable().references("sources.id").onDelete("CASCADE");
    t.uuid("workspace_id").notNullable();
    // SHA-256 of the decoded body: an identical body makes no new snapshot and no diff.
    t.text("content_hash").notNullable();
    t.text("body").notNullable();
    t.text("content_type").nullable();
    t.integer("http_status").notNullable();
    t.text("final_url").notNullable();
    t.jsonb("extraction").notNullable();
    t.integer("extractor_version").notNullable();
    t.timestamp("fetched_at", { useTz: true }).notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["source_id", "fetched_at"]);
  });

  await knex.schema.createTable("diffs", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("source_id").notNullable().references("sources.id").onDelete("CASCADE");
    t.uuid("workspace_id").notNullable();
    t.uuid("before_snapshot_id").notNullable().references("snapshots.id").onDelete("CASCADE");
    t.uuid("after_snapshot_id").notNullable().references("snapshots.id").onDelete("CASCADE");
    t.jsonb("diff_json").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Re-analysis recomputes a pair's diff in place instead of adding a second one.
    t.unique(["before_snapshot_id", "after_snapshot_id"]);
  });

  await knex.schema.createTable("events", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.uuid("competitor_id").notNullable().references("competitors.id").onDelete("CASCADE");
    // Events outlive their source and diff (the detail then shows `source_url: null`, `diff_json: null`): no FK.
    t.uuid("source_id").notNullable();
    t.uuid("diff_id").notNullable();
    t.text("event_type").notNullable();
    t.text("severity").notNullable();
    t.text("status").notNullable().defaultTo("new");
    t.text("title").notNullable();
    t.text("summary").notNullable();
    t.text("impact_summary").notNullable();
    t.double("confidence_score").notNullable();
    t.text("confidence_reasoning").notNullable();
    t.boolean("is_inferred").notNullable().defaultTo(false);
    t.jsonb("tags_json").notNullable().defaultTo("[]");
    // What the event is about (e.g. `pricing:plan:pro`): one event per subject per diff, so re-analysis is idempotent.
    t.text("subject").notNullable();
    t.timestamp("observed_at", { useTz: true }).notNullable();
    t.timestamp("detected_at", { useTz: true }).notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["diff_id", "subject"]);
  });
  await knex.raw(
    "ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (event_type IN ('pricing_change','product_change','hiring_change','narrative_change'))",
  );
  await knex.raw(
    "ALTER TABLE events ADD CONSTRAINT events_severity_check CHECK (severity IN ('low','medium','high','critical'))",
  );
  await knex.raw(
    "ALTER TABLE events ADD CONSTRAINT events_status_check CHECK (status IN ('new','acknowledged','dismissed'))",
  );
  // The feed: one workspace, newest first, ties by id (GET /events).
  await knex.raw("CREATE INDEX events_feed ON events (workspace_id, detected_at DESC, id DESC)");
  await knex.raw("CREATE INDEX events_competitor ON events (competitor_id, detected_at DESC)");

  await knex.schema.createTable("evidence", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("event_id").notNullable().references("events.id").onDelete("CASCADE");
    t.text("evidence_type").notNullable();
    t.text("title").notNullable();
    t.text("excerpt").notNullable();
    t.text("source_url").notNullable();
    t.text("asset_object_key").nullable();
    t.jsonb("metadata_json").notNullable().defaultTo("{}");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["event_id"]);
  });

  // A low-confidence change waits here for the next fetch to confirm it (A/B tests and flapping pages are damped).
  await knex.schema.createTable("pending_changes", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("source_id").notNullable().references("sources.id").onDelete("CASCADE");
    t.uuid("diff_id").notNullable().references("diffs.id").onDelete("CASCADE");
    t.text("subject").notNullable();
    t.text("before_state").notNullable();
    t.text("after_state").notNullable();
    t.jsonb("draft").notNullable();
    t.timestamp("observed_at", { useTz: true }).notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["source_id", "subject"]);
  });

  await knex.schema.createTable("competitor_profiles", (t) => {
    t.uuid("competitor_id").primary().references("competitors.id").onDelete("CASCADE");
    t.jsonb("profile").notNullable();
    t.jsonb("vendor_data").nullable();
    t.jsonb("enriched_sources").notNullable().defaultTo("[]");
    t.text("industry").nullable();
    t.text("business_model").nullable();
    t.timestamp("profiled_at", { useTz: true }).notNullable();
  });

  // One row: the scheduler's heartbeat, shared by every worker process.
  await knex.schema.createTable("scheduler_state", (t) => {
    t.integer("id").primary();
    t.timestamp("last_tick_at", { useTz: true }).nullable();
    t.integer("last_tick_enqueued").notNullable().defaultTo(0);
    t.smallint("daily_hour_utc").notNullable().defaultTo(0);
    t.smallint("weekly_dow").notNullable().defaultTo(0);
    t.timestamp("installed_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex("scheduler_state").insert({ id: 1 });

  // Scheduled digest runs (recent_runs of GET /admin/scheduler); each mark is enqueued once.
  await knex.schema.createTable("scheduler_runs", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.text("mark").notNullable().unique();
    t.text("period_type").notNullable();
    t.timestamp("scheduled_for", { useTz: true }).notNullable();
    t.timestamp("enqueued_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text("job_id").notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    "scheduler_runs",
    "scheduler_state",
    "competitor_profiles",
    "pending_changes",
    "evidence",
    "events",
    "diffs",
    "snapshots",
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.raw("DROP INDEX IF EXISTS sources_due");
  await knex.raw("DROP INDEX IF EXISTS sources_failing");
  await knex.schema.alterTable("sources", (t) => {
    for (const column of [
      "etag",
      "last_modified",
      "last_snapshot_id",
      "consecutive_failures",
      "fetch_job_id",
      "fetch_queued_at",
    ])
      t.dropColumn(column);
  });
}
