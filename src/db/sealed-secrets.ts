/**
 * The columns that hold credentials, sealed at rest by src/lib/secret-box.ts, and the start-up pass that seals
 * values stored before sealing existed. Every process runs it at start; it is idempotent (a sealed value is left
 * alone) and cheap once done (the scans find nothing).
 */
import type { Knex } from "knex";
import { acrossWorkspaces } from "./tenancy.js";
import { isSealed, type SecretBox } from "../lib/secret-box.js";

/** Table and column of every stored credential. */
export const SEALED_COLUMNS = [
  { table: "webhook_subscriptions", column: "signing_secret" },
  { table: "crm_connections", column: "token" },
  { table: "workspaces", column: "slack_webhook_url" },
] as const;

type SealedTable = (typeof SEALED_COLUMNS)[number]["table"];

/** The table's rows across every workspace (`workspaces` itself is not a tenant table). */
function allRowsOf(db: Knex, table: SealedTable): Knex.QueryBuilder {
  return table === "workspaces" ? db("workspaces") : acrossWorkspaces(db).from(table);
}

/** Seals every credential still stored in plaintext; returns how many were sealed. */
export async function sealPlaintextSecrets(db: Knex, box: SecretBox): Promise<number> {
  let sealed = 0;
  for (const { table, column } of SEALED_COLUMNS) {
    const rows: { id: string; value: string }[] = await allRowsOf(db, table)
      .whereNotNull(column)
      .whereNot(column, "like", "sealed:v1:%")
      .select("id", `${column} as value`);
    for (const row of rows) {
      if (isSealed(row.value)) continue;
      // Conditional on the value read, so a concurrent start (or a write in between) is never overwritten.
      sealed += await allRowsOf(db, table)
        .where({ id: row.id, [column]: row.value })
        .update({ [column]: box.seal(row.value) });
    }
  }
  return sealed;
}
