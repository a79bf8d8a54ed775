import type { Knex } from "knex";

/**
 * `learned_rules`: what detection learned on a source from an event dismissed with a reason
 * (docs/product-rules.md#learned-rules). One rule per source, event type and subject: dismissing the same kind of
 * change again replaces its reason. The teaching event may be deleted later (its competitor removed), so the rule
 * keeps the event's title and loses only the link.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("learned_rules", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("id").inTable("workspaces").onDelete("CASCADE");
    t.uuid("source_id").notNullable().references("id").inTable("sources").onDelete("CASCADE");
    t.uuid("event_id").nullable().references("id").inTable("events").onDelete("SET NULL");
    t.text("event_title").notNullable();
    t.text("reason").notNullable();
    t.text("effect").notNullable();
    t.text("event_type").notNullable();
    t.text("subject").notNullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["source_id", "event_type", "subject"]);
    t.index(["workspace_id"]);
  });
  await knex.raw(
    "ALTER TABLE learned_rules ADD CONSTRAINT learned_rules_reason_check CHECK (reason IN ('noise','not_relevant','wrong'))",
  );
  await knex.raw(
    "ALTER TABLE learned_rules ADD CONSTRAINT learned_rules_effect_check CHECK (effect IN ('suppress','lower_severity'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("learned_rules");
}
