import type { Knex } from "knex";

/**
 * The demo workspace and the public stats (docs/product-rules.md#public-stats, docs/product-rules.md#admin-views).
 *
 * - The demo flag itself is `workspaces.is_demo`, with the partial unique index `workspaces_single_demo` (foundation
 *   migration): at most one workspace holds it, whatever the writers do.
 * - `events.published_at`: the changed item's own publication date (a feed item's, release's or post's date, as the
 *   page or feed states it), when the change has one; `null` for changes that carry no date of their own (a price,
 *   a headline). `observed_at` stays the fetch that showed the change. `GET /stats/hero` measures publication →
 *   detection over the events that have it.
 * - `events_published`: the hero stat reads the last 30 days of dated events of every workspace; a partial index keeps
 *   that read small however many undated events the table holds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("events", (t) => {
    t.timestamp("published_at", { useTz: true }).nullable();
  });
  await knex.raw(
    "CREATE INDEX events_published ON events (detected_at) INCLUDE (published_at) WHERE published_at IS NOT NULL",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DROP INDEX IF EXISTS events_published");
  await knex.schema.alterTable("events", (t) => {
    t.dropColumn("published_at");
  });
}
