/**
 * Which `immediate` alert rules an event satisfies, and which channels it is sent on
 * (docs/product-rules.md#immediate-alerts, and the plan flags of docs/product-rules.md#plans-and-limits). Pure: the
 * consumer loads the rows, these functions decide.
 */
import type { components } from "../../generated/api-types.js";
import { severityAtLeast } from "../lib/severity.js";
import { monitorTypesOf } from "../partner/monitor-types.js";
import type { PlanLimits } from "../workspaces/plans.js";

type Schemas = components["schemas"];
export type Severity = Schemas["Severity"];
export type DeliveryChannel = Schemas["DeliveryChannel"];

/** The fields of a rule that decide whether an event matches it. */
export interface MatchableRule {
  competitor_id: string | null;
  event_types_json: string[] | null;
  severity_threshold: Severity;
  confidence_threshold: number;
  delivery_channels_json: DeliveryChannel[];
  /** The partner rule's monitor types (docs/product-rules.md#partner-api); null or absent = no such filter. */
  monitor_types_json?: string[] | null;
}

/** The fields of an event a rule looks at. */
export interface MatchableEvent {
  competitor_id: string;
  event_type: string;
  severity: Severity;
  confidence_score: number;
  /** For rules limited to partner monitor types: the event's tags and its source's type. */
  tags_json?: string[];
  source_type?: string | null;
}

export { severityAtLeast };

/**
 * `competitor_id` null = every competitor, `event_types` null = every type; thresholds are inclusive
 * (docs/product-rules.md#validation: severity ≥ threshold and confidence ≥ threshold).
 */
export function ruleMatches(rule: MatchableRule, event: MatchableEvent): boolean {
  return (
    (rule.competitor_id === null || rule.competitor_id === event.competitor_id) &&
    (rule.event_types_json === null || rule.event_types_json.includes(event.event_type)) &&
    severityAtLeast(event.severity, rule.severity_threshold) &&
    event.confidence_score >= rule.confidence_threshold &&
    (rule.monitor_types_json == null || seenThrough(event).some((type) => rule.monitor_types_json!.includes(type)))
  );
}

/** The partner monitor types an event is seen through (docs/product-rules.md#partner-api). */
function seenThrough(event: MatchableEvent): string[] {
  return monitorTypesOf({
    event_type: event.event_type,
    source_type: event.source_type ?? null,
    tags: event.tags_json ?? [],
  });
}

/**
 * The channels an event goes out on: the union over the matching rules, so several matching rules still send one
 * email per member and one Slack message. Immediate alerts need the plan's `realtime`, the Slack channel also `slack`
 * and a connected webhook (docs/product-rules.md#immediate-alerts).
 */
export function channelsFor(
  matching: readonly MatchableRule[],
  limits: Pick<PlanLimits, "realtime" | "slack">,
  slackConnected: boolean,
): Set<DeliveryChannel> {
  const channels = new Set<DeliveryChannel>();
  if (!limits.realtime) return channels;
  for (const rule of matching) for (const channel of rule.delivery_channels_json) channels.add(channel);
  if (!limits.slack || !slackConnected) channels.delete("slack");
  return channels;
}
