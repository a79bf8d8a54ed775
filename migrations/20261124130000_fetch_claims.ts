import type { Knex } from "knex";

/**
 * `sources.fetch_started_at`: a running fetch's claim on its source (src/sources/fetch-queue.ts). The scheduler
 * does not queue a source that is being fetched, and a second fetch job of it (a run-now while it runs, a retry)
 * waits for the first to be recorded: one source is never fetched twice at once, nor twice for one due time. A claim
 * older than the fetch job's expiry belongs to a process that died and no longer counts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("sources", (t) => {
    t.timestamp("fetch_started_at", { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("sources", (t) => {
    t.dropColumn("fetch_started_at");
  });
}
