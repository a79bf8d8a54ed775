/**
 * The columns that hold credentials, sealed at rest by src/lib/secret-box.ts, and the start-up pass that brings older
 * values to the current form: plaintext stored before sealing existed, and `sealed:v1:` values sealed before each
 * value was bound to its row. Every process runs it at start; it is idempotent (a current value is left alone) and
 * cheap once done (the scans find nothing).
 */
import type { Knex } from "knex";
import { acrossWorkspaces } from "./tenancy.js";
import { needsResealing, type SealedPlace, type SecretBox } from "../lib/secret-box.js";

/** Table, column and row key of every stored credential. */
export const SEALED_COLUMNS = [
  { table: "webhook_subscriptions", column: "signing_secret", key: "id" },
  { table: "crm_connections", column: "token", key: "id" },
  { table: "workspaces", column: "slack_webhook_url", key: "id" },
  { table: "support_inboxes", column: "webhook_secret", key: "client_id" },
] as const;

type SealedTable = (typeof SEALED_COLUMNS)[number]["table"];

/** The table's rows across every workspace (`workspaces` and the vendor's `support_inboxes` are not tenant tables). */
function allRowsOf(db: Knex, table: SealedTable): Knex.QueryBuilder {
  return table === "workspaces" || table === "support_inboxes" ? db(table) : acrossWorkspaces(db).from(table);
}

/**
 * Seals every credential still stored in plaintext, and re-seals every `sealed:v1:` one bound to its row (it opened
 * anywhere); returns how many were written.
 */
export async function sealPlaintextSecrets(db: Knex, box: SecretBox): Promise<number> {
  let sealed = 0;
  for (const { table, column, key } of SEALED_COLUMNS) {
    const rows: { id: string; value: string }[] = await allRowsOf(db, table)
      .whereNotNull(column)
      .whereNot(column, "like", "sealed:v2:%")
      .select(`${key} as id`, `${column} as value`);
    for (const row of rows) {
      if (!needsResealing(row.value)) continue;
      const place: SealedPlace = { table, column, id: row.id };
      // Conditional on the value read, so a concurrent start (or a write in between) is never overwritten.
      sealed += await allRowsOf(db, table)
        .where({ [key]: row.id, [column]: row.value })
        .update({ [column]: box.seal(box.open(row.value, place), place) });
    }
  }
  return sealed;
}
