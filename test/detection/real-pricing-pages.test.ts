/**
 * Pricing read from saved real SaaS pricing pages (test/fixtures/real-pages/pricing/, origins in its README): what the
 * engine takes from pages nobody here wrote (plan cards, struck-through list prices beside promotions, add-on
 * sections, usage meters, prose), and what it must not take (comparison grids, a second price option).
 */
import { describe, expect, it } from "vitest";
import { PRICING_PAGES, readPricingPage, scorePricingPages } from "./pricing-pages-corpus.js";

describe("real pricing pages", () => {
  for (const page of PRICING_PAGES) {
    it(`${page.file}: every record the page states, as it states it`, () => {
      const { named, context } = readPricingPage(page);
      const expectedNames = new Set(page.records.map((record) => record.name));
      // Named records exactly; a record the page names only through its context (a prose page) may be read so.
      expect([...named, ...context.filter((record) => expectedNames.has(record.name))]).toEqual(page.records);
    });
  }

  it("the corpus score counts the prices the engine does not read as missed, and nothing as wrong", () => {
    const scores = scorePricingPages();
    const total = (field: "expected" | "right" | "wrong" | "missed") =>
      scores.reduce((sum, score) => sum + score[field], 0);
    expect(total("wrong")).toBe(0);
    expect(total("missed")).toBe(PRICING_PAGES.reduce((sum, page) => sum + page.not_read.length, 0));
    expect(total("right") + total("missed")).toBe(total("expected"));
  });
});
