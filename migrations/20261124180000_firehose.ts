import type { Knex } from "knex";

/**
 * The firehose (docs/product-rules.md#firehose): each `realtime` workspace's social and community listening.
 *
 * - `firehose_monitors`: one row per workspace, created by its first scheduled or manual run; the state the admin
 *   view shows (last run, failures in a row, last event) and `queued_for`, the slot its latest run was queued for,
 *   which makes the scheduler queue each slot once whatever the number of scheduler processes. Its id is the
 *   `source_id` of the events it creates (they have no `sources` row: their page is the post, kept as evidence).
 * - `firehose_mentions`: every post found, unique per workspace, source and the provider's id, so a mention seen
 *   again (an overlapping search window, a re-run) makes no second event. Its id is the event's `diff_id`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("firehose_monitors", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().unique().references("workspaces.id").onDelete("CASCADE");
    t.timestamp("queued_for", { useTz: true }).nullable();
    t.timestamp("last_run_at", { useTz: true }).nullable();
    // The searches' lower bound for the next run: the start of the latest run that succeeded.
    t.timestamp("searched_until", { useTz: true }).nullable();
    t.integer("consecutive_failures").notNullable().defaultTo(0);
    t.text("last_error").nullable();
    t.timestamp("last_event_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable("firehose_mentions", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.uuid("competitor_id").notNullable().references("competitors.id").onDelete("CASCADE");
    t.text("source").notNullable();
    t.text("external_id").notNullable();
    t.text("url").notNullable();
    t.text("title").notNullable();
    t.text("excerpt").notNullable();
    t.integer("engagement").notNullable().defaultTo(0);
    t.timestamp("posted_at", { useTz: true }).notNullable();
    t.timestamp("found_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["workspace_id", "source", "external_id"]);
    // `source_counts`: one workspace's mentions of the last 24 h per source.
    t.index(["workspace_id", "found_at"]);
  });
  await knex.raw(
    "ALTER TABLE firehose_mentions ADD CONSTRAINT firehose_mentions_source_check CHECK (source IN ('hn','reddit','x','youtube','github','podcast'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("firehose_mentions");
  await knex.schema.dropTableIfExists("firehose_monitors");
}
