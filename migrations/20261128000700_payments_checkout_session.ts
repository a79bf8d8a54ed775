import type { Knex } from "knex";

/**
 * `workspaces.payments_checkout_session_id`: the workspace's latest Checkout Session, so that a new checkout expires
 * it at the provider (or is refused while it is complete and its subscription not yet reported) rather than leave
 * two unpaid sessions that could both be paid (docs/product-rules.md#billing). Cleared when the webhook reports that
 * session completed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workspaces", (t) => {
    t.text("payments_checkout_session_id").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workspaces", (t) => {
    t.dropColumn("payments_checkout_session_id");
  });
}
