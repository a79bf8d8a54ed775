/**
 * The partner API (docs/product-rules.md#partner-api, spec/partner.tsp). `api_access` is checked before any of this
 * runs (src/http/access.ts). A caller reaches its own workspace and the workspaces it provisioned (its children),
 * nothing else: `reach` answers 404 for any other id, exactly like a missing one, and every query after it goes
 * through the reached workspace's WorkspaceScope.
 */
import type { Knex } from "knex";
import { AlertRule } from "../alert-rules/models.js";
import { PARTNER_RULE_NAME } from "../alert-rules/name.js";
import { createDefaultAlertRule } from "../alert-rules/service.js";
import { SlackConnectError, validateSlackWebhookUrl } from "../alerts/slack.js";
import { eventSourceUrl, isoTimestamp } from "../db/sql.js";
import { WorkspaceScope } from "../db/tenancy.js";
import { enqueueEmail } from "../email/outbox.js";
import { conflict, forbidden, invalid, notFound, tooManyRequests } from "../http/errors.js";
import type { AppServices, Workspace } from "../http/handler.js";
import type { QueryOf, Schemas, Severity } from "../http/schemas.js";
import { RateLimiter, type RateLimitRule } from "../lib/rate-limit.js";
import { sealedPlace, secretBoxOf } from "../lib/secret-box.js";
import { SEVERITIES } from "../lib/severity.js";
import { normalizeEmail } from "../suppressions/service.js";
import { PLANS, limitsOf, upgradeFor, type PlanName } from "../workspaces/plans.js";
import { decodeCursor, encodeCursor, type CursorKey } from "./cursor.js";
import { buildLiveDigest, PERIOD_MS, type DigestEvent, type PeriodType } from "./digest.js";
import { monitorHealth, type MonitorFigures } from "./health.js";
import { PartnerMonitor } from "./models.js";
import {
  FEEDING_SOURCE_TYPES,
  MONITOR_TYPES,
  monitorRankSql,
  monitorTypesSql,
  type MonitorType,
} from "./monitor-types.js";

type PartnerWorkspace = Schemas["PartnerWorkspace"];
type EventFilters = QueryOf<"listPartnerEvents">;

/**
 * New customer workspaces one partner may provision per hour (docs/product-rules.md#partner-api): each adds
 * scheduler and firehose work, so a burst is refused (429) even within the plan's `partner_workspaces`.
 */
export const PROVISIONING_PER_HOUR: Omit<RateLimitRule, "key"> = { limit: 30, windowSeconds: 3600 };

/** The spec: `limit` 1–200, default 50. */
const DEFAULT_PAGE_SIZE = 50;

/**
 * How far behind the oldest open transaction a page stops. Detection stamps `detected_at` with its transaction's
 * start (`now()`); a transaction counts in `pg_stat_activity` from a few microseconds after that instant, and this
 * margin covers that gap. See `settledHorizon`.
 */
const SETTLE_MARGIN_MS = 250;

/** The workspace a partner call works on, once reached. */
interface Target {
  id: string;
  plan: PlanName;
  scope: WorkspaceScope;
}

const WORKSPACE_COLUMNS = ["id", "company_name", "customer_email", "industry", "website_url", "status", "created_at"];

interface WorkspaceRow {
  id: string;
  company_name: string | null;
  customer_email: string | null;
  industry: string | null;
  website_url: string | null;
  status: string;
  created_at: Date;
}

