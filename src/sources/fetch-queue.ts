/**
 * The fetch queue's rule, in one place: a source has at most one fetch waiting in the queue.
 *
 * - Whoever queues a fetch (the scheduler, run-now) records the job's id and time on the source, in the transaction
 *   that inserts the job (`queueFetches`).
 * - The fetch job clears them when it starts (`fetchStarted`): from then on another fetch may be queued. It also
 *   claims the source until its outcome is recorded: the scheduler does not queue a source being fetched
 *   (`whereNotBeingFetched`), and another fetch job of it waits (is retried) rather than fetch at the same time.
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

/**
 * How long a running fetch's claim on its source holds at most: the fetch job's expiry, past which pg-boss presumes
 * the worker dead and retries the job.
 */
export const FETCH_CLAIM_SECONDS = QUEUES.sourceFetch.options.expireInSeconds!;

/**
 * A fetch of the source starts (job `jobId`, or none for a direct call): it claims the source until its outcome is
 * recorded (`fetch_started_at`, cleared with `fetchFinished`), and if it is the job the source waits for, another
 * may now be queued (a run-now while it runs wants a fresher page). False when another fetch holds the source: the
 * caller must not fetch now (the job is retried later, and the queued record stays, so nothing else is queued).
 */
export async function fetchStarted(
  db: Knex | Knex.Transaction,
  sourceId: string,
  jobId: string | null,
): Promise<boolean> {
  const { rows } = await acrossWorkspaces(db).raw(
    `UPDATE sources
        SET fetch_started_at = now(),
            fetch_queued_at = CASE WHEN fetch_job_id = ?::uuid THEN NULL ELSE fetch_queued_at END,
            fetch_job_id = CASE WHEN fetch_job_id = ?::uuid THEN NULL ELSE fetch_job_id END
      WHERE id = ? AND (fetch_started_at IS NULL OR fetch_started_at < now() - make_interval(secs => ?))
      RETURNING id`,
    [jobId, jobId, sourceId, FETCH_CLAIM_SECONDS],
  );
  return rows.length === 1;
}

/** The columns that end a fetch's claim, set in the update that records its outcome. */
export const fetchFinished = { fetch_started_at: null } as const;

/** Restricts a query of `sources` to those no fetch is running for (or only one presumed dead). */
export function whereNotBeingFetched(query: Knex.QueryBuilder, db: Knex | Knex.Transaction): Knex.QueryBuilder {
  return query.where((q) =>
    q
      .whereNull("fetch_started_at")
      .orWhere("fetch_started_at", "<", db.raw(`now() - make_interval(secs => ?)`, [FETCH_CLAIM_SECONDS])),
  );
}
