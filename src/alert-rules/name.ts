/**
 * The generated name of an alert rule (docs/product-rules.md#alert-rules: "High+ pricing changes — Acme", "All changes
 * — every competitor"). Grammar: `<severity part> <type part> — <competitor part>`, where
 * - severity part: `low` → "All" (every severity matches), `medium` → "Medium+", `high` → "High+", `critical` →
 *   "Critical" (nothing ranks above it, so no "+");
 * - type part: "changes" when every type matches (`null`, or all four listed), else the types in the canonical order
 *   of docs/product-rules.md#enumerations joined as English lists: "pricing changes", "pricing and hiring changes",
 *   "pricing, product and hiring changes";
 * - competitor part: the competitor's name, or "every competitor".
 */
import type { components } from "../../generated/api-types.js";

type EventType = components["schemas"]["EventType"];
type Severity = components["schemas"]["Severity"];

/** The name the partner API (`subscribePartnerAlerts`) gives its rule; this grammar can never produce it. */
export const PARTNER_RULE_NAME = "__partner_default__";

const SEVERITY_PART: Readonly<Record<Severity, string>> = {
  low: "All",
  medium: "Medium+",
  high: "High+",
  critical: "Critical",
};

/**
 * The order of docs/product-rules.md#enumerations, so a rule's name does not depend on the order its types were sent
 * in.
 */
const TYPE_WORDS: ReadonlyArray<readonly [EventType, string]> = [
  ["pricing_change", "pricing"],
  ["product_change", "product"],
  ["hiring_change", "hiring"],
  ["narrative_change", "narrative"],
];

export interface RuleNameParts {
  severity_threshold: Severity;
  event_types: readonly EventType[] | null;
  /** The covered competitor's name; `null` for every competitor. */
  competitor_name: string | null;
}

export function alertRuleName(rule: RuleNameParts): string {
  return `${SEVERITY_PART[rule.severity_threshold]} ${typePart(rule.event_types)} — ${rule.competitor_name ?? "every competitor"}`;
}

function typePart(types: readonly EventType[] | null): string {
  const words = TYPE_WORDS.filter(([type]) => types === null || types.includes(type)).map(([, word]) => word);
  if (words.length === TYPE_WORDS.length) return "changes";
  const list = words.length === 1 ? words[0] : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
  return `${list} changes`;
}
