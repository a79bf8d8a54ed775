import type { Knex } from "knex";

/**
 * Billing (docs/product-rules.md#billing). The workspace's link to the payments provider lives on `workspaces`
 * (customer and subscription ids, `subscription_status`, `current_period_end`, `beta_claimed_at`,
 * `beta_grandfathered`: columns of the foundation migration); this migration adds what the payments webhook and beta
 * claims need besides:
 *
 * - `workspaces.payments_state_at`: the provider's creation time of the newest event applied to the workspace's
 *   billing state. The provider does not deliver events in order; an event older than the state it would change is
 *   recorded but changes nothing (src/billing/webhook.ts).
 * - `beta_claims`: every claim with every field sent (`fields`, as received, unknown fields included), idempotent per
 *   (`contact_email` compared case-insensitively, `requested_tier`) by a unique index, so concurrent duplicates make
 *   one row.
 * - `payments_events`: every provider event id processed, keyed by that id: a redelivered or concurrently delivered
 *   event finds its id taken and changes nothing (exactly once).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workspaces", (t) => {
    t.timestamp("payments_state_at", { useTz: true }).nullable();
  });
  // The webhook finds a workspace by the provider's ids when an event carries no workspace id of ours.
  await knex.raw(
    "CREATE INDEX workspaces_payments_customer ON workspaces (payments_customer_id) WHERE payments_customer_id IS NOT NULL",
  );
  await knex.raw(
    "CREATE INDEX workspaces_payments_subscription ON workspaces (payments_subscription_id) WHERE payments_subscription_id IS NOT NULL",
  );

  await knex.schema.createTable("beta_claims", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    // Kept when the user goes: the claim is the workspace's.
    t.uuid("user_id").nullable().references("users.id").onDelete("SET NULL");
    t.text("contact_email").notNullable();
    t.text("requested_tier").notNullable();
    t.text("billing_cycle").notNullable();
    t.integer("seat_count").notNullable();
    t.text("contact_name").nullable();
    t.text("notes").nullable();
    // The request body exactly as sent, unknown fields included (docs/product-rules.md#billing).
    t.jsonb("fields").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["workspace_id", "created_at"]);
  });
  await knex.raw(
    "ALTER TABLE beta_claims ADD CONSTRAINT beta_claims_requested_tier_check CHECK (requested_tier IN ('free','starter','growth','enterprise'))",
  );
  await knex.raw(
    "ALTER TABLE beta_claims ADD CONSTRAINT beta_claims_billing_cycle_check CHECK (billing_cycle IN ('monthly','annual'))",
  );
  await knex.raw(
    "CREATE UNIQUE INDEX beta_claims_contact_tier_unique ON beta_claims (lower(contact_email), requested_tier)",
  );

  await knex.schema.createTable("payments_events", (t) => {
    // The provider's event id (`evt_…`): the key of exactly-once processing.
    t.text("id").primary();
    t.text("type").notNullable();
    // The workspace the event was about, when one was found; events about unknown customers are recorded too (null).
    t.uuid("workspace_id").nullable().references("workspaces.id").onDelete("SET NULL");
    // What processing did, for operators: `applied`, `ignored: <reason>`.
    t.text("outcome").notNullable();
    // The provider's own creation time of the event (`created`, unix seconds).
    t.timestamp("created_at", { useTz: true }).nullable();
    t.timestamp("received_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.jsonb("payload").notNullable();
    t.index(["workspace_id", "received_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("payments_events");
  await knex.schema.dropTableIfExists("beta_claims");
  await knex.raw("DROP INDEX IF EXISTS workspaces_payments_subscription");
  await knex.raw("DROP INDEX IF EXISTS workspaces_payments_customer");
  await knex.schema.alterTable("workspaces", (t) => {
    t.dropColumn("payments_state_at");
  });
}
