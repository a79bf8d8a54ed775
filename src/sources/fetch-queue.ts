/**
 * The fetch queue's rule, in one place: a source has at most one fetch waiting in the queue.
 *
 * - Whoever queues a fetch (the scheduler, run-now) records the job's id and time on the source, in the transaction
 *   that inserts the job (`queueFetches`).
 * - The fetch job clears them when it starts (`fetchStarted`): from then on another fetch may be queued.
 * - A fetch queued more than STALE_QUEUED_MINUTES ago is presumed lost (its job deleted or dead-lettered) and may be
 *   queued again (`whereNoFetchWaiting`, `waitingFetch`).
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { acrossWorkspaces } from "../db/tenancy.js";
import type { Jobs } from "../jobs/boss.js";
import { QUEUES, type FetchTrigger } from "../jobs/queues.js";

export const STALE_QUEUED_MINUTES = 60;

/** The fetch job still waiting for a source, if any (a stale one does not count). */
export function waitingFetch(source: { fetch_job_id: string | null; fetch_queued_at: Date | null }): string | null {
  if (!source.fetch_job_id || !source.fetch_queued_at) return null;
  const staleBefore = Date.now() - STALE_QUEUED_MINUTES * 60_000;
  return source.fetch_queued_at.getTime() > staleBefore ? source.fetch_job_id : null;
}

/** Restricts a query of `sources` to those with no fetch waiting (or only a stale one). */
export function whereNoFetchWaiting(query: Knex.QueryBuilder, db: Knex | Knex.Transaction): Knex.QueryBuilder {
  return query.where((q) =>
    q
      .whereNull("fetch_job_id")
      .orWhere("fetch_queued_at", "<", db.raw(`now() - make_interval(mins => ?)`, [STALE_QUEUED_MINUTES])),
  );
}

/**
 * Queues one fetch job per entry and records each on its source. Call it in the transaction that found (and locked)
 * the sources, within a workspace or across all of them, so the job and the record commit together. Returns the job
 * ids in order.
 */
export async function queueFetches(
  trx: Knex | Knex.Transaction,
  jobs: Jobs,
  fetches: { sourceId: string; trigger: FetchTrigger; startAfter?: Date }[],
): Promise<string[]> {
  if (fetches.length === 0) return [];
  const queued = fetches.map((fetch) => ({
    id: randomUUID(),
    data: { source_id: fetch.sourceId, trigger: fetch.trigger },
    startAfter: fetch.startAfter,
  }));
  await jobs.sendMany(QUEUES.sourceFetch, queued, trx);
  await acrossWorkspaces(trx).raw(
    `UPDATE sources SET fetch_job_id = queued.job_id::uuid, fetch_queued_at = now()
     FROM (SELECT unnest(?::uuid[]) AS source_id, unnest(?::text[]) AS job_id) queued
     WHERE sources.id = queued.source_id`,
    [fetches.map((fetch) => fetch.sourceId), queued.map((job) => job.id)],
  );
  return queued.map((job) => job.id);
}

/** The fetch job `jobId` has started: if it is the one the source waits for, another may now be queued. */
export async function fetchStarted(db: Knex | Knex.Transaction, sourceId: string, jobId: string): Promise<void> {
  await acrossWorkspaces(db)
    .from("sources")
    .where({ id: sourceId, fetch_job_id: jobId })
    .update({ fetch_job_id: null, fetch_queued_at: null });
}
