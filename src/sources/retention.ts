/**
 * Snapshot retention (docs/product-rules.md#competitors-and-sources): a snapshot holds a fetched body of up to 5 MB,
 * so keeping every one forever would grow the database without bound. A snapshot is kept while it is within its
 * workspace plan's `history_days` (the diffs, events and re-analysis a customer can see need it), and the newest
 * snapshot of each source is always kept (the next fetch is compared with it).
 */
import type { Knex } from "knex";
import { acrossWorkspaces } from "../db/tenancy.js";
import { PLAN_NAMES, limitsOf } from "../workspaces/plans.js";

/** Rows deleted per scheduler tick at most, so a backlog is worked off over several ticks without one long statement. */
export const SNAPSHOT_PRUNE_BATCH = 5_000;

/** Deletes expired snapshots (their diffs cascade); returns how many. Run by the scheduler on every tick. */
export async function pruneExpiredSnapshots(db: Knex | Knex.Transaction): Promise<number> {
  // The plans' history, as SQL: `CASE w.plan WHEN 'free' THEN 30 … END` (the table lives in code, not in the database).
  const historyDays = `CASE w.plan ${PLAN_NAMES.map((plan) => `WHEN '${plan}' THEN ${limitsOf(plan).history_days}`).join(" ")} END`;
  const { rows } = await acrossWorkspaces(db).raw<{ deleted: number }>(
    `WITH expired AS (
       SELECT s.id FROM snapshots s
       JOIN workspaces w ON w.id = s.workspace_id
       WHERE s.fetched_at < now() - make_interval(days => ${historyDays})
         AND EXISTS (SELECT 1 FROM snapshots newer
                     WHERE newer.source_id = s.source_id
                       AND (newer.fetched_at, newer.id) > (s.fetched_at, s.id))
       LIMIT :batch
     ), deleted AS (DELETE FROM snapshots WHERE id IN (SELECT id FROM expired) RETURNING 1)
     SELECT count(*)::int AS deleted FROM deleted`,
    { batch: SNAPSHOT_PRUNE_BATCH },
  );
  return rows[0]?.deleted ?? 0;
}
