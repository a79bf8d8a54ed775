/**
 * The scheduler: every SCHEDULER_TICK_SECONDS it enqueues a fetch for each active source that is due
 * (`last_fetched_at + fetch_frequency_minutes` has passed), at most one queued fetch per source, spacing the sources
 * of one host apart so they do not fire together; then it runs the other periodic tasks it was given (digest runs and
 * deliveries, CRM rollups: src/jobs/scheduled-tasks.ts). Any number of worker processes may run it: an advisory lock
 * and the heartbeat in `scheduler_state` make one tick happen per interval.
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Logger } from "pino";
import { hostOf } from "../detection/host-limiter.js";
import { knexExecutor, type Jobs } from "./boss.js";
import { QUEUES } from "./queues.js";

/** Sources enqueued per tick at most; the rest are due next tick (oldest first, so none starves). */
const MAX_PER_TICK = 2000;
/** Seconds between two fetches of one host within a tick, plus up to JITTER_SECONDS of random spread. */
const HOST_SPACING_SECONDS = 2;
const JITTER_SECONDS = 1;
/** A fetch queued longer than this is presumed lost (e.g. its job was deleted) and may be queued again. */
const STALE_QUEUED_MINUTES = 60;
const LOCK_KEY = "rivalscope:fetch-scheduler";

/**
 * Periodic work done in the tick's transaction, under its lock, with the tick's clock. Each task runs in a savepoint:
 * one that fails is logged and rolled back alone, and the rest of the tick stands.
 */
export interface SchedulerTask {
  name: string;
  run(trx: Knex.Transaction, now: Date): Promise<unknown>;
}

export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: { knex: Knex; jobs: Jobs; log: Logger },
    private readonly tickSeconds: number,
    private readonly tasks: readonly SchedulerTask[] = [],
  ) {}

  start(): void {
    const tick = () => {
      this.running = this.tick().catch((error) => this.deps.log.error({ err: error }, "scheduler tick failed"));
    };
    tick();
    this.timer = setInterval(tick, this.tickSeconds * 1000);
    this.timer.unref();
  }

  /** Resolves when the tick in progress, if any, has finished (the first one starts with `start`). */
  async idle(): Promise<void> {
    await this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * One tick; returns how many fetches it enqueued (0 when another process ticked moments ago). `now` is the clock
   * the tasks see (tests move it; fetches always compare with the database's clock).
   */
  async tick(options: { force?: boolean; now?: Date } = {}): Promise<number> {
    const now = options.now ?? new Date();
    return this.deps.knex.transaction(async (trx) => {
      const { rows } = await trx.raw("SELECT pg_try_advisory_xact_lock(hashtext(?)) AS locked", [LOCK_KEY]);
      if (!rows[0].locked) return 0;
      const state = await trx("scheduler_state").where({ id: 1 }).first("last_tick_at");
      const sinceLast = state?.last_tick_at ? (Date.now() - new Date(state.last_tick_at).getTime()) / 1000 : Infinity;
      if (!options.force && sinceLast < this.tickSeconds * 0.5) return 0;

      const due: { id: string; url: string }[] = await trx("sources")
        .where("is_active", true)
        .where((q) =>
          q
            .whereNull("fetch_job_id")
            .orWhere("fetch_queued_at", "<", trx.raw(`now() - interval '${STALE_QUEUED_MINUTES} minutes'`)),
        )
        .where((q) =>
          q
            .whereNull("last_fetched_at")
            .orWhereRaw("last_fetched_at + fetch_frequency_minutes * interval '1 minute' <= now()"),
        )
        .orderByRaw("last_fetched_at NULLS FIRST")
        .limit(MAX_PER_TICK)
        .forUpdate()
        .skipLocked()
        .select("id", "url");

      const perHost = new Map<string, number>();
      const jobs = due.map((source) => {
        const host = hostOf(source.url);
        const position = perHost.get(host) ?? 0;
        perHost.set(host, position + 1);
        const delaySeconds = position * HOST_SPACING_SECONDS + Math.random() * JITTER_SECONDS;
        return {
          id: randomUUID(),
          name: QUEUES.sourceFetch.name,
          data: { source_id: source.id, trigger: "schedule" },
          startAfter: new Date(Date.now() + delaySeconds * 1000).toISOString(),
        };
      });
      if (jobs.length > 0) {
        await this.deps.jobs.boss.insert(jobs, { db: knexExecutor(trx) });
        await trx.raw(
          `UPDATE sources SET fetch_job_id = queued.job_id::uuid, fetch_queued_at = now()
           FROM (SELECT unnest(?::uuid[]) AS source_id, unnest(?::text[]) AS job_id) queued
           WHERE sources.id = queued.source_id`,
          [due.map((s) => s.id), jobs.map((j) => j.id)],
        );
      }
      await trx("scheduler_state")
        .where({ id: 1 })
        .update({ last_tick_at: trx.fn.now(), last_tick_enqueued: jobs.length });
      if (jobs.length > 0) this.deps.log.info({ enqueued: jobs.length }, "scheduler enqueued due sources");
      for (const task of this.tasks) {
        try {
          await trx.transaction((savepoint) => task.run(savepoint, now));
        } catch (error) {
          this.deps.log.error({ err: error, task: task.name }, "scheduler task failed");
        }
      }
      return jobs.length;
    });
  }
}
