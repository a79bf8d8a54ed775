import { describe, expect, it } from "vitest";
import { diffExtractions, isEmptyDiff } from "../../src/detection/diff/diff.js";
import type { ContentItem, Extraction, JobPosting, PricingPlan } from "../../src/detection/types.js";

function plan(overrides: Partial<PricingPlan> & { name: string }): PricingPlan {
  return {
    key: overrides.name.toLowerCase(),
    amount: 49,
    currency: "USD",
    period: "month",
    is_free: false,
    origin: "card",
    features: [],
    ...overrides,
  };
}

function job(overrides: Partial<JobPosting> & { key: string }): JobPosting {
  return { title: "Engineer", location: null, department: null, url: null, origin: "jsonld", ...overrides };
}

function item(overrides: Partial<ContentItem> & { key: string }): ContentItem {
  return { title: overrides.key, date: null, url: null, summary: null, ...overrides };
}

function extraction(overrides: Partial<Extraction> = {}): Extraction {
  return {
    version: 1,
    text: "Acme helps teams ship faster\nPricing that scales with you",
    pricing: [],
    jobs: [],
    items: [],
    narrative: { title: "Acme", meta_description: null, h1: ["Ship faster"], h2: [], hero: null },
    signals: { bot_challenge: false },
    ...overrides,
  };
}

