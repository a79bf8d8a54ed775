import { describe, expect, it } from "vitest";
import { channelsFor, ruleMatches, severityAtLeast, type MatchableRule } from "../../src/alerts/match.js";

const rule = (fields: Partial<MatchableRule> = {}): MatchableRule => ({
  competitor_id: null,
  event_types_json: null,
  severity_threshold: "medium",
  confidence_threshold: 0.5,
  delivery_channels_json: ["email"],
  ...fields,
});

const event = {
  competitor_id: "acme",
  event_type: "pricing_change",
  severity: "high" as const,
  confidence_score: 0.8,
};

describe("severityAtLeast", () => {
  it("orders severities low < medium < high < critical, inclusively", () => {
    expect(severityAtLeast("low", "low")).toBe(true);
    expect(severityAtLeast("medium", "high")).toBe(false);
    expect(severityAtLeast("high", "high")).toBe(true);
    expect(severityAtLeast("critical", "high")).toBe(true);
    expect(severityAtLeast("high", "critical")).toBe(false);
  });
});

describe("ruleMatches", () => {
  it("matches every competitor and type when the rule names none", () => {
    expect(ruleMatches(rule(), event)).toBe(true);
    expect(ruleMatches(rule(), { ...event, competitor_id: "globex", event_type: "hiring_change" })).toBe(true);
  });

  it("matches only the rule's competitor", () => {
    expect(ruleMatches(rule({ competitor_id: "acme" }), event)).toBe(true);
    expect(ruleMatches(rule({ competitor_id: "globex" }), event)).toBe(false);
  });

  it("matches only the rule's event types", () => {
    expect(ruleMatches(rule({ event_types_json: ["product_change", "pricing_change"] }), event)).toBe(true);
    expect(ruleMatches(rule({ event_types_json: ["product_change"] }), event)).toBe(false);
  });

  it("treats both thresholds as inclusive", () => {
    expect(ruleMatches(rule({ severity_threshold: "high", confidence_threshold: 0.8 }), event)).toBe(true);
    expect(ruleMatches(rule({ severity_threshold: "critical" }), event)).toBe(false);
    expect(ruleMatches(rule({ confidence_threshold: 0.81 }), event)).toBe(false);
  });
});

describe("channelsFor", () => {
  const full = { realtime: true, slack: true };

  it("is the union of the matching rules' channels, each once", () => {
    const rules = [rule({ delivery_channels_json: ["email"] }), rule({ delivery_channels_json: ["slack", "email"] })];
    expect([...channelsFor(rules, full, true)].sort()).toEqual(["email", "slack"]);
  });

  it("is empty without the plan's realtime flag", () => {
    expect(
      channelsFor([rule({ delivery_channels_json: ["email", "slack"] })], { realtime: false, slack: true }, true),
    ).toEqual(new Set());
  });

  it("drops Slack without the plan's slack flag or a connected webhook", () => {
    const rules = [rule({ delivery_channels_json: ["email", "slack"] })];
    expect(channelsFor(rules, { realtime: true, slack: false }, true)).toEqual(new Set(["email"]));
    expect(channelsFor(rules, full, false)).toEqual(new Set(["email"]));
  });

  it("is empty when no rule matched", () => {
    expect(channelsFor([], full, true)).toEqual(new Set());
  });
});
