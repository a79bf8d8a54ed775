import type { Knex } from "knex";

/**
 * Queued outgoing mail (src/email/outbox.ts): the `email-send` job carries only the row's id, so a message's text is
 * stored once, in the transaction that caused it, and the row records what became of it. `alert_delivery_id` names the
 * immediate-alert row the outcome is copied to. Sent rows are pruned after a week (they may hold sign-in links).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("outgoing_emails", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.text("to_address").notNullable();
    t.text("subject").notNullable();
    t.text("text_body").notNullable();
    t.text("html_body").nullable();
    t.jsonb("headers").notNullable().defaultTo("{}");
    t.uuid("alert_delivery_id").nullable().references("alert_deliveries.id").onDelete("SET NULL");
    // The transport's id for the message once sent; the last transport error while it is not.
    t.text("provider_message_id").nullable();
    t.text("error").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("sent_at", { useTz: true }).nullable();
    t.index(["sent_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("outgoing_emails");
}
