import type { Knex } from "knex";

/**
 * Outbound webhooks (docs/product-rules.md#webhooks-and-signatures): one subscription per workspace and environment,
 * one delivery per (subscription, event), and every HTTP attempt of a delivery.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("webhook_subscriptions", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.text("environment").notNullable();
    t.text("url").notNullable();
    // `whsec_…`; used whole as the HMAC key, as Stripe does (docs/product-rules.md#outbound-signature).
    t.text("signing_secret").notNullable();
    t.text("min_severity").notNullable().defaultTo("low");
    // null = every event type.
    t.jsonb("event_types").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // "One subscription per environment" (docs/product-rules.md#outbound-webhooks): what makes webhook-add an upsert.
    t.unique(["workspace_id", "environment"]);
  });
  await knex.raw(
    "ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_environment_check CHECK (environment IN ('staging','production'))",
  );
  await knex.raw(
    "ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_min_severity_check CHECK (min_severity IN ('low','medium','high','critical'))",
  );

  await knex.schema.createTable("webhook_deliveries", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("subscription_id").notNullable().references("webhook_subscriptions.id").onDelete("CASCADE");
    t.uuid("event_id").notNullable().references("events.id").onDelete("CASCADE");
    t.text("status").notNullable().defaultTo("pending");
    t.integer("attempts").notNullable().defaultTo(0);
    t.timestamp("first_attempt_at", { useTz: true }).nullable();
    t.timestamp("last_attempt_at", { useTz: true }).nullable();
    t.timestamp("next_attempt_at", { useTz: true }).nullable();
    t.timestamp("delivered_at", { useTz: true }).nullable();
    t.integer("last_status").nullable();
    t.text("last_error").nullable();
    // The one `webhook-deliver` job allowed to act on this delivery (src/webhooks/deliver.ts): a stale or duplicate
    // job finds another id here and does nothing, so a crash can never fork two retry chains.
    t.uuid("job_id").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // One delivery per event and subscription: the event consumer's insert is ON CONFLICT DO NOTHING (idempotent).
    t.unique(["subscription_id", "event_id"]);
    t.index(["event_id"]);
  });
  await knex.raw(
    "ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending','delivered','failed','dead'))",
  );

  await knex.schema.createTable("webhook_attempts", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("delivery_id").notNullable().references("webhook_deliveries.id").onDelete("CASCADE");
    t.timestamp("attempted_at", { useTz: true }).notNullable();
    t.integer("status_code").nullable();
    t.integer("latency_ms").notNullable();
    t.text("error").nullable();
    t.index(["delivery_id", "attempted_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("webhook_attempts");
  await knex.schema.dropTableIfExists("webhook_deliveries");
  await knex.schema.dropTableIfExists("webhook_subscriptions");
}
