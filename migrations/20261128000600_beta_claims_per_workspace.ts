import type { Knex } from "knex";

/**
 * Beta claims belong to their workspace (docs/product-rules.md#billing):
 *
 * - the unique index becomes per workspace, (workspace_id, lower(contact_email), requested_tier): a global one made a
 *   second workspace's claim answer 409, which told any member whether an address had claimed anywhere, and let one
 *   workspace squat an address for all others;
 * - `fields` keeps only the contract's fields: a claim used to store the whole body as sent (up to 1 MB, unknown
 *   fields included). Stored claims are cut down to those fields too.
 */
const CLAIM_FIELDS = [
  "contact_email",
  "requested_tier",
  "billing_cycle",
  "contact_name",
  "notes",
  "seat_count",
  "company_name",
  "use_case",
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw("DROP INDEX IF EXISTS beta_claims_contact_tier_unique");
  await knex.raw(
    `CREATE UNIQUE INDEX beta_claims_workspace_contact_tier_unique
       ON beta_claims (workspace_id, lower(contact_email), requested_tier)`,
  );
  await knex.raw(
    `UPDATE beta_claims SET fields = coalesce(
       (SELECT jsonb_object_agg(f.key, f.value) FROM jsonb_each(fields) f WHERE f.key = ANY(?)), '{}'::jsonb)
     WHERE jsonb_typeof(fields) = 'object' AND EXISTS (SELECT 1 FROM jsonb_object_keys(fields) k WHERE k <> ALL(?))`,
    [CLAIM_FIELDS, CLAIM_FIELDS],
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DROP INDEX IF EXISTS beta_claims_workspace_contact_tier_unique");
  await knex.raw(
    "CREATE UNIQUE INDEX beta_claims_contact_tier_unique ON beta_claims (lower(contact_email), requested_tier)",
  );
}
