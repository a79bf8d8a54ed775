import type { Knex } from "knex";

/**
 * The vendor's own support inbox (docs/product-rules.md#support-inbox): the provisioned provider inbox, its threads and
 * their messages.
 *
 * None of these is a tenant table: they have no `workspace_id` because they belong to no customer workspace. The
 * inbox is the vendor's, a customer reaches it by email (not through a workspace), and only platform admins read it
 * (`/support/*`, docs/product-rules.md#access-and-roles), the way the admin views read across workspaces. Scoping them
 * to a workspace would have no workspace to name, so they stay out of TENANT_TABLES (src/db/tenancy.ts).
 */
export async function up(knex: Knex): Promise<void> {
  // The inbox setup provisioned, one row per provider `client_id` (derived from SUPPORT_INBOX_USERNAME and
  // SUPPORT_INBOX_DOMAIN), so sync and replies know the inbox without asking the provider again.
  await knex.schema.createTable("support_inboxes", (t) => {
    t.text("client_id").primary();
    t.text("provider_inbox_id").notNullable();
    t.text("email").notNullable();
    t.text("webhook_id").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable("support_threads", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    // Messages of one provider thread form one support thread; unique so concurrent ingests of one thread (webhook and
    // sync) meet on one row.
    t.text("provider_thread_id").notNullable().unique();
    t.text("provider_inbox_id").notNullable();
    // The address the customer wrote to: replies are sent from it.
    t.text("inbox_address").nullable();
    t.text("subject").notNullable();
    t.text("sender_name").notNullable();
    t.text("sender_email").notNullable();
    t.text("category").nullable();
    t.text("severity").notNullable().defaultTo("low");
    t.text("status").notNullable().defaultTo("open");
    t.boolean("needs_human").notNullable().defaultTo(false);
    t.text("triage_summary").nullable();
    t.text("latest_draft").nullable();
    t.text("triage_model").nullable();
    t.integer("message_count").notNullable().defaultTo(0);
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("last_message_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`
    ALTER TABLE support_threads
      ADD CONSTRAINT support_threads_status_check CHECK (status IN ('open', 'escalated', 'closed')),
      ADD CONSTRAINT support_threads_category_check
        CHECK (category IS NULL OR category IN ('billing', 'bug', 'feature_request', 'account', 'other')),
      ADD CONSTRAINT support_threads_severity_check CHECK (severity IN ('low', 'medium', 'high', 'critical')),
      -- docs/product-rules.md#support-inbox: an escalated thread has needs_human true.
      ADD CONSTRAINT support_threads_escalated_needs_human CHECK (status <> 'escalated' OR needs_human)
  `);
  // The list: most recently active first, at most 500 (docs/product-rules.md#bounded-lists).
  await knex.raw("CREATE INDEX support_threads_recent ON support_threads (last_message_at DESC, id DESC)");

  await knex.schema.createTable("support_messages", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    // Insertion order: breaks ties between messages of one timestamp, so a thread's messages keep one order.
    t.bigIncrements("seq", { primaryKey: false });
    t.uuid("thread_id").notNullable().references("support_threads.id").onDelete("CASCADE");
    t.text("direction").notNullable();
    // Each provider message is ingested once (webhook, sync, or the reply that sent it).
    t.text("provider_message_id").nullable().unique();
    t.text("from_email").notNullable();
    t.text("from_name").nullable();
    t.text("text").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("stored_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`
    ALTER TABLE support_messages
      ADD CONSTRAINT support_messages_direction_check CHECK (direction IN ('inbound', 'outbound'))
  `);
  await knex.raw("CREATE INDEX support_messages_thread ON support_messages (thread_id, created_at, seq)");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("support_messages");
  await knex.schema.dropTableIfExists("support_threads");
  await knex.schema.dropTableIfExists("support_inboxes");
}
