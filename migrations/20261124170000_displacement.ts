import type { Knex } from "knex";

/**
 * Displacement tracking (docs/product-rules.md#displacement, spec/displacement.tsp): target accounts, their signals
 * and generated teardowns, and switcher stories. All four are tenant tables (`workspace_id`). A signal's or
 * teardown's workspace is tied to its account's by a composite foreign key, so a row can never name another
 * workspace's account; deleting an account deletes its signals and teardowns, and unlinks its stories.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("target_accounts", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    // The rival the account uses; the account stays when the competitor is deleted (it simply has no rival then).
    t.uuid("competitor_id").nullable().references("competitors.id").onDelete("SET NULL");
    t.text("company_name").notNullable();
    t.text("domain").nullable();
    t.text("industry").nullable();
    t.text("employee_band").nullable();
    t.text("champion_name").nullable();
    t.text("champion_title").nullable();
    t.text("champion_linkedin").nullable();
    t.text("economic_buyer").nullable();
    t.timestamp("contract_end_estimate", { useTz: true }).nullable();
    t.text("rival_evidence").nullable();
    t.text("rival_source").nullable();
    t.text("stage").notNullable().defaultTo("identified");
    t.text("tier").nullable();
    t.text("owner").nullable();
    t.text("notes").nullable();
    t.text("next_action").nullable();
    t.timestamp("next_action_due", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // The target of the composite foreign keys below.
    t.unique(["id", "workspace_id"]);
  });
  await knex.raw(
    `ALTER TABLE target_accounts ADD CONSTRAINT target_accounts_stage_check
       CHECK (stage IN ('identified','researching','engaged','evaluating','negotiating','won','lost'))`,
  );
  await knex.raw(
    "ALTER TABLE target_accounts ADD CONSTRAINT target_accounts_tier_check CHECK (tier IN ('tier_1','tier_2','tier_3'))",
  );
  // The list: one workspace, most recently updated first (the cadence counts read the same index).
  await knex.raw("CREATE INDEX target_accounts_list ON target_accounts (workspace_id, updated_at DESC, id DESC)");
  // Deleting a competitor sets its accounts' competitor_id to null; without an index each delete scans the table.
  await knex.raw(
    "CREATE INDEX target_accounts_competitor ON target_accounts (competitor_id) WHERE competitor_id IS NOT NULL",
  );

  await knex.schema.createTable("account_signals", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.uuid("account_id").notNullable();
    t.text("kind").notNullable();
    t.text("headline").notNullable();
    t.text("detail").nullable();
    t.timestamp("occurred_at", { useTz: true }).notNullable();
    t.text("source_url").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.foreign(["account_id", "workspace_id"])
      .references(["id", "workspace_id"])
      .inTable("target_accounts")
      .onDelete("CASCADE");
    // An account's signals, most recent first (the detail), and its signal_count.
    t.index(["account_id", "occurred_at"]);
  });

  await knex.schema.createTable("account_teardowns", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.uuid("account_id").notNullable();
    // 1, 2, 3, … per account: each generation is a new row, earlier ones are kept.
    t.integer("version").notNullable();
    t.text("content_md").notNullable();
    // null: the rule-based writer (no LLM configured).
    t.text("model").nullable();
    t.integer("token_usage").nullable();
    t.timestamp("generated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.foreign(["account_id", "workspace_id"])
      .references(["id", "workspace_id"])
      .inTable("target_accounts")
      .onDelete("CASCADE");
    // Two concurrent generations cannot both take the same version.
    t.unique(["account_id", "version"]);
    // An account's teardowns, most recent first, and teardown_count / latest_teardown_at.
    t.index(["account_id", "generated_at"]);
  });

  await knex.schema.createTable("switcher_stories", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.uuid("account_id").nullable();
    t.text("company_name").notNullable();
    t.text("champion_name").nullable();
    t.text("champion_title").nullable();
    t.timestamp("closed_at", { useTz: true }).nullable();
    t.text("public_url").nullable();
    t.text("quantified_outcome").nullable();
    t.text("status").notNullable().defaultTo("draft");
    t.text("why_left_rival").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // The list: one workspace, most recently created first.
    t.index(["workspace_id", "created_at"]);
  });
  await knex.raw(
    `ALTER TABLE switcher_stories ADD CONSTRAINT switcher_stories_status_check
       CHECK (status IN ('draft','approved','published'))`,
  );
  // A story keeps existing when its account is deleted: only account_id is cleared (the column list of SET NULL,
  // PostgreSQL 15+), never workspace_id.
  await knex.raw(
    `ALTER TABLE switcher_stories ADD CONSTRAINT switcher_stories_account_fk
       FOREIGN KEY (account_id, workspace_id) REFERENCES target_accounts (id, workspace_id)
       ON DELETE SET NULL (account_id)`,
  );
  await knex.raw("CREATE INDEX switcher_stories_account ON switcher_stories (account_id) WHERE account_id IS NOT NULL");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("switcher_stories");
  await knex.schema.dropTableIfExists("account_teardowns");
  await knex.schema.dropTableIfExists("account_signals");
  await knex.schema.dropTableIfExists("target_accounts");
}
