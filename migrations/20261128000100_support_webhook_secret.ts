import type { Knex } from "knex";

/**
 * `support_inboxes.webhook_secret`: the signing secret the mail provider returned when setup registered the inbound
 * webhook, sealed like every stored credential (src/lib/secret-box.ts). The inbound-mail webhook verifies with it when
 * `INBOUND_MAIL_WEBHOOK_SECRET` is unset, and refuses everything when neither exists (docs/product-rules.md#support-inbox).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("support_inboxes", (t) => {
    t.text("webhook_secret").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("support_inboxes", (t) => {
    t.dropColumn("webhook_secret");
  });
}
