/**
 * Severity ordering, one place for every comparison (docs/product-rules.md#enumerations: low < medium < high <
 * critical).
 */
import type { Severity } from "../detection/types.js";

export const SEVERITIES: readonly Severity[] = ["low", "medium", "high", "critical"];

export function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}

/** Thresholds are inclusive (docs/product-rules.md#validation): `severity` ≥ `threshold`. Unknown values never pass. */
export function severityAtLeast(severity: string, threshold: string): boolean {
  const rank = SEVERITIES.indexOf(severity as Severity);
  const minimum = SEVERITIES.indexOf(threshold as Severity);
  return rank >= 0 && minimum >= 0 && rank >= minimum;
}

export function maxSeverity(...values: Severity[]): Severity {
  return values.reduce<Severity>((a, b) => (SEVERITIES.indexOf(b) > SEVERITIES.indexOf(a) ? b : a), "low");
}

/** How a severity reads in messages (emails, Slack, digests). */
export const SEVERITY_LABEL: Readonly<Record<Severity, string>> = {
  low: "Low",
  medium: "Medium",
  high: "High",
  critical: "Critical",
};
