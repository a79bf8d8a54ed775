/**
 * Which workspaces have a firehose, how often it runs, and the platform admins' view of them
 * (docs/product-rules.md#firehose): every workspace whose plan has `realtime` has one monitor, hourly and enabled
 * unless the workspace registered a partner `social` or `news` monitor, whose `enabled` and `cadence` then apply (the
 * more frequent of the two when both are enabled; disabled when every registered one is).
 */
import type { Knex } from "knex";
import type { Config, FirehoseSourceName } from "../config.js";
import { acrossWorkspaces } from "../db/tenancy.js";
import type { Jobs } from "../jobs/boss.js";
import { QUEUES } from "../jobs/queues.js";
import { limitsOf, PLAN_NAMES } from "../workspaces/plans.js";
import type { components } from "../../generated/api-types.js";
import { FIREHOSE_SOURCES } from "./sources.js";

type FirehoseMonitorList = components["schemas"]["FirehoseMonitorList"];

/** The plans with a firehose. */
export const FIREHOSE_PLANS = PLAN_NAMES.filter((plan) => limitsOf(plan).realtime);

interface FirehoseSettings {
  enabled: boolean;
  cadenceMinutes: number;
  /** Whether the workspace tracks a competitor: a firehose without one has nothing to search for. */
  hasCompetitors: boolean;
}

/** Each firehose's settings, by workspace id: from its partner social/news monitors, hourly and enabled without. */
async function firehoseSettings(db: Knex | Knex.Transaction): Promise<Map<string, FirehoseSettings>> {
  const { rows } = await acrossWorkspaces(db).raw<{
    workspace_id: string;
    enabled: boolean | null;
    cadence_minutes: number | null;
    has_competitors: boolean;
  }>(
    `SELECT w.id AS workspace_id, s.enabled, s.cadence_minutes,
            EXISTS (SELECT 1 FROM competitors c WHERE c.workspace_id = w.id) AS has_competitors
       FROM workspaces w
       LEFT JOIN LATERAL (
         SELECT bool_or(pm.enabled) AS enabled,
                min(CASE pm.cadence WHEN 'hourly' THEN 60 WHEN 'daily' THEN 1440 ELSE 10080 END)
                  FILTER (WHERE pm.enabled) AS cadence_minutes
           FROM partner_monitors pm
          WHERE pm.workspace_id = w.id AND pm.monitor_type IN ('social', 'news')
       ) s ON true
      WHERE w.plan = ANY(?)`,
    [FIREHOSE_PLANS],
  );
  return new Map(
    rows.map((row) => [
      row.workspace_id,
      { enabled: row.enabled ?? true, cadenceMinutes: row.cadence_minutes ?? 60, hasCompetitors: row.has_competitors },
    ]),
  );
}

/** The start of the cadence slot `now` falls in: the hour, the day (UTC) or the 7-day period since the epoch. */
function slotOf(now: Date, cadenceMinutes: number): Date {
  const slotMs = cadenceMinutes * 60_000;
  return new Date(Math.floor(now.getTime() / slotMs) * slotMs);
}

/** The scheduler tick's side of the firehose: which monitors are due. */
export class FirehoseSchedule {
  constructor(private readonly deps: { knex: Knex | Knex.Transaction; jobs: Jobs }) {}

