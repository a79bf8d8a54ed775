import type { Knex } from "knex";

/**
 * `payments_ended_subscriptions`: every subscription id the payments provider reported ended (deleted, or updated to
 * a terminal status). An ended subscription never becomes live again from an event, whatever the order or the
 * `created` second the events carry (docs/product-rules.md#billing). Keyed by the provider's id; it names no
 * workspace, since an event may end a subscription no workspace holds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("payments_ended_subscriptions", (t) => {
    t.text("subscription_id").primary();
    t.text("event_id").notNullable();
    t.timestamp("ended_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("payments_ended_subscriptions");
}
