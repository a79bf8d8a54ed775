import { describe, expect, it } from "vitest";
import { alertRuleName } from "../../src/alert-rules/name.js";

describe("alert rule names", () => {
  it("names the examples of docs/product-rules.md#alert-rules exactly", () => {
    expect(
      alertRuleName({ severity_threshold: "high", event_types: ["pricing_change"], competitor_name: "Acme" }),
    ).toBe("High+ pricing changes — Acme");
    expect(alertRuleName({ severity_threshold: "low", event_types: null, competitor_name: null })).toBe(
      "All changes — every competitor",
    );
  });

  it("says Medium+, High+ and Critical for the higher thresholds", () => {
    const name = (severity_threshold: "medium" | "high" | "critical") =>
      alertRuleName({ severity_threshold, event_types: null, competitor_name: null });
    expect(name("medium")).toBe("Medium+ changes — every competitor");
    expect(name("high")).toBe("High+ changes — every competitor");
    expect(name("critical")).toBe("Critical changes — every competitor");
  });

  it("lists two types with 'and' and more with commas, in the canonical order whatever order they were sent in", () => {
    expect(
      alertRuleName({
        severity_threshold: "medium",
        event_types: ["hiring_change", "pricing_change"],
        competitor_name: "Globex",
      }),
    ).toBe("Medium+ pricing and hiring changes — Globex");
    expect(
      alertRuleName({
        severity_threshold: "low",
        event_types: ["hiring_change", "product_change", "pricing_change"],
        competitor_name: null,
      }),
    ).toBe("All pricing, product and hiring changes — every competitor");
  });

  it("says just 'changes' when all four types are listed, as for null", () => {
    expect(
      alertRuleName({
        severity_threshold: "critical",
        event_types: ["narrative_change", "hiring_change", "product_change", "pricing_change"],
        competitor_name: "Acme",
      }),
    ).toBe("Critical changes — Acme");
  });
});
