/**
 * The bound that makes "nothing more happened" an assertion: once no job that could act is left in a queue (none
 * waiting, retrying or running), nothing more will be sent for it, so checking a receiver then is meaningful, where
 * a fixed sleep only says "not yet".
 */
import type { Knex } from "knex";
import type { QueueDefinition } from "../../src/jobs/queues.js";
import { waitFor } from "./wait.js";

/** Jobs of `queue` that may still run, optionally only those whose payload contains `data` (e.g. `{ delivery_id }`). */
export async function pendingJobs<P extends object>(
  knex: Knex,
  queue: QueueDefinition<P>,
  data?: Partial<P>,
): Promise<number> {
  const { rows } = await knex.raw(
    `SELECT count(*)::int AS count FROM pgboss.job
     WHERE name = ? AND state::text IN ('created', 'retry', 'active') AND data @> ?::jsonb`,
    [queue.name, JSON.stringify(data ?? {})],
  );
  return rows[0].count;
}

/** Waits until no job of `queue` (matching `data`) may still run. */
export async function queueSettled<P extends object>(
  knex: Knex,
  queue: QueueDefinition<P>,
  data?: Partial<P>,
  timeoutMs = 15_000,
): Promise<void> {
  await waitFor(
    async () => (await pendingJobs(knex, queue, data)) === 0,
    timeoutMs,
    `the ${queue.name} jobs to settle`,
  );
}