  /**
   * Queues one `firehose-run` job per enabled monitor whose cadence slot (the hour, day or week `now` falls in) has
   * not been queued yet. The slot is marked on the monitor in the tick's transaction, with the jobs, so each slot
   * is queued once whatever the number of scheduler processes. A workspace without competitors gets no run: it has
   * nothing to search for (and a partner's empty customer workspaces would otherwise each cost a job per slot).
   * Returns how many runs it queued.
   */
  async enqueueDue(now: Date): Promise<number> {
    const across = acrossWorkspaces(this.deps.knex);
    await across.raw(
      `INSERT INTO firehose_monitors (workspace_id)
       SELECT id FROM workspaces WHERE plan = ANY(?) ON CONFLICT (workspace_id) DO NOTHING`,
      [FIREHOSE_PLANS],
    );
    const due = [...(await firehoseSettings(this.deps.knex))].filter(
      ([, settings]) => settings.enabled && settings.hasCompetitors,
    );
    if (due.length === 0) return 0;
    const { rows } = await across.raw<{ workspace_id: string }>(
      `UPDATE firehose_monitors m SET queued_for = due.slot
         FROM unnest(?::uuid[], ?::timestamptz[]) AS due(workspace_id, slot)
        WHERE m.workspace_id = due.workspace_id AND (m.queued_for IS NULL OR m.queued_for < due.slot)
        RETURNING m.workspace_id`,
      [due.map(([id]) => id), due.map(([, settings]) => slotOf(now, settings.cadenceMinutes).toISOString())],
    );
    await this.deps.jobs.sendMany(
      QUEUES.firehoseRun,
      rows.map((row) => ({ data: { workspace_id: row.workspace_id } })),
      this.deps.knex,
    );
    return rows.length;
  }
}

/** The platform admins' view of every workspace's firehose. */
export class FirehoseMonitors {
  constructor(
    private readonly knex: Knex,
    private readonly config: Readonly<Config>,
  ) {}

  /** `GET /admin/firehose/monitors`: every workspace's monitor, by workspace name. */
  async list(): Promise<FirehoseMonitorList> {
    const { rows } = await acrossWorkspaces(this.knex).raw<{
      workspace_id: string;
      workspace_name: string;
      consecutive_failures: number;
      last_event_at: Date | null;
      last_run_at: Date | null;
      last_error: string | null;
      counts: Partial<Record<FirehoseSourceName, number>> | null;
    }>(
      `SELECT w.id AS workspace_id, w.name AS workspace_name,
            coalesce(m.consecutive_failures, 0) AS consecutive_failures, m.last_event_at, m.last_run_at, m.last_error,
            (SELECT json_object_agg(c.source, c.n)
               FROM (SELECT fm.source, count(*)::int AS n FROM firehose_mentions fm
                      WHERE fm.workspace_id = w.id AND fm.found_at > now() - interval '24 hours'
                      GROUP BY fm.source) c) AS counts
       FROM workspaces w
       LEFT JOIN firehose_monitors m ON m.workspace_id = w.id
      WHERE w.plan = ANY(?)
      ORDER BY w.name, w.id`,
      [FIREHOSE_PLANS],
    );
    const settings = await firehoseSettings(this.knex);
    const monitors = rows.map((row) => {
      const enabled = settings.get(row.workspace_id)?.enabled ?? true;
      return {
        workspace_id: row.workspace_id,
        workspace_name: row.workspace_name,
        enabled,
        consecutive_failures: row.consecutive_failures,
        last_event_at: row.last_event_at?.toISOString() ?? null,
        last_run_at: row.last_run_at?.toISOString() ?? null,
        status_text: statusText({ ...row, enabled }),
        source_counts: Object.fromEntries(
          FIREHOSE_SOURCES.map((source) => [
            source.name,
            searchable(this.config, source.name) ? (row.counts?.[source.name] ?? 0) : -1,
          ]),
        ) as FirehoseMonitorList["monitors"][number]["source_counts"],
      };
    });
    return { monitors, total: monitors.length };
  }
}

/** Whether the source can be searched with this deployment's settings (`-1` in `source_counts` otherwise). */
function searchable(config: Readonly<Config>, name: FirehoseSourceName): boolean {
  const source = FIREHOSE_SOURCES.find((s) => s.name === name)!;
  return source.tokenOptional || config.firehose[name].token !== null;
}

function statusText(row: {
  enabled: boolean;
  consecutive_failures: number;
  last_run_at: Date | null;
  last_error: string | null;
}): string {
  if (!row.enabled) return "disabled";
  if (!row.last_run_at) return "never run";
  if (row.consecutive_failures > 0) {
    const runs =
      row.consecutive_failures === 1 ? "1 consecutive failure" : `${row.consecutive_failures} consecutive failures`;
    return row.last_error ? `${runs}: ${row.last_error}` : runs;
  }
  return "ok";
}
