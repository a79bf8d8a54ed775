/**
 * The scheduler: every SCHEDULER_TICK_SECONDS it enqueues a fetch for each active source that is due
 * (`last_fetched_at + fetch_frequency_minutes` has passed), at most one queued fetch per source, spacing the sources
 * of one host apart so they do not fire together; then it runs the other periodic tasks it was given (digest runs and
 * deliveries, CRM rollups: src/jobs/scheduled-tasks.ts). Any number of worker processes may run it: an advisory lock
 * and the heartbeat in `scheduler_state` make one tick happen per interval.
 */
import type { Knex } from "knex";
import type { Logger } from "pino";
import { acrossWorkspaces } from "../db/tenancy.js";
import { hostOf } from "../detection/fetch/host-limiter.js";
import { queueFetches, whereNoFetchWaiting, whereNotBeingFetched } from "../sources/fetch-queue.js";
import type { Jobs } from "./boss.js";

/** Sources enqueued per tick at most; the rest are due next tick (oldest first, so none starves). */
const MAX_PER_TICK = 2000;
/** Seconds between two fetches of one host within a tick, plus up to JITTER_SECONDS of random spread. */
const HOST_SPACING_SECONDS = 2;
const JITTER_SECONDS = 1;
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

      // Every workspace's sources: the scheduler serves them all.
      const due: { id: string; url: string }[] = await whereNotBeingFetched(
        whereNoFetchWaiting(acrossWorkspaces(trx).from("sources").where("is_active", true), trx),
        trx,
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
      const fetches = due.map((source) => {
        const host = hostOf(source.url);
        const position = perHost.get(host) ?? 0;
        perHost.set(host, position + 1);
        const delaySeconds = position * HOST_SPACING_SECONDS + Math.random() * JITTER_SECONDS;
        return {
          sourceId: source.id,
          trigger: "schedule" as const,
          startAfter: new Date(Date.now() + delaySeconds * 1000),
        };
      });
      await queueFetches(trx, this.deps.jobs, fetches);
      await trx("scheduler_state")
        .where({ id: 1 })
        .update({ last_tick_at: trx.fn.now(), last_tick_enqueued: fetches.length });
      if (fetches.length > 0) this.deps.log.info({ enqueued: fetches.length }, "scheduler enqueued due sources");
      for (const task of this.tasks) {
        try {
          await trx.transaction((savepoint) => task.run(savepoint, now));
        } catch (error) {
          this.deps.log.error({ err: error, task: task.name }, "scheduler task failed");
        }
      }
      return fetches.length;
    });
  }
}
