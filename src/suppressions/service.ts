/**
 * The workspace's suppression list (spec/digests.tsp, SuppressedEmail): addresses digest emails are not sent to.
 * Addresses are stored lowercased and compared case-insensitively; every query goes through a WorkspaceScope
 * (docs/architecture.md#tenancy-in-the-query), so one workspace never sees or removes another's rows.
 *
 * `isSuppressed` and `suppress` are the entry points for the other areas: digest sending skips suppressed recipients,
 * and hard bounces, complaints and one-click unsubscribes add rows.
 */
import type { Knex } from "knex";
import type { components } from "../../generated/api-types.js";
import { WorkspaceScope } from "../db/tenancy.js";
import { notFound } from "../http/errors.js";
import type { Workspace } from "../http/handler.js";

export type SuppressedEmail = components["schemas"]["SuppressedEmail"];
type SuppressionCreate = components["schemas"]["SuppressionCreate"];

/** The reason of an address added through the API when the body names none (SuppressionCreate's default). */
export const MANUAL_REASON = "manual";

/** `GET /digests/suppressions` is not paginated; the spec bounds it to the 1000 most recent rows. */
export const SUPPRESSION_LIST_LIMIT = 1000;

/** The contract's fields only: `id` and `workspace_id` stay internal. */
const COLUMNS = ["email", "reason", "detail", "suppressed_at"] as const;

interface SuppressionRow {
  email: string;
  reason: string;
  detail: string | null;
  suppressed_at: Date;
}

/** The form an address is stored and compared in ("stored lowercased", spec/digests.tsp). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function toResponse(row: SuppressionRow): SuppressedEmail {
  return { email: row.email, reason: row.reason, detail: row.detail, suppressed_at: row.suppressed_at.toISOString() };
}

/** Whether digest emails to `email` are suppressed in the workspace (compared case-insensitively). */
export async function isSuppressed(
  knex: Knex | Knex.Transaction,
  workspaceId: string,
  email: string,
): Promise<boolean> {
  const scope = new WorkspaceScope(knex, workspaceId);
  const row = await scope
    .from("suppressed_emails")
    .where({ email: normalizeEmail(email) })
    .first("id");
  return row !== undefined;
}

/**
 * Adds `email` to the workspace's suppression list, or returns its existing row unchanged: the first reason recorded
 * wins (spec: "its `reason` and `detail` are not overwritten"). Safe under concurrent calls for the same address.
 * Pass the caller's transaction to suppress together with the change that causes it (a bounce, an unsubscribe).
 */
export async function suppress(
  knex: Knex | Knex.Transaction,
  workspaceId: string,
  email: string,
  reason: string,
  detail: string | null = null,
): Promise<SuppressedEmail> {
  const scope = new WorkspaceScope(knex, workspaceId);
  const address = normalizeEmail(email);
  // ON CONFLICT DO NOTHING returns no row for an existing address, so read it in a second statement (which sees the
  // committed row under READ COMMITTED). A row deleted between the two statements sends us round again.
  for (let attempt = 1; attempt <= 3; attempt++) {
    const [inserted] = await scope
      .insert("suppressed_emails", { email: address, reason, detail })
      .onConflict(["workspace_id", "email"])
      .ignore()
      .returning(COLUMNS);
    if (inserted) return toResponse(inserted);
    const existing = await scope
      .from("suppressed_emails")
      .where({ email: address })
      .first(...COLUMNS);
    if (existing) return toResponse(existing);
  }
  throw new Error(`could not suppress ${address}: the row kept being removed concurrently`);
}

/** The suppression-list operations of one caller, always scoped to the caller's workspace. */
export class SuppressionService {
  constructor(private readonly workspace: Workspace) {}

  /** Most recently suppressed first (ties by address, so the order is stable), at most the 1000 most recent. */
  async list(): Promise<SuppressedEmail[]> {
    const rows: SuppressionRow[] = await this.workspace.scope
      .from("suppressed_emails")
      .orderBy([
        { column: "suppressed_at", order: "desc" },
        { column: "email", order: "asc" },
      ])
      .limit(SUPPRESSION_LIST_LIMIT)
      .select(...COLUMNS);
    return rows.map(toResponse);
  }

  /** Idempotent (spec: an already suppressed address answers 201 with the existing row unchanged). */
  async create(input: SuppressionCreate): Promise<SuppressedEmail> {
    const { scope } = this.workspace;
    return suppress(scope.db, scope.workspaceId, input.email, input.reason ?? MANUAL_REASON, input.detail ?? null);
  }

  /** Removes the address from the caller's workspace only; 404 when it is not on that list. */
  async delete(email: string): Promise<void> {
    const deleted = await this.workspace.scope
      .from("suppressed_emails")
      .where({ email: normalizeEmail(email) })
      .delete();
    if (deleted === 0) throw notFound("Suppressed address");
  }
}
