/**
 * Pricing read from saved real pricing pages (test/fixtures/real-pages/pricing/, origins in its README): what the
 * engine takes from a page nobody here wrote, and what it must not take.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { extract } from "../../src/detection/extract/index.js";

const page = (name: string) => readFileSync(new URL(`../fixtures/real-pages/pricing/${name}`, import.meta.url), "utf8");

describe("real pricing pages", () => {
  it("Cirrus CI (MkDocs prose): the one priced offer beside its heading, named without the theme's ¶ permalink", () => {
    const { pricing } = extract(page("cirrus-ci-2020-12.html"), {
      url: "https://cirrus-ci.org/pricing/",
      contentType: "text/html; charset=utf-8",
      fetchMethod: "http",
    });
    // "pay $10/seat/month" under "Compute Services". The plans named in list items ("a very affordable $10 a month
    // plan"), the compute-credit rates ("1000 minutes … for 5 compute credits") and "Pay 2 cents" are running text in
    // lists, not offers the page prices as such: none of them is read.
    expect(
      pricing.map(({ name, amount, currency, period, kind, origin }) => ({
        name,
        amount,
        currency,
        period,
        kind,
        origin,
      })),
    ).toEqual([
      { name: "Compute Services", amount: 10, currency: "USD", period: "month", kind: undefined, origin: "token" },
    ]);
  });
});
