/**
 * Learned rules (docs/product-rules.md#learned-rules): what detection learns on a source when a member dismisses one
 * of its events with a reason. A rule names the kind of change by the event's type and subject (the region or record
 * the classifier says the event is about: `narrative:hero`, `narrative:text`, `product:item:…`), so a rotating banner
 * dismissed once stops raising events while a change elsewhere on the page still does. Price changes never teach and
 * are never touched: a missed price change is the worst failure this product can have.
 */
import type { WorkspaceScope } from "../db/tenancy.js";
import type { EventDraft, Severity } from "../detection/types.js";
import type { Schemas } from "../http/schemas.js";

export type DismissalReason = Schemas["DismissalReason"];
type Effect = Schemas["LearnedRuleEffect"];

/** The tag of an event a `not_relevant` rule lowered: immediate alerts leave such events out. */
export const LOWERED_BY_LEARNED_RULE = "lowered-by-learned-rule";

const EFFECT: Record<DismissalReason, Effect> = {
  noise: "suppress",
  wrong: "suppress",
  not_relevant: "lower_severity",
};
const ONE_LEVEL_LOWER: Record<Severity, Severity> = { critical: "high", high: "medium", medium: "low", low: "low" };

/** The fields of a rule that decide what it covers and does. */
export interface ApplicableRule {
  event_type: string;
  subject: string;
  effect: Effect;
}

const NARRATIVE = "narrative:";

/**
 * Whether a rule covers a change: the same type and subject, or a narrative change whose every field (`narrative:` then
 * fields joined by `+`) the rule names.
 */
function covers(rule: ApplicableRule, draft: EventDraft): boolean {
  if (rule.event_type !== draft.event_type) return false;
  if (rule.subject === draft.subject) return true;
  const fields = (subject: string) =>
    subject.startsWith(NARRATIVE) ? subject.slice(NARRATIVE.length).split("+") : null;
  const ruled = fields(rule.subject);
  const changed = fields(draft.subject);
  return ruled !== null && changed !== null && changed.every((field) => ruled.includes(field));
}

/**
 * The drafts a source's rules leave: a suppressed kind of change raises nothing; a lowered one is one severity level
 * lower and tagged so that immediate alerts skip it. Pricing events pass untouched.
 */
export function applyLearnedRules(rules: readonly ApplicableRule[], drafts: EventDraft[]): EventDraft[] {
  if (rules.length === 0) return drafts;
  const out: EventDraft[] = [];
  for (const draft of drafts) {
    const matching = draft.event_type === "pricing_change" ? [] : rules.filter((rule) => covers(rule, draft));
    if (matching.some((rule) => rule.effect === "suppress")) continue;
    if (matching.length === 0) {
      out.push(draft);
      continue;
    }
    out.push({
      ...draft,
      severity: ONE_LEVEL_LOWER[draft.severity],
      tags: [...draft.tags, LOWERED_BY_LEARNED_RULE],
      confidence_reasoning: `${draft.confidence_reasoning} Severity lowered one level: a member dismissed this kind of change on this source as not relevant.`,
    });
  }
  return out;
}

/** A source's rules, as the pipeline applies them. */
export async function rulesOfSource(scope: WorkspaceScope, sourceId: string): Promise<ApplicableRule[]> {
  return scope.from("learned_rules").where({ source_id: sourceId }).select("event_type", "subject", "effect");
}

/**
 * Learns from an event dismissed with a reason, in the caller's transaction: one rule per source, type and subject
 * (a second dismissal of the same kind of change replaces the reason). Returns the rule's id, or null when the event
 * teaches nothing: a pricing event, or one whose source no longer exists.
 */
export async function learnFromDismissal(
  scope: WorkspaceScope,
  eventId: string,
  reason: DismissalReason,
): Promise<string | null> {
  const event = await scope
    .from("events as e")
    .join("sources as s", function () {
      this.on("s.id", "e.source_id").andOn("s.workspace_id", "e.workspace_id");
    })
    .where("e.id", eventId)
    .first("e.id", "e.source_id", "e.event_type", "e.subject", "e.title");
  if (!event || event.event_type === "pricing_change") return null;
  const [rule] = await scope
    .insert("learned_rules", {
      source_id: event.source_id,
      event_id: event.id,
      event_title: event.title,
      reason,
      effect: EFFECT[reason],
      event_type: event.event_type,
      subject: event.subject,
    })
    .onConflict(["source_id", "event_type", "subject"])
    .merge(["event_id", "event_title", "reason", "effect", "created_at"])
    .returning("id");
  return rule.id;
}