function toPartnerWorkspace(row: WorkspaceRow): PartnerWorkspace {
  return {
    id: row.id,
    company_name: row.company_name,
    customer_email: row.customer_email,
    industry: row.industry,
    website_url: row.website_url,
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export class PartnerService {
  constructor(
    private readonly workspace: Workspace,
    private readonly services: Pick<AppServices, "config" | "jobs">,
  ) {}

  private get config() {
    return this.services.config;
  }

  private get db(): Knex | Knex.Transaction {
    return this.workspace.scope.db;
  }

  private get callerWorkspaceId(): string {
    return this.workspace.caller.workspaceId;
  }

  /**
   * Provisions a child workspace, idempotent on `customer_email` among the caller's children. The partner's workspace
   * row is locked first, so one partner's provisioning runs one call at a time: a repeat (or a concurrent duplicate,
   * once the first commits) finds the existing child and returns it, counting against nothing; a new child must fit
   * the plan's `partner_workspaces` (403) and the hourly provisioning limit (429), counted in the same transaction, so
   * a refused call counts nothing. The insert keeps ON CONFLICT on the unique index (parent_workspace_id,
   * lower(customer_email)) as the last word. The child takes the caller's plan, and keeps following it
   * (migrations/20261128000400_child_plan_follows_partner.ts): the partner pays for it.
   */
  async provision(input: Schemas["PartnerWorkspaceCreate"]): Promise<PartnerWorkspace> {
    const email = input.customer_email.trim();
    const { caller } = this.workspace;
    return this.db.transaction(async (trx) => {
      await trx("workspaces").where({ id: this.callerWorkspaceId }).forUpdate().first("id");
      const existing = await this.childByEmail(trx, email);
      if (existing) return toPartnerWorkspace(existing);

      const cap = limitsOf(caller.plan).partner_workspaces;
      const [children] = await trx("workspaces")
        .where({ parent_workspace_id: this.callerWorkspaceId })
        .count<{ count: string }[]>({ count: "*" });
      if (Number(children?.count ?? 0) >= cap) {
        throw forbidden(
          `The ${PLANS[caller.plan].label} plan allows ${cap} customer workspaces; ` +
            `${upgradeFor(caller.plan, "partner_workspaces", "customer workspaces")} to provision more`,
        );
      }
      const wait = await new RateLimiter(trx as unknown as Knex).hit({
        key: `partner-provision:${this.callerWorkspaceId}`,
        ...PROVISIONING_PER_HOUR,
      });
      if (wait !== null) {
        throw tooManyRequests(
          wait,
          `A partner may provision ${PROVISIONING_PER_HOUR.limit} new customer workspaces per hour; try again later`,
        );
      }

      const { rows } = await trx.raw<{ rows: WorkspaceRow[] }>(
        `INSERT INTO workspaces (name, plan, status, parent_workspace_id, company_name, customer_email, industry,
                                 website_url, external_audit_id)
         VALUES (?, ?, 'active', ?, ?, ?, ?, ?, ?)
         ON CONFLICT (parent_workspace_id, lower(customer_email)) WHERE parent_workspace_id IS NOT NULL DO NOTHING
         RETURNING ${WORKSPACE_COLUMNS.join(", ")}`,
        [
          input.company_name.trim() || input.company_name,
          caller.plan,
          this.callerWorkspaceId,
          input.company_name,
          email,
          input.industry ?? null,
          input.website_url ?? null,
          input.external_audit_id ?? null,
        ],
      );
      const created = rows[0];
      if (created) {
        // Every workspace starts with its default alert rule (docs/product-rules.md#alert-rules).
        await createDefaultAlertRule(trx, created.id);
        return toPartnerWorkspace(created);
      }
      // Returned unchanged: the existing workspace wins over this request's fields.
      const raced = await this.childByEmail(trx, email);
      if (!raced) throw new Error("provisioning conflicted with a workspace that cannot be read");
      return toPartnerWorkspace(raced);
    });
  }

  /** The caller's child provisioned for `email` (compared case-insensitively), if any. */
  private async childByEmail(db: Knex | Knex.Transaction, email: string): Promise<WorkspaceRow | undefined> {
    return db("workspaces")
      .where({ parent_workspace_id: this.callerWorkspaceId })
      .whereRaw("lower(customer_email) = lower(?)", [email])
      .first(WORKSPACE_COLUMNS);
  }

  async get(workspaceId: string): Promise<PartnerWorkspace> {
    const row = await this.reachable(workspaceId).first<WorkspaceRow | undefined>(WORKSPACE_COLUMNS);
    if (!row) throw notFound("Workspace");
    return toPartnerWorkspace(row);
  }

  /**
   * Replaces the partner alert rule (reserved name `__partner_default__`): an immediate rule for every competitor
   * and confidence, at `min_severity`, for the chosen monitor types, to the given addresses and/or Slack webhook.
   * With neither, the rule is removed. The Slack URL is checked like every outbound target (https, public address)
   * and becomes the workspace's connected webhook, sealed (src/alerts/slack.ts).
   */
  async subscribeAlerts(
    workspaceId: string,
    input: Schemas["PartnerAlertSubscription"],
  ): Promise<Schemas["PartnerOkResponse"]> {
    const target = await this.reach(workspaceId);
    if (input.workspace_id !== workspaceId) {
      throw invalid(["body", "workspace_id"], "must equal the workspace_id of the path");
    }
    const emails = [...new Set((input.email ?? []).map(normalizeEmail))];
    const slackRaw = input.slack_webhook_url ?? null;
    const monitorTypes =
      input.monitor_types == null ? null : MONITOR_TYPES.filter((t) => input.monitor_types!.includes(t));
    const channels: ("email" | "slack")[] = [];
    if (emails.length > 0) channels.push("email");
    if (slackRaw !== null) channels.push("slack");

    if (channels.length > 0) {
      const limits = limitsOf(target.plan);
      const label = PLANS[target.plan].label;
      if (!limits.realtime) {
        throw forbidden(
          `The ${label} plan does not include immediate alerts; partner alerts need Growth or Enterprise`,
        );
      }
      if (slackRaw !== null && !limits.slack) throw forbidden(`The ${label} plan does not include Slack alerts`);
    }
    let slackUrl: string | null = null;
    if (slackRaw !== null) {
      try {
        slackUrl = await validateSlackWebhookUrl(slackRaw, {
          allowPrivateTargets: this.config.allowPrivateTargets,
          what: "slack_webhook_url",
        });
      } catch (error) {
        if (error instanceof SlackConnectError) throw invalid(["body", "slack_webhook_url"], error.reason);
        throw error;
      }
    }

    await target.scope.transaction(async (scope) => {
      // The workspace row is locked so concurrent subscribes replace the rule one after the other, never leaving two.
      const row: { name: string; slack_webhook_url: string | null; slack_connected_by: string | null } = await scope
        .db("workspaces")
        .where({ id: target.id })
        .forUpdate()
        .first("name", "slack_webhook_url", "slack_connected_by");
      const existing = await scope
        .query(AlertRule)
        .where({ name: PARTNER_RULE_NAME })
        .select("id", "email_recipients_json");
      if (channels.length === 0) {
        if (existing.length > 0) await scope.query(AlertRule).where({ name: PARTNER_RULE_NAME }).delete();
        return;
      }
      if (slackUrl !== null) {
        const box = secretBoxOf(this.config);
        const current = box.openNullable(row.slack_webhook_url, sealedPlace.slackWebhookUrl(target.id));
        if (row.slack_connected_by !== "partner" && current !== null) {
          // The vendor's connection (slack-connect) is never replaced: no API shows it to the owners, so a new URL
          // here would silently move where the workspace's Slack alerts go. Naming that same webhook is fine.
          if (current !== slackUrl) {
            throw conflict(
              "This workspace's Slack webhook was connected by the vendor (slack-connect) and cannot be replaced " +
                "through the partner API; subscribe without slack_webhook_url, or ask the vendor to change it",
            );
          }
        } else {
          await scope
            .db("workspaces")
            .where({ id: target.id })
            .update({
              slack_webhook_url: box.seal(slackUrl, sealedPlace.slackWebhookUrl(target.id)),
              slack_connected_by: "partner",
              updated_at: scope.db.fn.now(),
            });
        }
      }
      const before = new Set(existing.flatMap((rule) => rule.email_recipients_json ?? []).map(normalizeEmail));
      await this.tellOwnersOfOutsideRecipients(
        scope,
        { id: target.id, name: row.name },
        emails.filter((email) => !before.has(email)),
      );
      const rule = {
        competitor_id: null,
        confidence_threshold: 0,
        delivery_channels_json: JSON.stringify(channels),
        event_types_json: null,
        frequency: "immediate",
        severity_threshold: input.min_severity ?? "low",
        is_active: true,
        email_recipients_json: JSON.stringify(emails),
        monitor_types_json: monitorTypes === null ? null : JSON.stringify(monitorTypes),
      };
      if (existing.length > 0) {
        await scope
          .from("alert_rules")
          .where({ name: PARTNER_RULE_NAME })
          .update({ ...rule, updated_at: scope.db.fn.now() });
      } else {
        await scope.insert("alert_rules", { ...rule, name: PARTNER_RULE_NAME, is_default: false });
      }
    });
    return { ok: true };
  }

  /**
   * Mails the owners when addresses outside the workspace start receiving its alerts: the alerts carry what the
   * workspace watches, and the partner rule can send them anywhere (docs/product-rules.md#partner-api). Outside means
   * not a member's address; only addresses the rule did not already have count, so a repeated call mails nobody. The
   * owners are the workspace's; a provisioned child has no members, so its partner's owners are told instead. Queued
   * in the subscription's transaction: mailed exactly when the change commits.
   */
  private async tellOwnersOfOutsideRecipients(
    scope: WorkspaceScope,
    target: { id: string; name: string },
    added: string[],
  ): Promise<void> {
    if (added.length === 0) return;
    const ownersOf = (ownerScope: WorkspaceScope) =>
      ownerScope
        .from("memberships as m")
        .join("users as u", "u.id", "m.user_id")
        .where({ "m.role": "owner" })
        .orderBy("u.email")
        .select<{ email: string; name: string }[]>("u.email", "u.name");
    const members: { email: string }[] = await scope
      .from("memberships as m")
      .join("users as u", "u.id", "m.user_id")
      .select("u.email");
    const memberAddresses = new Set(members.map((member) => normalizeEmail(member.email)));
    const outside = added.filter((email) => !memberAddresses.has(email));
    if (outside.length === 0) return;
    let owners = await ownersOf(scope);
    if (owners.length === 0 && target.id !== this.callerWorkspaceId) {
      owners = await ownersOf(new WorkspaceScope(scope.db, this.callerWorkspaceId));
    }
    const base = this.config.publicBaseUrl.replace(/\/+$/, "");
    for (const owner of owners) {
      await enqueueEmail(
        this.services.jobs,
        {
          to: owner.email,
          subject: `Alerts of ${target.name} now go to an address outside the workspace`,
          text:
            `Hi ${owner.name},\n\n` +
            `${this.workspace.caller.email} subscribed these addresses, which are not members of ${target.name}, to ` +
            `its immediate alerts through the partner API:\n\n` +
            outside.map((email) => `- ${email}\n`).join("") +
            `\nEach of them now receives the workspace's alerts by email. If you did not expect this, subscribe ` +
            `again without them (POST ${base}/v1/workspaces/${target.id}/alerts/subscribe), or delete the alert ` +
            `rule named "${PARTNER_RULE_NAME}".\n`,
        },
        scope.db as Knex.Transaction,
      );
    }
  }

  /**
   * Registers the workspace's monitor of a type, or updates the existing one (PATCH semantics on `label`, `cadence`,
   * `enabled`): one statement keyed by the unique (workspace_id, monitor_type), so concurrent registrations of one
   * type end with one monitor.
   */
  async registerMonitor(
    workspaceId: string,
    input: Schemas["PartnerMonitorCreate"],
  ): Promise<Schemas["PartnerMonitor"]> {
    const target = await this.reach(workspaceId);
    if (input.workspace_id !== workspaceId) {
      throw invalid(["body", "workspace_id"], "must equal the workspace_id of the path");
    }
    const { rows } = await target.scope.raw<PartnerMonitor>(
      `INSERT INTO partner_monitors AS m (workspace_id, monitor_type, label, cadence, enabled, config_json)
       VALUES (:workspace_id, :monitor_type, :label, coalesce(:cadence, 'daily'), coalesce(:enabled, true),
               :config_json::jsonb)
       ON CONFLICT (workspace_id, monitor_type) DO UPDATE SET
         label = CASE WHEN :label_given THEN EXCLUDED.label ELSE m.label END,
         cadence = coalesce(:cadence, m.cadence),
         enabled = coalesce(:enabled, m.enabled),
         updated_at = now()
       RETURNING m.*`,
      {
        monitor_type: input.monitor_type,
        label: input.label ?? null,
        label_given: input.label !== undefined,
        cadence: input.cadence ?? null,
        enabled: input.enabled ?? null,
        config_json: input.config_json == null ? null : JSON.stringify(input.config_json),
      },
    );
    const monitor = rows[0]!;
    const [figures] = await this.figures(target, [monitor]);
    return {
      id: monitor.id,
      workspace_id: monitor.workspace_id,
      monitor_type: monitor.monitor_type,
      label: monitor.label,
      cadence: monitor.cadence,
      enabled: monitor.enabled,
      config_json: monitor.config_json,
      last_event_at: figures!.last_event_at ? figures!.last_event_at.toISOString() : null,
      last_run_at: figures!.last_run_at ? figures!.last_run_at.toISOString() : null,
    };
  }

  /** One item per registered monitor, in monitor-type order. */
  async monitorHealth(workspaceId: string): Promise<Schemas["PartnerMonitorHealth"][]> {
    const target = await this.reach(workspaceId);
    const monitors = await target.scope.query(PartnerMonitor).select("id", "monitor_type", "enabled");
    if (monitors.length === 0) return [];
    const figures = await this.figures(target, monitors);
    return figures
      .sort((a, b) => MONITOR_TYPES.indexOf(a.monitor_type) - MONITOR_TYPES.indexOf(b.monitor_type))
      .map(monitorHealth);
  }

  /**
   * A page of monitor events in ascending (`detected_at`, `id`, monitor-type) order after the cursor. Only events
   * detected before the settled horizon are listed, so no event committed later can sort before a page already
   * served: a partner paging while events arrive sees each exactly once (docs/product-rules.md#partner-api).
   */
  async listEvents(workspaceId: string, filters: EventFilters): Promise<Schemas["PartnerEventPage"]> {
    const after: CursorKey | null = filters.cursor === undefined ? null : decodeCursor(filters.cursor);
    const target = await this.reach(workspaceId);
    const limit = filters.limit ?? DEFAULT_PAGE_SIZE;
    const horizon = await this.settledHorizon();
    const conditions: string[] = [];
    const bindings: Record<string, Knex.Value> = {
      history_days: limitsOf(target.plan).history_days,
      horizon,
      fetch: limit + 1,
    };
    if (filters.since !== undefined) {
      conditions.push("e.detected_at >= :since::timestamptz");
      bindings.since = filters.since;
    }
    if (filters.min_severity !== undefined) {
      conditions.push("array_position(:severities::text[], e.severity) >= array_position(:severities::text[], :min)");
      bindings.severities = [...SEVERITIES];
      bindings.min = filters.min_severity;
    }
    if (filters.monitor_type !== undefined) {
      conditions.push("t.monitor_type = :monitor_type");
      bindings.monitor_type = filters.monitor_type;
    }
    if (after) {
      // The index orders by (detected_at, id); the rank breaks ties between the types of one event.
      conditions.push(
        `(e.detected_at, e.id) >= (:after_at::timestamptz, :after_id::uuid)
         AND (e.detected_at, e.id, ${monitorRankSql("t.monitor_type")}) > (:after_at::timestamptz, :after_id::uuid, :after_rank)`,
      );
      bindings.after_at = after.detected_at;
      bindings.after_id = after.event_id;
      bindings.after_rank = after.rank;
    }
    const { rows } = await target.scope.raw<PageRow>(
      `SELECT page.*,
              coalesce((SELECT json_agg(json_build_object(
                  'captured_at', ${isoTimestamp("v.created_at")}, 'excerpt', v.excerpt, 'title', v.title,
                  'url', v.source_url) ORDER BY v.created_at, v.id)
                FROM evidence v WHERE v.event_id = page.id), '[]'::json) AS evidence
         FROM (SELECT e.id, e.workspace_id, m.id AS monitor_id, t.monitor_type, e.severity, c.name AS subject,
                      e.title, e.summary, e.confidence_score AS confidence,
                      ${isoTimestamp("e.detected_at")} AS detected_at,
                      to_char(e.detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at,
                      ${monitorRankSql("t.monitor_type")} AS rank
                 FROM events e
                 JOIN competitors c ON c.id = e.competitor_id AND c.workspace_id = e.workspace_id
                 LEFT JOIN sources s ON s.id = e.source_id AND s.workspace_id = e.workspace_id
                 CROSS JOIN LATERAL unnest(${monitorTypesSql("e", "s")}) AS t(monitor_type)
                 JOIN partner_monitors m ON m.workspace_id = e.workspace_id AND m.monitor_type = t.monitor_type
                                        AND m.enabled
                WHERE e.workspace_id = :workspace_id
                  AND e.detected_at >= now() - make_interval(days => :history_days)
                  AND e.detected_at < :horizon::timestamptz
                  ${conditions.map((c) => `AND ${c}`).join("\n                  ")}
                ORDER BY e.detected_at, e.id, rank
                LIMIT :fetch) page
        ORDER BY page.cursor_at, page.id, page.rank`,
      bindings,
    );
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return {
      events: items.map((row) => ({
        id: row.id,
        workspace_id: row.workspace_id,
        monitor_id: row.monitor_id,
        monitor_type: row.monitor_type,
        severity: row.severity,
        subject: row.subject,
        title: row.title,
        summary: row.summary,
        confidence: row.confidence,
        detected_at: row.detected_at,
        evidence: row.evidence,
      })),
      next_cursor:
        rows.length > limit && last
          ? encodeCursor({ detected_at: last.cursor_at, event_id: last.id, rank: last.rank })
          : null,
    };
  }

  /**
   * The live digest: the events of the period ending now seen through the workspace's enabled monitors, grouped by
   * monitor type (never the stored digests). Dismissed events are left out, as in stored digests
   * (docs/product-rules.md#digest-content).
   */
  async digest(workspaceId: string, period: PeriodType): Promise<Schemas["PartnerDigest"]> {
    const target = await this.reach(workspaceId);
    const end = new Date();
    const start = new Date(end.getTime() - PERIOD_MS[period]);
    const { rows } = await target.scope.raw<DigestEvent>(
      `SELECT e.id, t.monitor_type, e.severity, e.title, e.summary, c.name AS competitor_name, e.detected_at,
              ${eventSourceUrl("s", { orCompetitorSite: false })} AS source_url
         FROM events e
         JOIN competitors c ON c.id = e.competitor_id AND c.workspace_id = e.workspace_id
         LEFT JOIN sources s ON s.id = e.source_id AND s.workspace_id = e.workspace_id
         CROSS JOIN LATERAL unnest(${monitorTypesSql("e", "s")}) AS t(monitor_type)
         JOIN partner_monitors m ON m.workspace_id = e.workspace_id AND m.monitor_type = t.monitor_type AND m.enabled
        WHERE e.workspace_id = :workspace_id
          AND e.detected_at >= :start AND e.detected_at < :end
          AND e.detected_at >= now() - make_interval(days => :history_days)
          AND e.status <> 'dismissed'`,
      { start, end, history_days: limitsOf(target.plan).history_days },
    );
    const events = rows.map((row) => ({ ...row, detected_at: new Date(row.detected_at) }));
    return buildLiveDigest({ workspaceId: target.id, period, start, end, events });
  }

  /**
   * What each monitor's health and timestamps are derived from: the recorded fetch outcomes of the workspace's
   * active sources that feed its type (`consecutive_failures`, `error_message`, `last_fetched_at`, written by
   * detection for every fetch: docs/product-rules.md#failures), and its events of the workspace's competitors.
   */
  private async figures(
    target: Target,
    monitors: Pick<PartnerMonitor, "id" | "monitor_type" | "enabled">[],
  ): Promise<MonitorFigures[]> {
    const feeds = MONITOR_TYPES.flatMap((type) => FEEDING_SOURCE_TYPES[type].map((kind) => [type, kind] as const));
    const { rows } = await target.scope.raw<FigureRow>(
      `WITH wanted AS (SELECT unnest(:types::text[]) AS monitor_type),
            feeds AS (SELECT * FROM unnest(:feed_types::text[], :feed_kinds::text[]) AS f(monitor_type, source_type)),
            fed AS (
              SELECT f.monitor_type, s.id, s.url, s.error_message, s.last_error_at, s.last_fetched_at,
                     s.consecutive_failures
                FROM feeds f
                JOIN sources s ON s.source_type = f.source_type
               WHERE s.workspace_id = :workspace_id AND s.is_active
                 AND f.monitor_type IN (SELECT monitor_type FROM wanted)),
            runs AS (
              SELECT monitor_type, count(*)::int AS sources,
                     count(*) FILTER (WHERE last_fetched_at IS NULL)::int AS never_fetched,
                     count(*) FILTER (WHERE consecutive_failures > 0)::int AS failing,
                     coalesce(max(consecutive_failures), 0)::int AS consecutive_failures,
                     max(last_fetched_at) AS last_run_at
                FROM fed GROUP BY monitor_type),
            worst AS (
              SELECT DISTINCT ON (monitor_type) monitor_type, url, error_message
                FROM fed WHERE consecutive_failures > 0
               ORDER BY monitor_type, consecutive_failures DESC, last_error_at DESC NULLS LAST, id),
            seen AS (
              SELECT t.monitor_type, max(e.detected_at) AS last_event_at,
                     count(*) FILTER (WHERE e.detected_at >= now() - interval '24 hours')::int AS events_24h
                FROM events e
                JOIN competitors c ON c.id = e.competitor_id AND c.workspace_id = e.workspace_id
                LEFT JOIN sources s ON s.id = e.source_id AND s.workspace_id = e.workspace_id
                CROSS JOIN LATERAL unnest(${monitorTypesSql("e", "s")}) AS t(monitor_type)
               WHERE e.workspace_id = :workspace_id
                 AND e.detected_at >= now() - make_interval(days => :history_days)
                 AND t.monitor_type IN (SELECT monitor_type FROM wanted)
               GROUP BY t.monitor_type)
       SELECT w.monitor_type, coalesce(r.sources, 0) AS sources, coalesce(r.never_fetched, 0) AS never_fetched,
              coalesce(r.failing, 0) AS failing, coalesce(r.consecutive_failures, 0) AS consecutive_failures,
              r.last_run_at, x.url AS worst_url, x.error_message AS worst_error,
              coalesce(n.events_24h, 0) AS events_24h, n.last_event_at
         FROM wanted w
         LEFT JOIN runs r ON r.monitor_type = w.monitor_type
         LEFT JOIN worst x ON x.monitor_type = w.monitor_type
         LEFT JOIN seen n ON n.monitor_type = w.monitor_type`,
      {
        types: monitors.map((m) => m.monitor_type),
        feed_types: feeds.map(([type]) => type),
        feed_kinds: feeds.map(([, kind]) => kind),
        history_days: limitsOf(target.plan).history_days,
      },
    );
    const byType = new Map(rows.map((row) => [row.monitor_type, row]));
    return monitors.map((monitor) => {
      const row = byType.get(monitor.monitor_type)!;
      return {
        monitor_id: monitor.id,
        monitor_type: monitor.monitor_type,
        enabled: monitor.enabled,
        sources: row.sources,
        never_fetched: row.never_fetched,
        failing: row.failing,
        consecutive_failures: row.consecutive_failures,
        worst: row.worst_url === null ? null : { url: row.worst_url, error_message: row.worst_error },
        events_24h: row.events_24h,
        last_event_at: row.last_event_at === null ? null : new Date(row.last_event_at),
        last_run_at: row.last_run_at === null ? null : new Date(row.last_run_at),
      };
    });
  }

  /**
   * The instant before which every event that will ever exist is already committed: the start of the oldest
   * transaction still open on this database (less a small margin), or now. Detection stamps `detected_at` with its
   * transaction's start, so an event committed after this read cannot sort before it; autovacuum and other
   * non-client processes write no events and are not waited for. Read in its own statement, before the page's
   * snapshot is taken: a transaction that commits in between is then either counted here or visible to the page.
   */
  private async settledHorizon(): Promise<Date> {
    const { rows } = await this.db.raw<{ rows: { horizon: Date }[] }>(
      `SELECT least(statement_timestamp(), min(a.xact_start)) - make_interval(secs => ?) AS horizon
         FROM pg_stat_activity a
        WHERE a.datname = current_database() AND a.backend_type = 'client backend'
          AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL`,
      [SETTLE_MARGIN_MS / 1000],
    );
    return rows[0]!.horizon;
  }

  /** The workspaces row of `workspaceId` when the caller may reach it: its own, or one of its children. */
  private reachable(workspaceId: string): Knex.QueryBuilder {
    return this.db("workspaces")
      .where({ id: workspaceId })
      .where((q) => q.where({ id: this.callerWorkspaceId }).orWhere({ parent_workspace_id: this.callerWorkspaceId }));
  }

  /**
   * The workspace a call works on, or 404. The caller's own plan comes from the caller (src/auth/context.ts), a
   * child's from its row.
   */
  private async reach(workspaceId: string): Promise<Target> {
    const row = await this.reachable(workspaceId).first<{ id: string; plan: PlanName } | undefined>("id", "plan");
    if (!row) throw notFound("Workspace");
    const plan = row.id === this.callerWorkspaceId ? this.workspace.caller.plan : row.plan;
    const scope = row.id === this.callerWorkspaceId ? this.workspace.scope : new WorkspaceScope(this.db, row.id);
    return { id: row.id, plan, scope };
  }
}

interface PageRow {
  id: string;
  workspace_id: string;
  monitor_id: string;
  monitor_type: MonitorType;
  severity: Severity;
  subject: string;
  title: string;
  summary: string;
  confidence: number;
  detected_at: string;
  cursor_at: string;
  rank: number;
  evidence: Schemas["PartnerEventEvidence"][];
}

interface FigureRow {
  monitor_type: MonitorType;
  sources: number;
  never_fetched: number;
  failing: number;
  consecutive_failures: number;
  last_run_at: Date | null;
  worst_url: string | null;
  worst_error: string | null;
  events_24h: number;
  last_event_at: Date | null;
}
