/**
 * The demo flag (docs/product-rules.md#admin-views): which workspace's events the public `GET /stats/feed` shows.
 * It is exclusive: `workspaces.is_demo` with the partial unique index `workspaces_single_demo` lets at most one
 * workspace hold it, and granting it clears it from any other in the same transaction. Platform admins only
 * (src/http/access.ts); the workspace may be anyone's, so lookups cross workspaces on purpose.
 */
import type { Knex } from "knex";
import { notFound } from "../http/errors.js";
import type { Schemas } from "../http/schemas.js";
import { WorkspaceScope } from "../db/tenancy.js";

export type DemoWorkspaceStatus = Schemas["DemoWorkspaceStatus"];

/** The answer when no workspace is flagged. */
export const NO_DEMO_WORKSPACE: DemoWorkspaceStatus = { owner_email: null, workspace_id: null, workspace_name: null };

/**
 * Grants and clears take this transaction-scoped advisory lock first, so concurrent calls run one after the other:
 * without it, two grants of different workspaces would both find nothing to clear, and the second would fail on the
 * unique index instead of replacing the first.
 */
const FLAG_LOCK = "rivalscope:demo-workspace";

export class DemoFlag {
  constructor(private readonly knex: Knex) {}

  async status(): Promise<DemoWorkspaceStatus> {
    return statusIn(this.knex);
  }

  /** Flags the workspace, clearing every other; 404 (and nothing changed) when it does not exist. Idempotent. */
  async grant(workspaceId: string): Promise<DemoWorkspaceStatus> {
    return this.knex.transaction(async (trx) => {
      await lockFlag(trx);
      // The other workspace first: the unique index refuses a second flag even inside the transaction. An unknown
      // workspace throws below, and the rollback restores the flag cleared here.
      await trx("workspaces")
        .where({ is_demo: true })
        .whereNot({ id: workspaceId })
        .update({ is_demo: false, updated_at: trx.fn.now() });
      const flagged = await trx("workspaces")
        .where({ id: workspaceId })
        .update({ is_demo: true, updated_at: trx.fn.now() })
        .returning("id");
      if (flagged.length === 0) throw notFound("Workspace");
      return statusIn(trx);
    });
  }

  /** Clears the flag wherever it is; the null shape whether or not a workspace held it. */
  async clear(): Promise<DemoWorkspaceStatus> {
    await this.knex.transaction(async (trx) => {
      await lockFlag(trx);
      await trx("workspaces").where({ is_demo: true }).update({ is_demo: false, updated_at: trx.fn.now() });
    });
    return NO_DEMO_WORKSPACE;
  }
}

async function lockFlag(trx: Knex.Transaction): Promise<void> {
  await trx.raw("SELECT pg_advisory_xact_lock(hashtext(?))", [FLAG_LOCK]);
}

/** The flagged workspace, its name and its earliest owner's email; the null shape when none is flagged. */
async function statusIn(db: Knex | Knex.Transaction): Promise<DemoWorkspaceStatus> {
  const workspace = await db("workspaces").where({ is_demo: true }).first("id", "name");
  if (!workspace) return NO_DEMO_WORKSPACE;
  const flaggedScope = new WorkspaceScope(db, workspace.id);
  const owner = await flaggedScope
    .from("memberships as m")
    .join("users as u", "u.id", "m.user_id")
    .where("m.role", "owner")
    .orderBy([
      { column: "m.created_at", order: "asc" },
      { column: "u.id", order: "asc" },
    ])
    .first("u.email");
  return { owner_email: owner?.email ?? null, workspace_id: workspace.id, workspace_name: workspace.name };
}
