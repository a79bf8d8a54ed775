/**
 * One event's write-back to one CRM connection: the `crm-sync` job (docs/product-rules.md#crm-write-back, its write
 * shapes and failures). Resolves the competitor's mapping to accounts, finds their open opportunities/deals, and for
 * each one PATCHes the three fields and POSTs the note.
 *
 * - Progress is kept per record (`crm_writes`: patched_at, noted_at), so a retried job skips what is written; the note
 *   POST is the one step that is not idempotent, and it is recorded as soon as the CRM answers.
 * - A run holds the sync through a lease (`locked_until`, renewed per record): a second run of the same sync (a job
 *   re-delivered while the first still runs) backs off instead of writing the same records.
 * - A record the CRM refuses (4xx other than 401/429) is recorded failed with the vendor's message; the others go on.
 * - 401: the connection is marked errored with a clear message (crm-status shows it), the sync stops, nothing retries.
 * - 429, 5xx, network: thrown, so pg-boss retries with backoff; the last failed retry marks the sync failed.
 */
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import { loadEventToSend } from "../delivery/event.js";
import type { DeliveryDeps, EventToSend } from "../delivery/types.js";
import type { Jobs } from "../jobs/boss.js";
import { QUEUES, type QueueDefinition } from "../jobs/queues.js";
import { limitsOf } from "../workspaces/plans.js";
import { CrmAuthError, CrmRequestError, PROVIDER_LABELS, type CrmClient } from "./client.js";
import { clientFor, type CrmConnection } from "./connections.js";
import { mappingFor } from "./mapping.js";

export type SyncOutcome = "done" | "failed" | "stopped" | "skipped";

/** Equal to the queue's expiry (src/jobs/queues.ts crmSync): a crashed run's lease has lapsed when pg-boss retries. */
const LEASE_SECONDS = 900;

interface WriteRow {
  id: string;
  record_id: string;
  patched_at: Date | null;
  noted_at: Date | null;
}

/** Raised when another run holds the sync: pg-boss retries later, by when that run has finished or its lease lapsed. */
export class SyncBusyError extends Error {}

/** The `crm-sync` job's rules, built from the worker's deps: `run` writes one event back to one connection. */
export class CrmSync {
  constructor(private readonly deps: DeliveryDeps) {}

  async run(syncId: string, jobId?: string): Promise<SyncOutcome> {
    const { knex } = this.deps;
    if (!(await this.claim(syncId))) {
      const current = await knex("crm_syncs").where({ id: syncId }).first<{ status: string }>("status");
      if (!current || current.status !== "pending") return "skipped";
      throw new SyncBusyError(`CRM sync ${syncId} is being written by another run`);
    }

    const loaded = await this.load(syncId);
    if (!loaded) return "skipped";
    const { connection, event } = loaded;
    const stopped = whyStopped(connection, event);
    if (stopped) return this.finish(syncId, "stopped", stopped);
    const mapping = mappingFor(connection.mapping, event.competitor_id);
    if (!mapping) return this.finish(syncId, "stopped", "the competitor is no longer mapped to accounts");

    const client = clientFor(this.deps, connection);
    try {
      const accounts = await client.findAccounts(mapping);
      const deals = accounts.length === 0 ? [] : await client.openDeals(accounts);
      if (deals.length > 0) {
        await knex("crm_writes")
          .insert(deals.map((record_id) => ({ sync_id: syncId, record_id })))
          .onConflict(["sync_id", "record_id"])
          .ignore();
      }
      const pending: WriteRow[] = await knex("crm_writes")
        .where({ sync_id: syncId, status: "pending" })
        .orderBy("record_id")
        .select("id", "record_id", "patched_at", "noted_at");
      for (const row of pending) {
        await this.renewLease(syncId);
        await this.writeRecord(client, connection, event, row);
      }
      return await this.complete(syncId);
    } catch (error) {
      return this.fail(syncId, connection, jobId, error);
    }
  }

  /** What a failed run leaves: a refused token or request ends the sync; anything else is thrown for pg-boss. */
  private async fail(
    syncId: string,
    connection: CrmConnection,
    jobId: string | undefined,
    error: unknown,
  ): Promise<SyncOutcome> {
    if (error instanceof CrmAuthError) {
      const scope = new WorkspaceScope(this.deps.knex, connection.workspace_id);
      await markErrored(scope, connection.id, syncId, error.message);
      this.deps.log.warn({ connection: connection.id, sync: syncId, error: error.message }, "CRM token refused");
      return "stopped";
    }
    if (error instanceof CrmRequestError) {
      // The reads were refused (a filter on a field the CRM does not have, a list that does not exist) or never left
      // (blocked target): asking again will not help.
      return this.finish(syncId, "failed", error.message);
    }
    const message = error instanceof Error ? error.message : String(error);
    if (await isLastAttempt(this.deps.jobs, QUEUES.crmSync, jobId)) {
      await this.finish(syncId, "failed", message);
    } else {
      await this.deps.knex("crm_syncs").where({ id: syncId }).update({ locked_until: null, last_error: message });
    }
    throw error;
  }

