import type { Knex } from "knex";

/**
 * A digest delivery is claimed before its mail is handed to the transport, and the claim is committed first, so no
 * transaction (nor row lock) is held while the mail leaves (src/digests/send.ts). `claimed_until` is when a sender's
 * claim lapses (a sender that died mid-send leaves it behind, and the next attempt takes the row over after it);
 * `send_attempts` counts the claims, for operators.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("digest_deliveries", (t) => {
    t.timestamp("claimed_until", { useTz: true }).nullable();
    t.integer("send_attempts").notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("digest_deliveries", (t) => {
    t.dropColumn("claimed_until");
    t.dropColumn("send_attempts");
  });
}
