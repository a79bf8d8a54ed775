/**
 * The daily rollup engagement (docs/product-rules.md#daily-rollup: one per account per day, even when the job runs
 * twice): for each connection and UTC day, one Salesforce Task or HubSpot note (associated to the company, type 190)
 * per account matched by the mapping of a competitor that had events at or above the connection's threshold that day,
 * one line per event.
 *
 * Exactly once per (connection, account, day): a `crm_rollups` row is claimed (inserted) before the POST and marked
 * done with the engagement's id after it, so a second run, concurrent or later, finds the row and sends nothing. A
 * vendor failure that is retried releases the claim (nothing was created); a worker that dies between the vendor's
 * answer and the commit leaves a claim that is taken over once its lease lapses — the one window in which a rollup
 * could be sent twice, since neither vendor offers an idempotency key for creates.
 */
import type { Knex } from "knex";
import { eventSourceUrl } from "../db/sql.js";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import type { DeliveryDeps } from "../delivery/types.js";
import type { Jobs } from "../jobs/boss.js";
import { QUEUES } from "../jobs/queues.js";
import { SEVERITIES, severityAtLeast } from "../lib/severity.js";
import { limitsOf, PLAN_NAMES, type PlanName } from "../workspaces/plans.js";
import { CrmAuthError, CrmRequestError, PROVIDER_LABELS, type CrmClient } from "./client.js";
import { clientFor, type CrmConnection } from "./connections.js";
import type { AccountMapping } from "./mapping.js";
import { utcDate } from "./properties.js";
import { isLastAttempt, markErrored } from "./sync.js";

export type RollupOutcome = "done" | "failed" | "stopped" | "skipped";

/** A claim older than this belongs to a run that died (the queue's expiry is 900 s). */
const CLAIM_LEASE_SECONDS = 900;
/** Lines per engagement: a day with more events says how many were left out (docs/product-rules.md#bounded-lists). */
const MAX_LINES = 100;

interface RollupEvent {
  id: string;
  detected_at: Date;
  competitor_id: string;
  competitor_name: string;
  event_type: string;
  severity: string;
  title: string;
  source_url: string;
}

/** What the scheduler's tick queues the rollups with: its transaction and the queues. */
export interface RollupScheduleDeps {
  knex: Knex | Knex.Transaction;
  jobs: Jobs;
}

/** The tick's side of the rollups, built from the scheduler's transaction: which runs are due. */
export class CrmRollupSchedule {
  constructor(private readonly deps: RollupScheduleDeps) {}

  /**
   * Queues one `crm-rollup` job per active connection (of a workspace with api_access) for the UTC day before `now`.
   * The run row is unique per (connection, day) and the job is queued only by the insert that created it, in the same
   * transaction, so calling this every scheduler tick queues each day once. Returns how many jobs it queued.
   */
  async enqueueDue(now: Date): Promise<number> {
    const day = utcDate(new Date(now.getTime() - 24 * 3600 * 1000));
    const plans = PLAN_NAMES.filter((plan) => limitsOf(plan).api_access);
    return this.deps.knex.transaction(async (trx) => {
      // Every workspace's connections: the scheduler serves them all.
      const connections: { id: string }[] = await acrossWorkspaces(trx)
        .from("crm_connections as c")
        .join("workspaces as w", "w.id", "c.workspace_id")
        .where("c.status", "active")
        .whereIn("w.plan", plans)
        .orderBy("c.id")
        .select("c.id");
      let queued = 0;
      for (const connection of connections) {
        const [run] = await trx("crm_rollup_runs")
          .insert({ connection_id: connection.id, day })
          .onConflict(["connection_id", "day"])
          .ignore()
          .returning("id");
        if (!run) continue;
        await this.deps.jobs.send(QUEUES.crmRollup, { run_id: run.id }, {}, trx);
        queued++;
      }
      return queued;
    });
  }
}

/** The `crm-rollup` job's rules, built from the worker's deps: `run` posts one connection's rollups of one day. */
export class CrmRollup {
  constructor(private readonly deps: DeliveryDeps) {}

