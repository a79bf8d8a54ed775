/**
 * Operations views for platform admins (docs/product-rules.md#admin-views: across all workspaces): background jobs,
 * failing sources, source health and the scheduler's heartbeat. They read every workspace's rows on purpose, hence
 * `acrossWorkspaces` (src/db/tenancy.ts).
 */
import type { Knex } from "knex";
import type { Schemas, Wire } from "../http/schemas.js";
import { isoTimestamp } from "../db/sql.js";
import { acrossWorkspaces } from "../db/tenancy.js";

/** A tick older than this many tick intervals means the scheduler is unhealthy. */
const STALE_AFTER_TICKS = 3;

export class AdminService {
  constructor(
    private readonly knex: Knex,
    private readonly schedulerTickSeconds: number,
  ) {}

  /**
   * The newest jobs of every queue, from pg-boss's live table and its archive. `attempts` counts starts: pg-boss's
   * `retry_count` is raised at each restart, so a started job has made retry_count + 1 attempts.
   */
  async jobs(limit: number): Promise<Schemas["AdminJob"][]> {
    const row = (table: string) => `
      SELECT id, name, data, state, retry_count, started_on, created_on, completed_on, output FROM pgboss.${table}
      WHERE name <> '__pgboss__send-it'`;
    const { rows } = await this.knex.raw(
      `SELECT json_build_object(
         'id', j.id, 'job_type', j.name,
         'entity_type', CASE WHEN j.data->>'source_id' IS NOT NULL THEN 'source'
                             WHEN j.data->>'event_id' IS NOT NULL THEN 'event'
                             WHEN j.data->>'digest_id' IS NOT NULL THEN 'digest' END,
         'entity_id', coalesce(j.data->>'source_id', j.data->>'event_id', j.data->>'digest_id'),
         'status', j.state,
         'attempts', CASE WHEN j.started_on IS NULL THEN 0 ELSE j.retry_count + 1 END,
         'last_error', CASE WHEN j.state IN ('retry', 'failed') THEN coalesce(j.output->>'message', j.output::text) END,
         'created_at', ${isoTimestamp("j.created_on")},
         'started_at', ${isoTimestamp("j.started_on")},
         'completed_at', ${isoTimestamp("j.completed_on")}) AS job
       FROM (${row("job")} UNION ALL ${row("archive")}) j
       ORDER BY j.created_on DESC, j.id DESC LIMIT ?`,
      [limit],
    );
    return rows.map((r: { job: Schemas["AdminJob"] }) => r.job);
  }

  async failedSources(limit: number, offset: number): Promise<Wire<Schemas["AdminFailedSourcePage"]>> {
    const base = acrossWorkspaces(this.knex).from("sources").whereNotNull("error_message");
    const counted = await base.clone().count({ total: "*" }).first();
    const items = await base
      .clone()
      .orderBy([
        { column: "last_error_at", order: "desc" },
        { column: "id", order: "asc" },
      ])
      .limit(limit)
      .offset(offset)
      .select("id", "competitor_id", "source_type", "url", "error_message", "last_error_at", "last_success_at");
    return { items, limit, offset, total: Number(counted?.total ?? 0) };
  }

  async sourceHealth(): Promise<Schemas["AdminSourceHealth"][]> {
    const rows = await acrossWorkspaces(this.knex)
      .from("sources")
      .groupBy("source_type")
      .orderBy("source_type")
      .select(
        "source_type",
        this.knex.raw("count(*)::int AS total"),
        this.knex.raw("count(*) FILTER (WHERE error_message IS NULL)::int AS healthy"),
        this.knex.raw("count(*) FILTER (WHERE error_message IS NOT NULL)::int AS errored"),
      );
    return rows;
  }

  async scheduler(): Promise<Wire<Schemas["SchedulerStatus"]>> {
    const state = await this.knex("scheduler_state").where({ id: 1 }).first();
    const now = Date.now();
    const lastTick: Date | null = state.last_tick_at;
    const secondsSince = Math.max(0, Math.floor((now - (lastTick ?? state.installed_at).getTime()) / 1000));
    const staleAfter = this.schedulerTickSeconds * STALE_AFTER_TICKS;
    // A scheduler runs wherever a worker runs; the API sees it through the heartbeat every worker shares.
    const enabled = lastTick !== null && secondsSince <= Math.max(3600, staleAfter * 10);
    const runs = await this.knex("scheduler_runs")
      .orderBy("enqueued_at", "desc")
      .limit(20)
      .select("enqueued_at", "job_id", "mark", "period_type", "scheduled_for");
    return {
      enabled,
      healthy: enabled && secondsSince <= staleAfter,
      daily_hour_utc: state.daily_hour_utc,
      weekly_dow: state.weekly_dow,
      stale_after_seconds: staleAfter,
      seconds_since_last_tick: secondsSince,
      last_tick_at: lastTick,
      next_run_at: enabled ? new Date(lastTick!.getTime() + this.schedulerTickSeconds * 1000) : null,
      next_daily_run_at: enabled ? nextDaily(now, state.daily_hour_utc) : null,
      next_weekly_run_at: enabled ? nextWeekly(now, state.daily_hour_utc, state.weekly_dow) : null,
      recent_runs: runs,
    };
  }
}

/** The next `hour`:00 UTC strictly after `now`. */
function nextDaily(now: number, hour: number): Date {
  const next = new Date(now);
  next.setUTCHours(hour, 0, 0, 0);
  if (next.getTime() <= now) next.setUTCDate(next.getUTCDate() + 1);
  return next;
}

/** The next `hour`:00 UTC on weekday `dow` (0 = Monday) strictly after `now`. */
function nextWeekly(now: number, hour: number, dow: number): Date {
  const next = nextDaily(now, hour);
  const mondayBased = (next.getUTCDay() + 6) % 7;
  next.setUTCDate(next.getUTCDate() + ((dow - mondayBased + 7) % 7));
  return next;
}
