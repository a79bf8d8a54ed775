import type { Knex } from "knex";

/**
 * The per-workspace suppression list: addresses digest emails are not sent to (spec/digests.tsp, SuppressedEmail).
 * Added by hand (`POST /digests/suppressions`), by hard bounces and complaints, and by one-click unsubscribes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("suppressed_emails", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    // Stored lowercased (the spec compares addresses case-insensitively), so a plain unique index is enough.
    t.text("email").notNullable();
    t.text("reason").notNullable();
    t.text("detail").nullable();
    t.timestamp("suppressed_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // One row per address and workspace: what makes `suppress` an idempotent upsert (ON CONFLICT DO NOTHING).
    t.unique(["workspace_id", "email"]);
    // `GET /digests/suppressions`: most recently suppressed first.
    t.index(["workspace_id", "suppressed_at"]);
  });
  await knex.raw(
    "ALTER TABLE suppressed_emails ADD CONSTRAINT suppressed_emails_email_lowercase CHECK (email = lower(email))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("suppressed_emails");
}
