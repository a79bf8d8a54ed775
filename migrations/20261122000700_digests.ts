import type { Knex } from "knex";

/**
 * Digests (docs/product-rules.md#digests-and-unsubscribe): the stored digests of a workspace, one delivery row per
 * recipient of a digest, and the ids of inbound signed webhooks already accepted (Standard Webhooks replay protection,
 * docs/product-rules.md#inbound-signatures: a `provider-id` seen before is a replay).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("digests", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.text("period_type").notNullable();
    t.timestamp("period_start", { useTz: true }).notNullable();
    t.timestamp("period_end", { useTz: true }).notNullable();
    t.timestamp("generated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("delivered_at", { useTz: true }).nullable();
    t.jsonb("payload_json").nullable();
    // The scheduler run that generated it (`daily:2026-11-22`, `weekly:2026-W47`); null for manual digests. Unique
    // per workspace, so a run that is retried or executed twice generates each workspace's digest once.
    t.text("scheduled_mark").nullable();
    t.unique(["workspace_id", "scheduled_mark"]);
    t.index(["workspace_id", "generated_at"]);
  });
  await knex.raw(
    "ALTER TABLE digests ADD CONSTRAINT digests_period_type_check CHECK (period_type IN ('daily','weekly'))",
  );
  // The scheduler's "latest scheduled digest of each workspace and period" lookup.
  await knex.raw(
    "CREATE INDEX digests_latest_scheduled ON digests (workspace_id, period_type, period_end DESC) WHERE scheduled_mark IS NOT NULL",
  );

  await knex.schema.createTable("digest_deliveries", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("digest_id").notNullable().references("digests.id").onDelete("CASCADE");
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.uuid("user_id").nullable().references("users.id").onDelete("SET NULL");
    // Lowercased: one delivery per address and digest, whatever the letter case of the member's email.
    t.text("recipient_email").notNullable();
    t.text("recipient_name").nullable();
    t.text("provider").notNullable();
    t.text("provider_message_id").nullable();
    t.text("status").notNullable().defaultTo("pending");
    t.text("last_event").nullable();
    t.timestamp("last_event_at", { useTz: true }).nullable();
    t.timestamp("sent_at", { useTz: true }).nullable();
    t.timestamp("delivered_at", { useTz: true }).nullable();
    t.timestamp("opened_at", { useTz: true }).nullable();
    t.timestamp("bounced_at", { useTz: true }).nullable();
    t.text("bounce_reason").nullable();
    t.integer("opens_count").notNullable().defaultTo(0);
    // Why a send failed (transport error), for operators; not part of the contract.
    t.text("error").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // "Once per digest per member" (docs/product-rules.md#schedule): the scheduler and POST /send both insert ON
    // CONFLICT.
    t.unique(["digest_id", "recipient_email"]);
  });
  await knex.raw(
    `ALTER TABLE digest_deliveries ADD CONSTRAINT digest_deliveries_status_check
     CHECK (status IN ('pending','sent','delivered','opened','bounced','complained','failed','suppressed'))`,
  );
  // The email webhook finds a delivery by the provider's message id.
  await knex.raw(
    "CREATE INDEX digest_deliveries_provider_message ON digest_deliveries (provider_message_id) WHERE provider_message_id IS NOT NULL",
  );

  await knex.schema.createTable("inbound_webhook_receipts", (t) => {
    // Which endpoint received it (`email`, later `payments`, `inbound-mail`) and the sender's message id.
    t.text("endpoint").notNullable();
    t.text("message_id").notNullable();
    t.timestamp("received_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(["endpoint", "message_id"]);
    t.index(["received_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("inbound_webhook_receipts");
  await knex.schema.dropTableIfExists("digest_deliveries");
  await knex.schema.dropTableIfExists("digests");
}
