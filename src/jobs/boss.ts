/**
 * pg-boss lifecycle. The API role only sends (no maintenance, no polling); the worker role also supervises and works.
 */
import PgBoss from "pg-boss";
import type { Knex } from "knex";
import type { Logger } from "pino";
import { DEAD_LETTER_QUEUE, QUEUES, type PayloadOf, type QueueDefinition, type QueueKey } from "./queues.js";

/** Handles one job of queue `K`; a throw fails (and retries) that job only, not the rest of its batch. */
export type QueueHandler<K extends QueueKey> = (job: PgBoss.Job<PayloadOf<(typeof QUEUES)[K]>>) => Promise<void>;
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
        const handler = handlers[key] as ((job: PgBoss.Job<unknown>) => Promise<void>) | undefined;
        if (!handler) continue;
        const { workers, batchSize, pollingIntervalSeconds } = queue.work;
        for (let i = 0; i < workers; i++) {
          await boss.work(queue.name, { batchSize, pollingIntervalSeconds }, async (jobs) => {
            const results = await Promise.allSettled(jobs.map((job) => handler(job)));
            // pg-boss completes the whole batch when this resolves, but only jobs still `active`: failing the
            // rejected ones first leaves them to their retry policy while the others complete.
            for (const [index, result] of results.entries()) {
              if (result.status === "fulfilled") continue;
              const job = jobs[index]!;
              const message = result.reason instanceof Error ? result.reason.message : String(result.reason);
              options.log.warn({ err: result.reason, queue: queue.name, job: job.id }, "job failed; will retry");
              await boss.fail(queue.name, job.id, { message });
            }
          });
        }
      }
    },
    async stop() {
      // graceful: let active handlers finish; wait: resolve only once they have.
      await boss.stop({ graceful: true, wait: true, timeout: 20_000 });
    },
  };
}
