import type { Knex } from "knex";

/**
 * What `immediate` alert rules sent for each event (docs/product-rules.md#immediate-alerts): one row per event, channel
 * and recipient. The unique key is what makes delivery idempotent: the `event-created` consumer inserts with ON
 * CONFLICT DO NOTHING and sends only the rows it inserted, so a retried job or a second worker never mails anyone
 * twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("alert_deliveries", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("event_id").notNullable().references("events.id").onDelete("CASCADE");
    t.text("channel").notNullable();
    // The member's address (lowercased) for `email`; the literal 'slack' for the workspace's one Slack webhook.
    t.text("recipient").notNullable();
    t.text("status").notNullable();
    // Why the row is `failed` (or, while `queued`, why the last Slack attempt will be retried).
    t.text("error").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("sent_at", { useTz: true }).nullable();
    t.unique(["event_id", "channel", "recipient"]);
  });
  for (const check of [
    "alert_deliveries_channel_check CHECK (channel IN ('email','slack'))",
    "alert_deliveries_status_check CHECK (status IN ('queued','sent','suppressed','failed'))",
    "alert_deliveries_slack_recipient_check CHECK (channel <> 'slack' OR recipient = 'slack')",
  ]) {
    await knex.raw(`ALTER TABLE alert_deliveries ADD CONSTRAINT ${check}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("alert_deliveries");
}
