import type { Knex } from "knex";

/**
 * Users, workspaces and memberships, auth state, competitors and sources.
 * Columns are snake_case and named as the contract names the fields (docs/architecture.md#one-name-per-field).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("users", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.text("email").notNullable();
    t.text("name").notNullable();
    t.text("password_hash").notNullable();
    t.boolean("is_admin").notNullable().defaultTo(false);
    t.text("digest_frequency").notNullable().defaultTo("weekly");
    t.smallint("digest_hour_local").notNullable().defaultTo(8);
    t.text("digest_timezone").notNullable().defaultTo("UTC");
    t.smallint("digest_weekly_dow").notNullable().defaultTo(0);
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // Emails are unique regardless of case; stored as given, compared lowercased.
  await knex.raw("CREATE UNIQUE INDEX users_email_lower_unique ON users (lower(email))");

  await knex.schema.createTable("workspaces", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.text("name").notNullable();
    t.text("plan").notNullable().defaultTo("free");
    t.text("status").notNullable().defaultTo("active");
    // Partner (/v1) provisioning: a workspace created through the partner API is a child of the caller's.
    t.uuid("parent_workspace_id").nullable().references("workspaces.id").onDelete("SET NULL");
    t.text("company_name").nullable();
    t.text("customer_email").nullable();
    t.text("industry").nullable();
    t.text("website_url").nullable();
    t.text("external_audit_id").nullable();
    t.boolean("is_demo").notNullable().defaultTo(false);
    // Billing (payments provider) and beta programme.
    t.text("payments_customer_id").nullable();
    t.text("payments_subscription_id").nullable();
    t.text("subscription_status").nullable();
    t.timestamp("current_period_end", { useTz: true }).nullable();
    t.timestamp("beta_claimed_at", { useTz: true }).nullable();
    t.boolean("beta_grandfathered").notNullable().defaultTo(false);
    t.text("slack_webhook_url").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    "ALTER TABLE workspaces ADD CONSTRAINT workspaces_plan_check CHECK (plan IN ('free','starter','growth','enterprise'))",
  );
  // docs/product-rules.md#admin-views: at most one workspace holds the demo flag.
  await knex.raw("CREATE UNIQUE INDEX workspaces_single_demo ON workspaces (is_demo) WHERE is_demo");
  await knex.raw(
    "CREATE UNIQUE INDEX workspaces_partner_customer_email ON workspaces (parent_workspace_id, lower(customer_email)) WHERE parent_workspace_id IS NOT NULL",
  );

  await knex.schema.createTable("memberships", (t) => {
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    t.text("role").notNullable().defaultTo("member");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(["workspace_id", "user_id"]);
    t.index(["user_id"]);
  });
  await knex.raw("ALTER TABLE memberships ADD CONSTRAINT memberships_role_check CHECK (role IN ('owner','member'))");

  await knex.schema.createTable("password_reset_tokens", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("user_id").notNullable().references("users.id").onDelete("CASCADE");
    // SHA-256 of the token: a database leak does not leak usable reset links.
    t.text("token_hash").notNullable().unique();
    t.timestamp("expires_at", { useTz: true }).notNullable();
    t.timestamp("used_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // Fixed-window counters shared by every API process (login and forgot-password throttling).
  await knex.schema.createTable("rate_limit_buckets", (t) => {
    t.text("key").primary();
    t.timestamp("window_started_at", { useTz: true }).notNullable();
    t.integer("count").notNullable();
  });

  // What the `log` email transport "sends": kept so operators (and tests) can read it.
  await knex.schema.createTable("email_outbox", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.text("message_id").notNullable();
    t.text("to_address").notNullable();
    t.text("subject").notNullable();
    t.text("text_body").notNullable();
    t.text("html_body").nullable();
    t.jsonb("headers").notNullable().defaultTo("{}");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["to_address", "created_at"]);
  });

  await knex.schema.createTable("competitors", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.text("name").notNullable();
    t.text("domain").notNullable();
    t.jsonb("aliases").nullable();
    t.text("description").nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(["workspace_id", "created_at"]);
  });

  await knex.schema.createTable("sources", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("competitor_id").notNullable().references("competitors.id").onDelete("CASCADE");
    // Denormalised from the competitor so tenant scoping and scheduler queries need no join.
    t.uuid("workspace_id").notNullable().references("workspaces.id").onDelete("CASCADE");
    t.text("url").notNullable();
    t.text("normalized_url").notNullable();
    t.text("source_type").notNullable();
    t.text("fetch_method").notNullable().defaultTo("http");
    t.integer("fetch_frequency_minutes").notNullable().defaultTo(1440);
    t.boolean("is_active").notNullable().defaultTo(true);
    t.text("error_message").nullable();
    t.timestamp("last_error_at", { useTz: true }).nullable();
    t.timestamp("last_fetched_at", { useTz: true }).nullable();
    t.timestamp("last_success_at", { useTz: true }).nullable();
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["competitor_id", "normalized_url"]);
    t.index(["workspace_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    "sources",
    "competitors",
    "email_outbox",
    "rate_limit_buckets",
    "password_reset_tokens",
    "memberships",
    "workspaces",
    "users",
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