  /**
   * `npm run admin -- crm-rollup`: the workspace's rollups of `day`, now, for each of its connections. A run already
   * done is not run again; one that ended failed or stopped is, and the per-account claims keep every account's
   * engagement single, as for the scheduled run. Returns each connection's outcome.
   *
   * `onProgress`, when given (the CLI writes it to stderr), hears one line as each connection starts and one as it
   * ends, with the day's accounts posted and refused or the reason it stopped; without it nothing extra is read.
   */
  async runDay(
    workspaceId: string,
    day: string,
    onProgress?: (message: string) => void,
  ): Promise<{ connection_id: string; provider: string; outcome: RollupOutcome }[]> {
    const { knex } = this.deps;
    const scope = new WorkspaceScope(knex, workspaceId);
    const connections: { id: string; provider: string }[] = await scope
      .from("crm_connections")
      .orderBy("provider")
      .select("id", "provider");
    const outcomes = [];
    for (const [index, connection] of connections.entries()) {
      const label = `${connection.provider} connection ${index + 1}/${connections.length}`;
      onProgress?.(`${label} started`);
      await knex("crm_rollup_runs")
        .insert({ connection_id: connection.id, day })
        .onConflict(["connection_id", "day"])
        .ignore();
      const [run] = await knex("crm_rollup_runs")
        .where({ connection_id: connection.id, day })
        .whereNot("status", "done")
        .update({ status: "pending", finished_at: null })
        .returning("id");
      const outcome = run ? await this.run(run.id) : "skipped";
      if (onProgress) onProgress(`${label} ${await this.progressOf(connection.id, day, outcome)}`);
      outcomes.push({ connection_id: connection.id, provider: connection.provider, outcome });
    }
    return outcomes;
  }

  /** How a connection's run of `day` ended, for `runDay`'s progress: the day's accounts, or why it stopped. */
  private async progressOf(connectionId: string, day: string, outcome: RollupOutcome): Promise<string> {
    const { knex } = this.deps;
    if (outcome === "skipped") return "skipped (already done)";
    if (outcome !== "done") {
      const run = await knex("crm_rollup_runs").where({ connection_id: connectionId, day }).first("last_error");
      return `${outcome}: ${run?.last_error ?? "no error recorded"}`;
    }
    const rows: { status: string; n: string }[] = await knex("crm_rollups")
      .where({ connection_id: connectionId, day })
      .groupBy("status")
      .select("status", knex.raw("count(*) AS n"));
    const count = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
    const refused = count("failed");
    return `done (${count("done")} account(s) posted${refused > 0 ? `, ${refused} refused` : ""})`;
  }

  async run(runId: string, jobId?: string): Promise<RollupOutcome> {
    const { knex } = this.deps;
    const run = await knex("crm_rollup_runs").where({ id: runId }).first<{
      connection_id: string;
      day: string;
      status: string;
    }>("connection_id", knex.raw("to_char(day, 'YYYY-MM-DD') AS day"), "status");
    if (!run || run.status !== "pending") return "skipped";
    // The run names its connection by id, in whichever workspace it is.
    const connection = await acrossWorkspaces(knex)
      .from("crm_connections as c")
      .join("workspaces as w", "w.id", "c.workspace_id")
      .where("c.id", run.connection_id)
      .first<(CrmConnection & { plan: PlanName }) | undefined>("c.*", "w.plan");
    if (!connection) return "skipped";
    const label = PROVIDER_LABELS[connection.provider];
    if (connection.status !== "active") {
      return this.finish(runId, "stopped", `${label} connection is errored: ${connection.last_error ?? ""}`);
    }
    if (!limitsOf(connection.plan).api_access) {
      return this.finish(runId, "stopped", `the ${connection.plan} plan does not include CRM write-back`);
    }

    const scope = new WorkspaceScope(knex, connection.workspace_id);
    const events = await dayEvents(scope, connection, run.day);
    const client = clientFor(this.deps, connection);
    try {
      const byAccount = await accountsOf(client, connection.mapping, events);
      for (const [accountId, accountEvents] of [...byAccount].sort(([a], [b]) => a.localeCompare(b))) {
        await this.rollupAccount(client, connection.id, accountId, run.day, accountEvents);
      }
      return await this.finish(runId, "done", null);
    } catch (error) {
      if (error instanceof CrmAuthError) {
        await markErrored(scope, connection.id, null, error.message);
        return this.finish(runId, "stopped", error.message);
      }
      if (error instanceof CrmRequestError) return this.finish(runId, "failed", error.message);
      const message = error instanceof Error ? error.message : String(error);
      if (await isLastAttempt(this.deps.jobs, QUEUES.crmRollup, jobId)) await this.finish(runId, "failed", message);
      else await knex("crm_rollup_runs").where({ id: runId }).update({ last_error: message });
      throw error;
    }
  }

