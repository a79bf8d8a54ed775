/**
 * Scheduled digests (docs/product-rules.md#schedule), in two steps that run on the scheduler's tick:
 *
 * 1. Generation: at `daily_hour_utc` every day, and on `weekly_dow` at that hour, one run per slot (its `mark`,
 *    `daily:2026-11-22` or `weekly:2026-W47`, is unique in `scheduler_runs`, so several workers or a restart enqueue
 *    it once). The run's job generates the digest of each workspace that has a member on that frequency (daily ones
 *    only on plans with `daily_digest`), with `period_end` = the slot.
 * 2. Delivery: each member receives the latest scheduled digest of their frequency at their next `digest_hour_local`
 *    in `digest_timezone` after the digest's `period_end` (weekly: on `digest_weekly_dow`), once per digest per member:
 *    the tick inserts the member's delivery row (unique per digest and address) and its job in one transaction.
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import type { DeliveryDeps } from "../delivery/types.js";
import type { Jobs } from "../jobs/boss.js";
import { QUEUES, type PayloadOf } from "../jobs/queues.js";
import { PLANS, PLAN_NAMES } from "../workspaces/plans.js";
import { generateDigest } from "./service.js";

/** Member deliveries queued per tick at most; the rest are due next tick. */
const MAX_DELIVERIES_PER_TICK = 5000;

/** One scheduled run: its slot's mark, period and time (the `digest-generate` job's payload). */
export type DigestRun = PayloadOf<typeof QUEUES.digestGenerate>;

/** The plans whose workspaces get scheduled daily digests (`daily_digest`, docs/product-rules.md#plans-and-limits). */
const DAILY_DIGEST_PLANS = PLAN_NAMES.filter((plan) => PLANS[plan].limits.daily_digest);

/** ISO-8601 week of a UTC date: `2026-W47`. */
export function isoWeek(date: Date): string {
  const day = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const mondayBased = (day.getUTCDay() + 6) % 7;
  day.setUTCDate(day.getUTCDate() - mondayBased + 3); // the Thursday of the week decides its year
  // Week 1 is the week of 4 January; count whole weeks from its Monday.
  const january4 = new Date(Date.UTC(day.getUTCFullYear(), 0, 4));
  const week1Monday = january4.getTime() - ((january4.getUTCDay() + 6) % 7) * 86_400_000;
  const week = 1 + Math.floor((day.getTime() - week1Monday) / (7 * 86_400_000));
  return `${day.getUTCFullYear()}-W${String(week).padStart(2, "0")}`;
}

/** The most recent daily and weekly slots at or before `now`. */
export function latestSlots(now: Date, dailyHourUtc: number, weeklyDow: number): DigestRun[] {
  const daily = new Date(now);
  daily.setUTCHours(dailyHourUtc, 0, 0, 0);
  if (daily > now) daily.setUTCDate(daily.getUTCDate() - 1);
  const weekly = new Date(daily);
  const mondayBased = (weekly.getUTCDay() + 6) % 7;
  weekly.setUTCDate(weekly.getUTCDate() - ((mondayBased - weeklyDow + 7) % 7));
  return [
    { mark: `daily:${daily.toISOString().slice(0, 10)}`, period_type: "daily", scheduled_for: daily.toISOString() },
    { mark: `weekly:${isoWeek(weekly)}`, period_type: "weekly", scheduled_for: weekly.toISOString() },
  ];
}

/** What the scheduler's tick queues digest work with: its transaction, the queues and the settings. */
export interface DigestScheduleDeps {
  trx: Knex.Transaction;
  jobs: Jobs;
  config: Readonly<Pick<Config, "email">>;
}

/** The tick's side of scheduled digests, built from the scheduler's transaction: which runs and deliveries are due. */
export class DigestSchedule {
  constructor(private readonly deps: DigestScheduleDeps) {}

  /** Step 1 on the tick: enqueue each slot's run the first time any scheduler sees it. */
  async enqueueRuns(now: Date): Promise<DigestRun[]> {
    const { trx, jobs } = this.deps;
    const state = await trx("scheduler_state").where({ id: 1 }).first("daily_hour_utc", "weekly_dow");
    const enqueued: DigestRun[] = [];
    for (const run of latestSlots(now, state.daily_hour_utc, state.weekly_dow)) {
      const jobId = randomUUID();
      const [inserted] = await trx("scheduler_runs")
        .insert({ mark: run.mark, period_type: run.period_type, scheduled_for: run.scheduled_for, job_id: jobId })
        .onConflict("mark")
        .ignore()
        .returning("id");
      if (!inserted) continue;
      await jobs.send(QUEUES.digestGenerate, run, { id: jobId, singletonKey: run.mark }, trx);
      enqueued.push(run);
    }
    return enqueued;
  }

