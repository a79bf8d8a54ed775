/**
 * pg-boss lifecycle. The API role only sends (no maintenance, no polling); the worker role also supervises and works.
 */
import PgBoss from "pg-boss";
import type { Knex } from "knex";
import type { Logger } from "pino";
import { metrics } from "../metrics/metrics.js";
import { DEAD_LETTER_QUEUE, QUEUES, type PayloadOf, type QueueDefinition, type QueueKey } from "./queues.js";

/** A job that failed in a batch, with the error its retry is logged with. */
export interface JobFailure {
  jobId: string;
  error: unknown;
}

/**
 * Handles a batch of queue `K`'s jobs and resolves with those that failed: they alone are failed (and retried), the
 * rest complete. src/jobs/registry.ts builds these from the areas' handlers.
 */
export type QueueHandler<K extends QueueKey> = (
  jobs: PgBoss.Job<PayloadOf<(typeof QUEUES)[K]>>[],
) => Promise<JobFailure[]>;
export type QueueHandlers = { [K in QueueKey]?: QueueHandler<K> };

export interface Jobs {
  boss: PgBoss;
  /**
   * Enqueues a job; inside `trx` it commits or rolls back with the row that caused it
   * (docs/architecture.md#jobs-in-the-same-transaction).
   */
  send<P extends object>(
    queue: QueueDefinition<P>,
    data: NoInfer<P>,
    options?: PgBoss.SendOptions,
    trx?: Knex.Transaction,
  ): Promise<string>;
  /** Enqueues many jobs of one queue in one statement, in `db`'s transaction. */
  sendMany<P extends object>(
    queue: QueueDefinition<P>,
    jobs: { data: NoInfer<P>; id?: string; startAfter?: Date }[],
    db: Knex | Knex.Transaction,
  ): Promise<void>;
  /** Worker role: starts polling every queue that has a handler. */
  startWorkers(handlers: QueueHandlers): Promise<void>;
  /**
   * Wakes this process's idle workers of `queue` to fetch now instead of at their next poll: for a job just committed
   * by this process (pg-boss does not notify across processes; other processes find it at their next poll).
   */
  wake(queue: QueueDefinition): void;
  stop(): Promise<void>;
}

/**
 * pg-boss runs its SQL through any `{executeSql(text, values)}`; this one runs it on a knex transaction, so a job is
 * inserted atomically with the rows that caused it. pg-boss writes `$n` placeholders; knex's raw wants `?`.
 */
export function knexExecutor(trx: Knex | Knex.Transaction): PgBoss.Db {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const ordered: unknown[] = [];
      // A literal `?` would read as a knex binding: escape it first. Knex refuses `undefined`; SQL means NULL.
      const sql = text.replace(/\?/g, "\\?").replace(/\$(\d+)/g, (_match, index: string) => {
        ordered.push(values[Number(index) - 1] ?? null);
        return "?";
      });
      const result = await trx.raw(sql, ordered as Knex.RawBinding[]);
      return { rows: result.rows };
    },
  };
}

export interface StartJobsOptions {
  connectionString: string;
  log: Logger;
  /** Worker role: run maintenance and (after `startWorkers`) the handlers; API role: send only. */
  worker: boolean;
}

export async function startJobs(options: StartJobsOptions): Promise<Jobs> {
  const boss = new PgBoss({
    connectionString: options.connectionString,
    max: options.worker ? 6 : 2,
    supervise: options.worker,
    // Maintenance is what re-queues the jobs of a killed worker once they expire: every 30 s rather than pg-boss's
    // 120 s, so a crash delays deliveries by about a minute at most (docs/product-rules.md#retries-and-dead-letter: a
    // worker killed mid-delivery loses nothing).
    maintenanceIntervalSeconds: 30,
    schedule: options.worker,
    migrate: true,
  });
  boss.on("error", (error) => options.log.error({ err: error }, "pg-boss error"));
  await boss.start();

  await boss.createQueue(DEAD_LETTER_QUEUE);
  for (const queue of Object.values(QUEUES)) await boss.createQueue(queue.name, { name: queue.name, ...queue.options });

  /** The ids of this process's workers per queue name, for `wake`. */
  const workerIds = new Map<string, string[]>();
  return {
    boss,
    async send(queue, data, sendOptions = {}, trx) {
      const id = await boss.send(queue.name, data, trx ? { ...sendOptions, db: knexExecutor(trx) } : sendOptions);
      // pg-boss returns null for a missing queue or a deduplicated singleton (docs/stack-notes.md#pg-boss-quirks):
      // never lose that silently.
      if (!id) throw new Error(`pg-boss did not accept a job for queue ${queue.name}`);
      return id;
    },
    async sendMany(queue, jobs, db) {
      if (jobs.length === 0) return;
      const rows = jobs.map((job) => ({
        name: queue.name,
        data: job.data,
        ...(job.id ? { id: job.id } : {}),
        ...(job.startAfter ? { startAfter: job.startAfter.toISOString() } : {}),
      }));
      await boss.insert(rows, { db: knexExecutor(db) });
    },
    async startWorkers(handlers) {
      for (const [key, queue] of Object.entries(QUEUES) as [QueueKey, QueueDefinition][]) {
        const handler = handlers[key] as QueueHandler<QueueKey> | undefined;
        if (!handler) continue;
        const { workers, batchSize, pollingIntervalSeconds } = queue.work;
        const ids: string[] = [];
        workerIds.set(queue.name, ids);
        for (let i = 0; i < workers; i++) {
          // The worker's own id, for its handler to wake it; known once `work` returns, before any batch arrives.
          let id = "";
          id = await boss.work(queue.name, { batchSize, pollingIntervalSeconds }, async (jobs) => {
            const endTimer = metrics.jobDuration.startTimer({ queue: queue.name });
            let failures: JobFailure[];
            try {
              failures = await handler(jobs as PgBoss.Job<never>[]);
            } catch (error) {
              metrics.jobs.inc({ queue: queue.name, outcome: "failed" }, jobs.length);
              throw error;
            } finally {
              endTimer();
            }
            metrics.jobs.inc({ queue: queue.name, outcome: "completed" }, jobs.length - failures.length);
            if (failures.length > 0) metrics.jobs.inc({ queue: queue.name, outcome: "failed" }, failures.length);
            // pg-boss completes the whole batch when this resolves, but only jobs still `active`: failing the
            // failed ones first leaves them to their retry policy while the others complete.
            for (const { jobId, error } of failures) {
              const message = error instanceof Error ? error.message : String(error);
              options.log.warn({ err: error, queue: queue.name, job: jobId }, "job failed; will retry");
              await boss.fail(queue.name, jobId, { message });
            }
            // A full batch says more are likely waiting: fetch again at once. pg-boss would otherwise wait out the
            // rest of its polling interval after a quick batch, capping a worker at one batch per interval
            // (docs/architecture.md#batch-handlers).
            if (jobs.length === batchSize) boss.notifyWorker(id);
          });
          ids.push(id);
        }
      }
    },
    wake(queue) {
      for (const id of workerIds.get(queue.name) ?? []) boss.notifyWorker(id);
    },
    async stop() {
      // graceful: let active handlers finish; wait: resolve only once they have.
      await boss.stop({ graceful: true, wait: true, timeout: 20_000 });
    },
  };
}
