import type { Knex } from "knex";

/**
 * `chat_messages`: one row per answered `POST /chat` (src/chat/). The rows are what `chat_quota` counts, per calendar
 * month in UTC (src/chat/usage.ts: `GET /me/plan`'s `usage.chat_used` and the quota check read the same count), and
 * they keep what was asked and answered, with the model and token usage that wrote the answer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("chat_messages", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    // Kept when the user goes: the workspace's quota was still spent.
    t.uuid("user_id").nullable().references("users.id").onDelete("SET NULL");
    // The conversation sent, as received, and the answer given.
    t.jsonb("messages").notNullable();
    t.text("reply").notNullable();
    t.jsonb("citations").notNullable().defaultTo("[]");
    // null: the rule-based writer answered (no LLM configured).
    t.text("model").nullable();
    t.integer("prompt_tokens").nullable();
    t.integer("completion_tokens").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // The month's count for one workspace.
    t.index(["workspace_id", "created_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("chat_messages");
}
