import type { Knex } from "knex";

/**
 * Auth hardening (docs/product-rules.md#tokens-and-passwords):
 *
 * - `users.token_generation`: access tokens carry the generation they were issued under (`gen`); a password reset
 *   increments it, so every token issued before the reset stops working.
 * - `password_reset_tokens.nonce`: set-password tokens are derived from the row's id and this nonce with a key from
 *   JWT_SECRET (src/auth/reset-email.ts), so the mail can be rendered when it is sent and no queued message or job holds
 *   a usable token. Links issued before this migration sit in plaintext in queued mail: they are expired here (their
 *   owners request a new one with forgot-password).
 * - `rate_limit_buckets.expires_at`: when the bucket's window ends, so expired buckets can be pruned (by index).
 *   Existing rows get a day, longer than any window in use.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => {
    t.integer("token_generation").notNullable().defaultTo(0);
  });
  await knex.schema.alterTable("password_reset_tokens", (t) => {
    t.text("nonce").nullable();
  });
  await knex("password_reset_tokens").whereNull("used_at").update({ used_at: knex.fn.now() });
  await knex.schema.alterTable("rate_limit_buckets", (t) => {
    t.timestamp("expires_at", { useTz: true }).notNullable().defaultTo(knex.raw("now() + interval '1 day'"));
    t.index(["expires_at"]);
  });
  await knex("rate_limit_buckets").update({ expires_at: knex.raw("window_started_at + interval '1 day'") });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("rate_limit_buckets", (t) => {
    t.dropIndex(["expires_at"]);
    t.dropColumn("expires_at");
  });
  await knex.schema.alterTable("password_reset_tokens", (t) => {
    t.dropColumn("nonce");
  });
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("token_generation");
  });
}