describe("diffExtractions", () => {
  it("returns an empty diff for identical extractions", () => {
    const a = extraction({
      pricing: [plan({ name: "Pro", features: ["SSO"] })],
      jobs: [job({ key: "1" })],
      items: [item({ key: "a" })],
    });
    const diff = diffExtractions(a, structuredClone(a));
    expect(diff).toEqual({
      pricing: [],
      jobs: [],
      items: [],
      narrative: [],
      text: { added: [], removed: [], change_ratio: 0 },
    });
    expect(isEmptyDiff(diff)).toBe(true);
  });

  it("reports added, removed and changed plans sorted by key, with the changed fields in the issue's order", () => {
    const before = extraction({
      pricing: [
        plan({ name: "Team", amount: 99 }),
        plan({ name: "Free", amount: 0, is_free: true }),
        plan({ name: "Pro" }),
      ],
    });
    const after = extraction({
      pricing: [
        plan({ name: "Pro", amount: 59, features: ["SSO"] }),
        plan({ name: "Enterprise", amount: null }),
        plan({ name: "Team", amount: 99 }),
      ],
    });
    const diff = diffExtractions(before, after);
    expect(diff.pricing.map((c) => [c.kind, c.key, c.fields])).toEqual([
      ["added", "enterprise", []],
      ["removed", "free", []],
      ["changed", "pro", ["amount", "features"]],
    ]);
    expect(diff.pricing[0]!.before).toBeNull();
    expect(diff.pricing[0]!.after).toMatchObject({ name: "Enterprise", amount: null });
    expect(diff.pricing[1]!.after).toBeNull();
    expect(diff.pricing[2]!.before).toMatchObject({ amount: 49 });
    expect(diff.pricing[2]!.after).toMatchObject({ amount: 59 });
    expect(isEmptyDiff(diff)).toBe(false);
  });

  it("compares every plan field but not where the plan was read from, and features as a set", () => {
    const before = extraction({ pricing: [plan({ name: "Pro", features: ["SSO", "API  access"], origin: "token" })] });
    const reordered = extraction({
      pricing: [plan({ name: "Pro", features: ["API access", "SSO"], origin: "jsonld" })],
    });
    expect(diffExtractions(before, reordered).pricing).toEqual([]);

    const everything = extraction({
      pricing: [
        plan({
          key: "pro",
          name: "PRO",
          amount: 490,
          currency: "EUR",
          period: "year",
          is_free: true,
          features: ["SSO"],
        }),
      ],
    });
    // A yearly amount is not compared with a monthly one (a page's period switch is no price change).
    expect(diffExtractions(before, everything).pricing[0]!.fields).toEqual(["currency", "is_free", "name", "features"]);
    const sameTerms = extraction({
      pricing: [plan({ key: "pro", name: "Pro", amount: 59, features: ["SSO", "API access"] })],
    });
    expect(diffExtractions(before, sameTerms).pricing[0]!.fields).toEqual(["amount"]);
    const otherPeriod = extraction({
      pricing: [plan({ key: "pro", name: "Pro", period: "year", features: ["SSO", "API access"] })],
    });
    expect(diffExtractions(before, otherPeriod).pricing[0]!.fields).toEqual(["period"]);
  });

  it("reports opened and closed jobs, and a retitled job with the same key as changed", () => {
    const before = extraction({
      jobs: [job({ key: "j1", title: "Backend Engineer", location: "Berlin" }), job({ key: "j2", title: "Designer" })],
    });
    const after = extraction({
      jobs: [job({ key: "j1", title: "Senior Backend Engineer", location: "Remote" }), job({ key: "j3", title: "PM" })],
    });
    const diff = diffExtractions(before, after);
    expect(diff.jobs.map((c) => [c.kind, c.key, c.fields])).toEqual([
      ["changed", "j1", ["title", "location"]],
      ["removed", "j2", []],
      ["added", "j3", []],
    ]);
  });

  it("does not count a job's URL changing (tracking parameters) as a change", () => {
    const before = extraction({ jobs: [job({ key: "j1", url: "https://acme.com/jobs/1?utm=a" })] });
    const after = extraction({ jobs: [job({ key: "j1", url: "https://acme.com/jobs/1?utm=b" })] });
    expect(diffExtractions(before, after).jobs).toEqual([]);
  });

  it("reports added, removed and changed items by key", () => {
    const before = extraction({ items: [item({ key: "b", title: "Old" }), item({ key: "c", summary: "x" })] });
    const after = extraction({ items: [item({ key: "c", summary: "y" }), item({ key: "a", title: "New" })] });
    const diff = diffExtractions(before, after);
    expect(diff.items.map((c) => [c.kind, c.key, c.fields])).toEqual([
      ["added", "a", []],
      ["removed", "b", []],
      ["changed", "c", ["summary"]],
    ]);
  });

  it("keeps the first record when an extraction repeats a key", () => {
    const before = extraction({ pricing: [plan({ name: "Pro" })] });
    const after = extraction({ pricing: [plan({ name: "Pro" }), plan({ name: "Pro", amount: 99 })] });
    expect(diffExtractions(before, after).pricing).toEqual([]);
  });

  it("compares narrative strings and heading lists joined in page order", () => {
    const before = extraction({
      narrative: { title: "Acme", meta_description: "Old", h1: ["Ship faster"], h2: ["A", "B"], hero: "Hero" },
    });
    const after = extraction({
      narrative: { title: "Acme", meta_description: null, h1: ["Ship  faster", "Today"], h2: ["B", "A"], hero: "Hero" },
    });
    expect(diffExtractions(before, after).narrative).toEqual([
      { field: "meta_description", before: "Old", after: null },
      { field: "h1", before: "Ship faster", after: "Ship faster | Today" },
      { field: "h2", before: "A | B", after: "B | A" },
    ]);
  });

  it("ignores narrative differences that are only whitespace or inside masked placeholders", () => {
    const before = extraction({
      narrative: {
        title: " Acme\n",
        meta_description: "Updated ‹date›",
        h1: ["Ship faster"],
        h2: [],
        hero: "Join ‹n› teams",
      },
    });
    const after = extraction({
      narrative: {
        title: "Acme",
        meta_description: "Updated  ‹time›",
        h1: [" Ship faster "],
        h2: [""],
        hero: "Join ‹n› ‹n› teams",
      },
    });
    expect(isEmptyDiff(diffExtractions(before, after))).toBe(true);
  });

  it("lists added and removed text lines in page order with a word-level change ratio", () => {
    const before = extraction({ text: "Pro plan costs money\nContact us\nOld footer note" });
    const after = extraction({ text: "Pro plan costs less money\nContact us\nNew line here" });
    const diff = diffExtractions(before, after);
    expect(diff.text.removed).toEqual(["Pro plan costs money", "Old footer note"]);
    expect(diff.text.added).toEqual(["Pro plan costs less money", "New line here"]);
    // 1 word added in the first block, 3 + 3 replaced in the last; 9 + 10 words in all.
    expect(diff.text.change_ratio).toBe(Math.round((7 / 19) * 10_000) / 10_000);
  });

  it("reports a whole new page as fully changed", () => {
    const diff = diffExtractions(extraction({ text: "alpha beta" }), extraction({ text: "gamma delta" }));
    expect(diff.text).toEqual({ added: ["gamma delta"], removed: ["alpha beta"], change_ratio: 1 });
  });

  it("treats whitespace-only text differences, re-flowed blocks and masked-token changes as no change", () => {
    const before = extraction({
      text: "Acme helps teams ship faster\n\nPricing   that scales with you\nUpdated ‹date›, ‹time›\nSign up",
    });
    const after = extraction({
      text: "Acme helps teams\nship faster\nPricing that scales with you \r\nUpdated ‹date›\nSign up\n",
    });
    const diff = diffExtractions(before, after);
    expect(diff.text).toEqual({ added: [], removed: [], change_ratio: 0 });
    expect(isEmptyDiff(diff)).toBe(true);
  });

  it("gives a typo fix on a long page a change ratio below 0.02", () => {
    const paragraph = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} explains what Acme does for teams.`);
    const before = extraction({ text: [...paragraph, "We recieve feedback daily."].join("\n") });
    const after = extraction({ text: [...paragraph, "We receive feedback daily."].join("\n") });
    const diff = diffExtractions(before, after);
    expect(diff.text.removed).toEqual(["We recieve feedback daily."]);
    expect(diff.text.added).toEqual(["We receive feedback daily."]);
    expect(diff.text.change_ratio).toBeGreaterThan(0);
    expect(diff.text.change_ratio).toBeLessThan(0.02);
  });

  it("caps added and removed lists at 50 lines of at most 500 characters", () => {
    const long = "x".repeat(800);
    const after = extraction({ text: [long, ...Array.from({ length: 70 }, (_, i) => `line ${i}`)].join("\n") });
    const diff = diffExtractions(extraction({ text: "" }), after);
    expect(diff.text.added).toHaveLength(50);
    expect(diff.text.added[0]).toBe("x".repeat(500));
    expect(diff.text.added[49]).toBe("line 48");
    expect(diff.text.removed).toEqual([]);
    expect(diff.text.change_ratio).toBe(1);
  });

  it("still lists changed lines and an exact ratio when more than 1,000 lines changed", () => {
    const lines = Array.from({ length: 1200 }, (_, i) => `line ${i}`);
    const before = extraction({ text: lines.join("\n") });
    const after = extraction({ text: lines.map((l) => `${l} changed`).join("\n") });
    const diff = diffExtractions(before, after);
    expect(diff.text.removed.slice(0, 2)).toEqual(["line 0", "line 1"]);
    expect(diff.text.added.slice(0, 2)).toEqual(["line 0 changed", "line 1 changed"]);
    // 1,200 words added; 2,400 words before, 3,600 after.
    expect(diff.text.change_ratio).toBe(0.2);
  });

  it("returns the same diff whatever the order of records in the extractions", () => {
    const plans = [plan({ name: "A" }), plan({ name: "B" }), plan({ name: "C" })];
    const before = extraction({ pricing: plans });
    const afterA = extraction({ pricing: [plan({ name: "D", amount: 2 }), plan({ name: "B", amount: 1 })] });
    const afterB = extraction({ pricing: [plan({ name: "B", amount: 1 }), plan({ name: "D", amount: 2 })] });
    const reversed = extraction({ pricing: [...plans].reverse() });
    expect(diffExtractions(before, afterA)).toEqual(diffExtractions(reversed, afterB));
    expect(diffExtractions(before, afterA).pricing.map((c) => c.key)).toEqual(["a", "b", "c", "d"]);
  });

  it("pairs a plan removed and one added at the same prices as one plan renamed, in either order", () => {
    const before = extraction({
      pricing: [plan({ name: "Free", amount: 0 }), plan({ name: "Standard" }), plan({ name: "Plus", amount: 99 })],
    });
    const after = extraction({
      pricing: [
        plan({ name: "Business Plus", amount: 99 }),
        plan({ name: "Hobbyist", amount: 0 }),
        plan({ name: "Business" }),
      ],
    });
    const changes = diffExtractions(before, after).pricing;
    expect(changes.map(({ kind, key, before: b, after: a }) => [kind, key, b?.name, a?.name])).toEqual([
      ["renamed", "business", "Standard", "Business"],
      ["renamed", "business plus", "Plus", "Business Plus"],
      ["renamed", "hobbyist", "Free", "Hobbyist"],
    ]);
    // A new price is no rename: the plan went, another came.
    const repriced = extraction({
      pricing: [
        plan({ name: "Free", amount: 0 }),
        plan({ name: "Team", amount: 59 }),
        plan({ name: "Plus", amount: 99 }),
      ],
    });
    expect(diffExtractions(before, repriced).pricing.map((c) => c.kind)).toEqual(["removed", "added"]);
  });

  it("reports nothing when either side is a bot challenge page", () => {
    const page = extraction({ pricing: [plan({ name: "Pro" })] });
    const challenge = extraction({ text: "Checking your browser", signals: { bot_challenge: true } });
    expect(isEmptyDiff(diffExtractions(page, challenge))).toBe(true);
    expect(isEmptyDiff(diffExtractions(challenge, page))).toBe(true);
  });
});
