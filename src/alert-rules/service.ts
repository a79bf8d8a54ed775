/**
 * Alert rules (docs/product-rules.md#alert-rules, spec/alert-rules.tsp). Every query goes through the caller's
 * WorkspaceScope: another workspace's rule, or a competitor of another workspace, is a 404. Plan flags are the
 * caller's.
 */
import type { Knex } from "knex";
import type { components } from "../../generated/api-types.js";
import { Competitor } from "../competitors/models.js";
import { WorkspaceScope } from "../db/tenancy.js";
import { forbidden, notFound } from "../http/errors.js";
import type { Workspace } from "../http/handler.js";
import { PLANS, limitsOf, plansWith, type PlanName } from "../workspaces/plans.js";
import { AlertRule } from "./models.js";
import { PARTNER_RULE_NAME, alertRuleName } from "./name.js";

type Schemas = components["schemas"];
// The generated type marks defaulted fields as required; clients may omit every one of them (the spec's doc).
type AlertRuleRequest = Partial<Schemas["AlertRuleRequest"]>;
type AlertRuleUpdate = Schemas["AlertRuleUpdate"];

/** The spec: "Not paginated: a workspace holds at most 100 rules." */
export const MAX_ALERT_RULES_PER_WORKSPACE = 100;

/** What a rule decides, i.e. every stored field a client chooses. */
interface RuleSettings {
  competitor_id: string | null;
  confidence_threshold: number;
  delivery_channels_json: Schemas["DeliveryChannel"][];
  event_types_json: Schemas["EventType"][] | null;
  frequency: Schemas["AlertFrequency"];
  severity_threshold: Schemas["Severity"];
  notice_types_json: Schemas["SourceNoticeType"][];
}

/**
 * The rule every workspace starts with (docs/product-rules.md#alert-rules: `is_default`, daily, severity medium,
 * email).
 */
const DEFAULT_RULE_SETTINGS: RuleSettings = {
  competitor_id: null,
  confidence_threshold: 0.5,
  delivery_channels_json: ["email"],
  event_types_json: null,
  frequency: "daily",
  severity_threshold: "medium",
  notice_types_json: [],
};

/**
 * Creates the workspace's default rule. Called wherever a workspace is made (`createWorkspaceFor`), inside the
 * transaction that makes it, so no workspace is ever seen without one.
 */
export async function createDefaultAlertRule(db: Knex | Knex.Transaction, workspaceId: string): Promise<AlertRule> {
  const scope = new WorkspaceScope(db, workspaceId);
  return scope.query(AlertRule).insertAndFetch({
    workspace_id: workspaceId,
    ...DEFAULT_RULE_SETTINGS,
    name: alertRuleName({ severity_threshold: "medium", event_types: null, competitor_name: null }),
    is_active: true,
    is_default: true,
  });
}

interface WorkspaceRow {
  slack_webhook_url: string | null;
}

export class AlertRuleService {
  constructor(private readonly workspace: Workspace) {}

  /** The spec: "oldest first (the default rule comes first)". */
  async list(): Promise<AlertRule[]> {
    return this.workspace.scope.query(AlertRule).orderBy([
      { column: "is_default", order: "desc" },
      { column: "created_at", order: "asc" },
      { column: "id", order: "asc" },
    ]);
  }

  /**
   * Absent fields take the spec's request defaults, applied here rather than trusted to the validator's
   * `useDefaults`, so the rule does not depend on how the router is configured.
   */
  async create(input: AlertRuleRequest): Promise<AlertRule> {
    const settings: RuleSettings = {
      competitor_id: input.competitor_id ?? null,
      confidence_threshold: input.confidence_threshold ?? 0.5,
      delivery_channels_json: unique(input.delivery_channels ?? ["email"]),
      event_types_json: input.event_types == null ? null : unique(input.event_types),
      frequency: input.frequency ?? "immediate",
      severity_threshold: input.severity_threshold ?? "medium",
      notice_types_json: unique(input.notice_types ?? []),
    };
    return this.workspace.scope.transaction(async (scope) => {
      // Lock the workspace row so two concurrent creates cannot both pass the 100-rule limit.
      const workspace = await this.workspaceRow(scope).forUpdate();
      const competitorName = await this.competitorName(scope, settings.competitor_id);
      assertPlanAllows(settings, this.workspace.caller.plan, workspace.slack_webhook_url);
      const counted = await scope.query(AlertRule).resultSize();
      if (counted >= MAX_ALERT_RULES_PER_WORKSPACE) {
        throw forbidden(
          `A workspace holds at most ${MAX_ALERT_RULES_PER_WORKSPACE} alert rules; delete one to add another`,
        );
      }
      return scope.query(AlertRule).insertAndFetch({
        workspace_id: this.workspace.caller.workspaceId,
        ...settings,
        name: nameOf(settings, competitorName),
        is_active: true,
        is_default: false,
      });
    });
  }

