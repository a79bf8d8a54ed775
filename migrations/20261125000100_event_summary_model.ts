import type { Knex } from "knex";

/**
 * `events.summary_model`: the LLM that rewrote the event's summary and impact (src/events/summaries.ts), null while
 * they are the detection's own text. Set once, so a retried rewrite job leaves a rewritten event alone.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("events", (t) => {
    t.text("summary_model").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("events", (t) => {
    t.dropColumn("summary_model");
  });
}