  /** PATCH then note, each step recorded once done; a refused step fails this record only. */
  private async writeRecord(
    client: CrmClient,
    connection: CrmConnection,
    event: EventToSend,
    row: WriteRow,
  ): Promise<void> {
    const { knex } = this.deps;
    try {
      if (!row.patched_at) {
        await client.writeLastMove(row.record_id, connection.field_names, event);
        await knex("crm_writes").where({ id: row.id }).update({ patched_at: knex.fn.now(), updated_at: knex.fn.now() });
      }
      if (!row.noted_at) {
        const noteId = await client.addNote(row.record_id, {
          title: noteTitle(event),
          text: noteText(event),
          timestamp: new Date(event.detected_at),
        });
        await knex("crm_writes")
          .where({ id: row.id })
          .update({ noted_at: knex.fn.now(), note_id: noteId, updated_at: knex.fn.now() });
      }
      await knex("crm_writes").where({ id: row.id }).update({ status: "done", updated_at: knex.fn.now() });
    } catch (error) {
      // Only a vendor's refusal of this record; a request that never reached the CRM concerns the whole sync.
      if (!(error instanceof CrmRequestError) || error.status === null) throw error;
      await knex("crm_writes")
        .where({ id: row.id })
        .update({ status: "failed", error: error.message, updated_at: knex.fn.now() });
    }
  }

  private async claim(syncId: string): Promise<boolean> {
    const { knex } = this.deps;
    const rows = await knex("crm_syncs")
      .where({ id: syncId, status: "pending" })
      .where((q) => q.whereNull("locked_until").orWhere("locked_until", "<", knex.fn.now()))
      .update({
        locked_until: knex.raw(`now() + interval '${LEASE_SECONDS} seconds'`),
        attempts: knex.raw("attempts + 1"),
      })
      .returning("id");
    return rows.length > 0;
  }

  private async renewLease(syncId: string): Promise<void> {
    const { knex } = this.deps;
    await knex("crm_syncs")
      .where({ id: syncId })
      .update({ locked_until: knex.raw(`now() + interval '${LEASE_SECONDS} seconds'`) });
  }

  private async load(syncId: string): Promise<{ connection: CrmConnection; event: EventToSend } | null> {
    const { knex } = this.deps;
    const sync = await knex("crm_syncs")
      .where({ id: syncId })
      .first<{ connection_id: string; event_id: string }>("connection_id", "event_id");
    if (!sync) return null;
    // The job names the sync; its connection (and event) are found by id, in whichever workspace they are.
    const connection: CrmConnection | undefined = await acrossWorkspaces(knex)
      .from("crm_connections")
      .where({ id: sync.connection_id })
      .first();
    const event = await loadEventToSend(knex, sync.event_id);
    return connection && event ? { connection, event } : null;
  }

  private async complete(syncId: string): Promise<SyncOutcome> {
    const { knex } = this.deps;
    const rows: { status: string; error: string | null }[] = await knex("crm_writes")
      .where({ sync_id: syncId })
      .orderBy("record_id")
      .select("status", "error");
    const failed = rows.filter((row) => row.status === "failed");
    const summary =
      failed.length === 0 ? null : `${failed.length} of ${rows.length} record(s) failed; first: ${failed[0]!.error}`;
    await knex("crm_syncs").where({ id: syncId }).update({
      status: "done",
      records_total: rows.length,
      records_failed: failed.length,
      last_error: summary,
      locked_until: null,
      finished_at: knex.fn.now(),
    });
    return "done";
  }

  private async finish(syncId: string, status: "failed" | "stopped", error: string): Promise<SyncOutcome> {
    const { knex } = this.deps;
    await knex("crm_syncs")
      .where({ id: syncId })
      .update({ status, last_error: error, locked_until: null, finished_at: knex.fn.now() });
    return status;
  }
}

/**
 * Why the sync must not write at all, or null: an errored connection, or a plan without CRM write-back, which needs
 * api_access while it is written too (docs/product-rules.md#access-and-roles: a downgrade stops the pending syncs).
 */
function whyStopped(connection: CrmConnection, event: EventToSend): string | null {
  if (connection.status !== "active") {
    return `${PROVIDER_LABELS[connection.provider]} connection is errored: ${connection.last_error ?? "unknown"}`;
  }
  if (!limitsOf(event.plan).api_access) return `the ${event.plan} plan no longer includes CRM write-back (api_access)`;
  return null;
}

export function noteTitle(event: Pick<EventToSend, "competitor_name" | "title">): string {
  return `Competitor move: ${event.competitor_name}: ${event.title}`;
}

/** The note body: title, source URL and confidence (docs/product-rules.md#write-shapes). */
export function noteText(
  event: Pick<EventToSend, "competitor_name" | "event_type" | "severity" | "title" | "source_url" | "confidence_score">,
): string {
  return [
    event.title,
    `${event.competitor_name} · ${event.event_type.replace(/_/g, " ")} · severity ${event.severity}`,
    `Source: ${event.source_url}`,
    `Confidence: ${Math.round(event.confidence_score * 100)}%`,
  ].join("\n");
}

/**
 * 401: the connection (of the scope's workspace) takes no new syncs until crm-connect runs again; this sync stops with
 * the same message. Shared by the sync and the rollup.
 */
export async function markErrored(
  scope: WorkspaceScope,
  connectionId: string,
  syncId: string | null,
  message: string,
): Promise<void> {
  await scope.db.transaction(async (trx) => {
    await scope
      .on(trx)
      .from("crm_connections")
      .where({ id: connectionId })
      .update({ status: "errored", last_error: message, errored_at: trx.fn.now(), updated_at: trx.fn.now() });
    if (syncId) {
      await trx("crm_syncs")
        .where({ id: syncId })
        .update({ status: "stopped", last_error: message, locked_until: null, finished_at: trx.fn.now() });
    }
  });
}

/** Whether pg-boss will not retry this job of `queue` again (no job id, e.g. a direct call, counts as the last try). */
export async function isLastAttempt(jobs: Jobs, queue: QueueDefinition, jobId: string | undefined): Promise<boolean> {
  if (!jobId) return true;
  const job = await jobs.boss.getJobById(queue.name, jobId);
  return !job || job.retryCount >= job.retryLimit;
}