  private async rollupAccount(
    client: CrmClient,
    connectionId: string,
    accountId: string,
    day: string,
    events: RollupEvent[],
  ): Promise<void> {
    const { knex } = this.deps;
    if (!(await this.claim(connectionId, accountId, day, events.length))) return;
    const where = { connection_id: connectionId, account_id: accountId, day };
    const lines = events.slice(0, MAX_LINES).map(rollupLine);
    if (events.length > MAX_LINES) lines.push(`… and ${events.length - MAX_LINES} more`);
    try {
      const engagementId = await client.addRollup(accountId, day, lines);
      await knex("crm_rollups")
        .where(where)
        .update({ status: "done", engagement_id: engagementId, done_at: knex.fn.now() });
    } catch (error) {
      if (error instanceof CrmRequestError && error.status !== null) {
        // This account was refused (deleted, no access): recorded, and the others go on.
        await knex("crm_rollups").where(where).update({ status: "failed", error: error.message });
        return;
      }
      // Nothing was created: release the claim so the retried job sends it.
      await knex("crm_rollups")
        .where({ ...where, status: "claimed" })
        .del();
      throw error;
    }
  }

  /** Claims (connection, account, day): a new row, or a claim whose run died (lease lapsed). */
  private async claim(connectionId: string, accountId: string, day: string, eventsCount: number): Promise<boolean> {
    const { knex } = this.deps;
    const [inserted] = await knex("crm_rollups")
      .insert({ connection_id: connectionId, account_id: accountId, day, events_count: eventsCount })
      .onConflict(["connection_id", "account_id", "day"])
      .ignore()
      .returning("id");
    if (inserted) return true;
    const taken = await knex("crm_rollups")
      .where({ connection_id: connectionId, account_id: accountId, day, status: "claimed" })
      .where("claimed_at", "<", knex.raw(`now() - interval '${CLAIM_LEASE_SECONDS} seconds'`))
      .update({ claimed_at: knex.fn.now(), events_count: eventsCount })
      .returning("id");
    return taken.length > 0;
  }

  private async finish(
    runId: string,
    status: "done" | "failed" | "stopped",
    error: string | null,
  ): Promise<RollupOutcome> {
    const { knex } = this.deps;
    await knex("crm_rollup_runs")
      .where({ id: runId })
      .update({ status, last_error: error, finished_at: knex.fn.now() });
    return status;
  }
}

/** The day's events (of the connection's workspace) of mapped competitors at or above the threshold, oldest first. */
async function dayEvents(scope: WorkspaceScope, connection: CrmConnection, day: string): Promise<RollupEvent[]> {
  const competitorIds = Object.keys(connection.mapping ?? {});
  if (competitorIds.length === 0) return [];
  const severities = SEVERITIES.filter((severity) => severityAtLeast(severity, connection.severity_threshold));
  const { rows } = await scope.raw<RollupEvent>(
    `SELECT e.id, e.detected_at, e.competitor_id, c.name AS competitor_name, e.event_type, e.severity, e.title,
            ${eventSourceUrl("s")} AS source_url
       FROM events e
       JOIN competitors c ON c.id = e.competitor_id
       LEFT JOIN sources s ON s.id = e.source_id AND s.workspace_id = e.workspace_id
      WHERE e.workspace_id = :workspace_id
        AND e.competitor_id = ANY(:competitor_ids::uuid[])
        AND e.severity = ANY(:severities::text[])
        AND e.detected_at >= :day::date AT TIME ZONE 'UTC'
        AND e.detected_at < (:day::date + 1) AT TIME ZONE 'UTC'
      ORDER BY e.detected_at, e.id`,
    { competitor_ids: competitorIds, severities, day },
  );
  return rows;
}

/** Account id → that day's events of every competitor mapped to it (a mapping is resolved once per competitor). */
async function accountsOf(
  client: CrmClient,
  mapping: Record<string, AccountMapping>,
  events: RollupEvent[],
): Promise<Map<string, RollupEvent[]>> {
  const byAccount = new Map<string, RollupEvent[]>();
  const competitors = [...new Set(events.map((event) => event.competitor_id))];
  for (const competitorId of competitors) {
    const entry = mapping[competitorId];
    if (!entry) continue;
    const accounts = await client.findAccounts(entry);
    const competitorEvents = events.filter((event) => event.competitor_id === competitorId);
    for (const account of accounts) byAccount.set(account, [...(byAccount.get(account) ?? []), ...competitorEvents]);
  }
  // One line per event in the order they happened, whichever competitor's mapping matched the account.
  for (const list of byAccount.values()) {
    list.sort(
      (a, b) => new Date(a.detected_at).getTime() - new Date(b.detected_at).getTime() || a.id.localeCompare(b.id),
    );
  }
  return byAccount;
}

export function rollupLine(event: RollupEvent): string {
  return `[${event.severity}] ${event.competitor_name} · ${event.event_type.replace(/_/g, " ")}: ${event.title} (${event.source_url})`;
}