  /**
   * Step 2 on the tick: the members whose digest is due, each given a `pending` delivery (of the configured
   * transport) and a `digest-deliver` job. The due moment is computed by Postgres in the member's zone: the first
   * `digest_hour_local`:00 at or after the digest's `period_end` (weekly: moved forward to `digest_weekly_dow`, 0 =
   * Monday), read back as UTC. Only digests of the last 8 days count: a member who turns digests back on after a month
   * is not sent a month-old one.
   */
  async enqueueDueDeliveries(now: Date): Promise<number> {
    const { trx, jobs, config } = this.deps;
    // Every workspace's due members in one statement: the tick serves all workspaces at once.
    const { rows } = await acrossWorkspaces(trx).raw<{ id: string }>(
      `WITH latest AS (
         SELECT DISTINCT ON (g.workspace_id, g.period_type) g.id, g.workspace_id, g.period_type, g.period_end
           FROM digests g
          WHERE g.scheduled_mark IS NOT NULL AND g.period_end > ?::timestamptz - interval '8 days'
          ORDER BY g.workspace_id, g.period_type, g.period_end DESC
       ), known_zones AS (
         SELECT lower(name) AS lower_name FROM pg_timezone_names
       ), candidates AS (
         SELECT l.id AS digest_id, l.workspace_id, l.period_type, u.id AS user_id, lower(u.email) AS recipient_email,
                u.name AS recipient_name, zone.tz, u.digest_weekly_dow AS dow,
                l.period_end AT TIME ZONE zone.tz AS local_end,
                date_trunc('day', l.period_end AT TIME ZONE zone.tz)
                  + make_interval(hours => u.digest_hour_local) AS local_hour
           FROM latest l
           JOIN workspaces w ON w.id = l.workspace_id
           JOIN memberships m ON m.workspace_id = l.workspace_id
           JOIN users u ON u.id = m.user_id AND u.digest_frequency = l.period_type
           -- A zone Postgres does not know (stored before src/lib/timezones.ts checked both) would fail this statement
           -- for every workspace: that member is scheduled in UTC instead, and no one else is affected.
           LEFT JOIN known_zones k ON k.lower_name = lower(u.digest_timezone)
           CROSS JOIN LATERAL (SELECT CASE WHEN k.lower_name IS NULL THEN 'UTC' ELSE u.digest_timezone END AS tz) zone
          WHERE (l.period_type = 'weekly' OR w.plan = ANY(?::text[]))
            AND NOT EXISTS (SELECT 1 FROM digest_deliveries x
                             WHERE x.digest_id = l.id AND x.recipient_email = lower(u.email))
       ), first_hour AS (
         SELECT c.*, CASE WHEN c.local_hour >= c.local_end THEN c.local_hour
                          ELSE c.local_hour + interval '1 day' END AS local_first
           FROM candidates c
       ), due AS (
         SELECT f.*, (f.local_first + make_interval(days => CASE WHEN f.period_type = 'weekly'
                       THEN (f.dow - (extract(isodow FROM f.local_first)::int - 1) + 7) % 7 ELSE 0 END))
                     AT TIME ZONE f.tz AS due_at
           FROM first_hour f
       )
       INSERT INTO digest_deliveries (digest_id, workspace_id, user_id, recipient_email, recipient_name, provider)
       SELECT digest_id, workspace_id, user_id, recipient_email, recipient_name, ?
         FROM due WHERE due_at <= ?
        ORDER BY due_at
        LIMIT ?
       ON CONFLICT (digest_id, recipient_email) DO NOTHING
       RETURNING id`,
      [now, DAILY_DIGEST_PLANS, config.email.transport, now, MAX_DELIVERIES_PER_TICK],
    );
    if (rows.length === 0) return 0;
    await jobs.sendMany(
      QUEUES.digestDeliver,
      rows.map((row: { id: string }) => ({ data: { delivery_id: row.id } })),
      trx,
    );
    return rows.length;
  }
}

/** The `digest-generate` job's rules, built from the worker's deps. */
export class ScheduledDigests {
  constructor(private readonly deps: Pick<DeliveryDeps, "knex" | "log" | "config">) {}

  /**
   * One digest per eligible workspace of the run's slot; re-running it generates none twice. It picks the workspaces
   * across all of them, then generates each one's digest in that workspace's scope.
   */
  async generate(run: DigestRun): Promise<number> {
    const { knex, log, config } = this.deps;
    const workspaces: { id: string }[] = await knex("workspaces as w")
      .whereExists(
        acrossWorkspaces(knex)
          .from("memberships as m")
          .join("users as u", "u.id", "m.user_id")
          .whereRaw("m.workspace_id = w.id")
          .where("u.digest_frequency", run.period_type)
          .select(knex.raw("1")),
      )
      .modify((q) => {
        if (run.period_type === "daily") q.whereIn("w.plan", DAILY_DIGEST_PLANS);
      })
      .orderBy("w.id")
      .select("w.id");
    for (const workspace of workspaces) {
      await generateDigest(new WorkspaceScope(knex, workspace.id), {
        periodType: run.period_type,
        periodEnd: new Date(run.scheduled_for),
        publicBaseUrl: config.publicBaseUrl,
        mark: run.mark,
      });
    }
    log.info({ mark: run.mark, workspaces: workspaces.length }, "scheduled digests generated");
    return workspaces.length;
  }
}