  /**
   * PATCH semantics of `AlertRuleUpdate`: absent = unchanged; `null` on `competitor_id` / `event_types` = every
   * competitor / type (docs/product-rules.md#patch-semantics). The plan check and the name apply to the resulting rule.
   */
  async update(id: string, input: AlertRuleUpdate): Promise<AlertRule> {
    return this.workspace.scope.transaction(async (scope) => {
      // Locked: the name is derived from the whole row, so two concurrent PATCHes must not interleave.
      const rule = await scope.query(AlertRule).findById(id).forUpdate();
      if (!rule) throw notFound("Alert rule");
      const settings: RuleSettings = {
        competitor_id: input.competitor_id === undefined ? rule.competitor_id : input.competitor_id,
        // Non-nullable fields: `null` leaves them unchanged (docs/product-rules.md#patch-semantics).
        confidence_threshold: input.confidence_threshold ?? rule.confidence_threshold,
        delivery_channels_json: input.delivery_channels ? unique(input.delivery_channels) : rule.delivery_channels_json,
        event_types_json:
          input.event_types === undefined
            ? rule.event_types_json
            : input.event_types === null
              ? null
              : unique(input.event_types),
        frequency: input.frequency ?? rule.frequency,
        severity_threshold: input.severity_threshold ?? rule.severity_threshold,
        notice_types_json: input.notice_types ? unique(input.notice_types) : (rule.notice_types_json ?? []),
      };
      const competitorName = await this.competitorName(scope, settings.competitor_id);
      const workspace = await this.workspaceRow(scope);
      assertPlanAllows(settings, this.workspace.caller.plan, workspace.slack_webhook_url);
      // The partner API finds its rule by the reserved name to replace it; renaming it would orphan it and make the
      // next subscribe add a second rule beside it.
      const name = rule.name === PARTNER_RULE_NAME ? PARTNER_RULE_NAME : nameOf(settings, competitorName);
      return rule.$query(scope.db).patchAndFetch({ ...settings, name });
    });
  }

  /** Any rule may be deleted, the default one included (the spec: the workspace then has no default rule). */
  async delete(id: string): Promise<void> {
    const deleted = await this.workspace.scope.query(AlertRule).deleteById(id);
    if (deleted === 0) throw notFound("Alert rule");
  }

  /** The caller's workspace row, for its Slack webhook (the plan is the caller's). */
  private workspaceRow(scope: WorkspaceScope): Knex.QueryBuilder<WorkspaceRow, WorkspaceRow> {
    return scope.db("workspaces").where({ id: this.workspace.caller.workspaceId }).first("slack_webhook_url");
  }

  /** The covered competitor's name (for the rule's name), or 404 when it is not one of the workspace's. */
  private async competitorName(scope: WorkspaceScope, competitorId: string | null): Promise<string | null> {
    if (competitorId === null) return null;
    const competitor = await scope.query(Competitor).findById(competitorId).select("name");
    if (!competitor) throw notFound("Competitor");
    return competitor.name;
  }
}

/**
 * 403 when the resulting rule needs a plan flag the workspace lacks (docs/product-rules.md#plans-and-limits: `slack`,
 * `realtime`).
 */
function assertPlanAllows(settings: RuleSettings, plan: PlanName, slackWebhookUrl: string | null) {
  const limits = limitsOf(plan);
  const label = PLANS[plan].label;
  if (settings.delivery_channels_json.includes("slack")) {
    if (!limits.slack) {
      throw forbidden(`The ${label} plan does not include Slack alerts; upgrade to ${plansWith("slack")} to use them`);
    }
    // Both request models document it: `slack` needs "a Slack webhook connected to the workspace".
    if (!slackWebhookUrl) {
      throw forbidden("Connect a Slack webhook to the workspace before sending alerts to Slack");
    }
  }
  if (settings.frequency === "immediate" && !limits.realtime) {
    throw forbidden(
      `The ${label} plan does not include immediate alerts; choose daily or weekly, or upgrade to ${plansWith("realtime")}`,
    );
  }
}

function nameOf(settings: RuleSettings, competitorName: string | null): string {
  return alertRuleName({
    severity_threshold: settings.severity_threshold,
    event_types: settings.event_types_json,
    competitor_name: competitorName,
  });
}

/** The spec: "duplicates are ignored". The first occurrence keeps its place. */
function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
