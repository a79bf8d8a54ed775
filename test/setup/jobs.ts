/**
 * The bound that makes "nothing more happened" an assertion: once no job that could act is left in a queue (none
 * waiting, retrying or running), nothing more will be sent for it, so checking a receiver then is meaningful, where
 * a fixed sleep only says "not yet".
 */
import type { TestApp } from "./test-app.js";
import { waitFor } from "./wait.js";

/** Jobs of `queue` that may still run, optionally only those whose payload contains `data` (e.g. `{ delivery_id }`). */
export async function pendingJobs(app: TestApp, queue: string, data?: object): Promise<number> {
  const { rows } = await app.service.services.knex.raw(
    `SELECT count(*)::int AS count FROM pgboss.job
     WHERE name = ? AND state::text IN ('created', 'retry', 'active') AND data @> ?::jsonb`,
    [queue, JSON.stringify(data ?? {})],
  );
  return rows[0].count;
}

/** Waits until no job of `queue` (matching `data`) may still run. */
export async function queueSettled(app: TestApp, queue: string, data?: object, timeoutMs = 15_000): Promise<void> {
  await waitFor(async () => (await pendingJobs(app, queue, data)) === 0, timeoutMs, `the ${queue} jobs to settle`);
}
