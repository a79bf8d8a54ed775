import { describe, expect, it } from "vitest";
import { classify } from "../../src/detection/classify/classify.js";
import { diffExtractions } from "../../src/detection/diff/diff.js";
import type {
  ClassifyContext,
  ContentItem,
  Extraction,
  JobPosting,
  NarrativeChange,
  PricingPlan,
  RecordChange,
  SnapshotDiff,
} from "../../src/detection/types.js";

const PRICING: ClassifyContext = {
  competitorName: "Acme",
  sourceType: "pricing",
  sourceUrl: "https://acme.com/pricing",
};
const HOMEPAGE: ClassifyContext = { competitorName: "Acme", sourceType: "homepage", sourceUrl: "https://acme.com/" };
const CAREERS: ClassifyContext = { competitorName: "Acme", sourceType: "careers", sourceUrl: "https://acme.com/jobs" };
const CHANGELOG: ClassifyContext = {
  competitorName: "Acme",
  sourceType: "changelog",
  sourceUrl: "https://acme.com/changelog",
};

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

function job(key: string, title: string, overrides: Partial<JobPosting> = {}): JobPosting {
  return {
    key,
    title,
    location: null,
    department: null,
    url: `https://acme.com/jobs/${key}`,
    origin: "jsonld",
    ...overrides,
  };
}

function item(key: string, title: string, overrides: Partial<ContentItem> = {}): ContentItem {
  return { key, title, date: null, url: `https://acme.com/changelog/${key}`, summary: null, ...overrides };
}

function added<T extends { key: string }>(record: T): RecordChange<T> {
  return { kind: "added", key: record.key, before: null, after: record, fields: [] };
}

function removed<T extends { key: string }>(record: T): RecordChange<T> {
  return { kind: "removed", key: record.key, before: record, after: null, fields: [] };
}

function changed<T extends { key: string }>(before: T, after: T, fields: string[]): RecordChange<T> {
  return { kind: "changed", key: after.key, before, after, fields };
}

function diffOf(
  parts: Partial<Omit<SnapshotDiff, "text">> & { text?: Partial<SnapshotDiff["text"]> } = {},
): SnapshotDiff {
  return {
    pricing: parts.pricing ?? [],
    jobs: parts.jobs ?? [],
    items: parts.items ?? [],
    narrative: parts.narrative ?? [],
    text: { added: [], removed: [], change_ratio: 0, ...parts.text },
  };
}

function priceChange(before: Partial<PricingPlan>, after: Partial<PricingPlan>, name = "Pro") {
  return diffOf({ pricing: [changed(plan({ name, ...before }), plan({ name, ...after }), ["amount"])] });
}

function only(events: ReturnType<typeof classify>) {
  expect(events).toHaveLength(1);
  return events[0]!;
}

describe("classify: nothing to report", () => {
  it("returns no event for an empty diff", () => {
    expect(classify(diffOf(), HOMEPAGE)).toEqual([]);
  });

  it("returns no event for a typo fix on a homepage", () => {
    const page = (typo: string): Extraction => ({
      version: 1,
      text: [...Array.from({ length: 40 }, (_, i) => `Block ${i} says what Acme does for busy teams.`), typo].join(
        "\n",
      ),
      pricing: [],
      jobs: [],
      items: [],
      narrative: { title: "Acme", meta_description: null, h1: ["Ship faster"], h2: [], hero: null },
      signals: { bot_challenge: false },
    });
    const diff = diffExtractions(page("We recieve feedback."), page("We receive feedback."));
    expect(diff.text.change_ratio).toBeLessThan(0.02);
    expect(classify(diff, HOMEPAGE)).toEqual([]);
  });
});

describe("classify: pricing", () => {
  it("reports a 20 % price increase as high, with the issue's title, impact, tags, evidence and states", () => {
    const before = plan({ name: "Pro" });
    const after = plan({ name: "Pro", amount: 59 });
    const event = only(classify(diffOf({ pricing: [changed(before, after, ["amount"])] }), PRICING));
    expect(event).toEqual({
      event_type: "pricing_change",
      severity: "high",
      title: "Acme raised Pro from $49 to $59/month",
      summary: "Acme's Pro plan now costs $59/month, up from $49/month (+20.4%).",
      impact_summary: "Prospects comparing on price now see a $10/month gap in your favour on the Pro tier.",
      confidence_score: 0.85,
      confidence_reasoning:
        "The plan was read from one of a set of repeated blocks on the page (a card, a column or a row), each with its name and its price.",
      is_inferred: false,
      tags: ["pricing", "price-increase", "pro"],
      evidence: [
        {
          evidence_type: "before_after",
          title: "Pro plan price",
          excerpt: "Before: $49/month · After: $59/month",
          metadata: { plan: "Pro", before, after, url: "https://acme.com/pricing" },
        },
      ],
      subject: "pricing:plan:pro",
      before_state:
        '{"key":"pro","name":"Pro","amount":49,"currency":"USD","period":"month","is_free":false,"features":[]}',
      after_state:
        '{"key":"pro","name":"Pro","amount":59,"currency":"USD","period":"month","is_free":false,"features":[]}',
    });
  });

  it("grades increases by magnitude: ≥ 20 % high, ≥ 5 % medium, else low", () => {
    const grade = (from: number, to: number) => only(classify(priceChange({ amount: from }, { amount: to }), PRICING));
    expect(grade(50, 60)).toMatchObject({ severity: "high", title: "Acme raised Pro from $50 to $60/month" });
    expect(grade(100, 105)).toMatchObject({ severity: "medium", title: "Acme raised Pro from $100 to $105/month" });
    expect(grade(100, 104)).toMatchObject({ severity: "low", title: "Acme raised Pro from $100 to $104/month" });
    expect(grade(49.99, 54.99).title).toBe("Acme raised Pro from $49.99 to $54.99/month");
  });

  it("keeps sub-cent unit prices exact: $0.0004 → $0.0005 is a 25 % rise, not the same price", () => {
    const rise = only(
      classify(priceChange({ amount: 0.0004, period: null }, { amount: 0.0005, period: null }), PRICING),
    );
    expect(rise).toMatchObject({
      severity: "high",
      title: "Acme raised Pro from $0.0004 to $0.0005",
      summary: "Acme's Pro plan now costs $0.0005, up from $0.0004 (+25%).",
    });
    expect(classify(priceChange({ amount: 0.0004 }, { amount: 0.0004 }), PRICING)).toEqual([]);
  });

  it("reports a price cut as medium from 20 % down, else low", () => {
    const small = only(classify(priceChange({ amount: 59 }, { amount: 49 }), PRICING));
    expect(small).toMatchObject({
      severity: "low",
      title: "Acme cut Pro from $59 to $49/month",
      summary: "Acme's Pro plan now costs $49/month, down from $59/month (−16.9%).",
      tags: ["pricing", "price-decrease", "pro"],
    });
    const large = only(classify(priceChange({ amount: 50 }, { amount: 40 }), PRICING));
    expect(large).toMatchObject({ severity: "medium", title: "Acme cut Pro from $50 to $40/month" });
  });

  it("writes prices with the currency symbol for USD, EUR, GBP and JPY, the ISO code otherwise, and the period", () => {
    const title = (currency: string, period: PricingPlan["period"], from: number, to: number) =>
      only(classify(priceChange({ currency, period, amount: from }, { currency, period, amount: to }, "Team"), PRICING))
        .title;
    expect(title("EUR", "year", 490, 590)).toBe("Acme raised Team from €490 to €590/year");
    expect(title("GBP", "month", 20, 25)).toBe("Acme raised Team from £20 to £25/month");
    expect(title("JPY", "month", 1000, 1200)).toBe("Acme raised Team from ¥1,000 to ¥1,200/month");
    expect(title("CHF", "month", 49, 59)).toBe("Acme raised Team from CHF 49 to CHF 59/month");
    expect(title("USD", null, 49, 59)).toBe("Acme raised Team from $49 to $59");
  });

  it("reports a removed free plan as high", () => {
    const free = plan({ name: "Free", amount: 0, is_free: true });
    const event = only(classify(diffOf({ pricing: [removed(free)] }), PRICING));
    expect(event).toMatchObject({
      severity: "high",
      title: "Acme removed its Free plan",
      summary: "Acme no longer lists its Free plan, the free tier it offered before.",
      tags: ["pricing", "free-tier-removed", "free"],
      subject: "pricing:plan:free",
      after_state: "null",
    });
    expect(event.evidence[0]).toMatchObject({ excerpt: "Before: free · After: no longer listed" });
  });

  it("reports a plan that stopped being free as a removed free tier (high)", () => {
    const before = plan({ name: "Starter", amount: 0, is_free: true });
    const after = plan({ name: "Starter", amount: 9, is_free: false });
    const event = only(classify(diffOf({ pricing: [changed(before, after, ["amount", "is_free"])] }), PRICING));
    expect(event).toMatchObject({
      severity: "high",
      title: "Acme started charging for its Starter plan (now $9/month)",
      tags: ["pricing", "free-tier-removed", "starter"],
    });
  });

  it("reports a removed paid plan as medium", () => {
    const event = only(classify(diffOf({ pricing: [removed(plan({ name: "Team", amount: 99 }))] }), PRICING));
    expect(event).toMatchObject({
      severity: "medium",
      title: "Acme removed its Team plan",
      summary: "Acme no longer lists its Team plan, previously $99/month.",
      tags: ["pricing", "plan-removed", "team"],
    });
  });

  it("reports a new plan as medium, with the right article", () => {
    const enterprise = plan({ name: "Enterprise", amount: 199, features: ["SSO", "Audit log"] });
    const event = only(classify(diffOf({ pricing: [added(enterprise)] }), PRICING));
    expect(event).toMatchObject({
      severity: "medium",
      title: "Acme added an Enterprise plan",
      summary: "Acme now lists an Enterprise plan at $199/month, listing 2 features.",
      tags: ["pricing", "plan-added", "enterprise"],
      before_state: "null",
      evidence: [
        {
          evidence_type: "record",
          title: "Enterprise plan",
          excerpt: "$199/month · Features: SSO; Audit log",
          metadata: { plan: "Enterprise", before: null, after: enterprise, url: "https://acme.com/pricing" },
        },
      ],
    });
    expect(only(classify(diffOf({ pricing: [added(plan({ name: "Business" }))] }), PRICING)).title).toBe(
      "Acme added a Business plan",
    );
    expect(only(classify(diffOf({ pricing: [added(plan({ name: "Growth Plan" }))] }), PRICING)).title).toBe(
      "Acme added a Growth Plan",
    );
  });

  it("reports a plan going from a price to contact sales as medium and says the reading is inferred", () => {
    const event = only(classify(priceChange({ amount: 49 }, { amount: null }), PRICING));
    expect(event).toMatchObject({
      severity: "medium",
      title: "Acme moved Pro to contact sales (was $49/month)",
      tags: ["pricing", "contact-sales", "pro"],
      confidence_score: 0.85,
      is_inferred: true,
    });
    expect(event.confidence_reasoning).toContain("inferred from its price no longer being shown");
  });

  it("reports a billing period change at the same number as medium without claiming an increase", () => {
    const event = only(classify(priceChange({ amount: 49 }, { amount: 49, period: "year" }), PRICING));
    expect(event).toMatchObject({
      severity: "medium",
      title: "Acme changed Pro from $49/month to $49/year",
      tags: ["pricing", "billing-period", "pro"],
    });
  });

  it("reports a price that starts or stops saying its period at the same amount as low, not for a price read by its context", () => {
    const stated = only(classify(priceChange({ amount: 5, period: null }, { amount: 5, period: "month" }), PRICING));
    expect(stated).toMatchObject({
      severity: "low",
      title: "Acme now states Pro's price per month: $5/month",
      tags: ["pricing", "billing-period", "pro"],
    });
    expect(only(classify(priceChange({ amount: 5, period: "year" }, { amount: 5, period: null }), PRICING)).title).toBe(
      "Acme no longer states Pro's price per year: $5",
    );
    expect(
      only(classify(priceChange({ amount: 5, period: null }, { amount: 5, period: "one_time" }), PRICING)).title,
    ).toMatch(/^Acme now states Pro's price as paid once: \$5/);
    const context = { origin: "context" as const, amount: 5 };
    expect(classify(priceChange({ ...context, period: null }, { ...context, period: "month" }), PRICING)).toEqual([]);
  });

  it("raises no price event when the page switched from its monthly to its yearly price", () => {
    // docs/real-pages.md#a-period-switch-is-not-a-price-change: $49/month and $490/year are not compared.
    expect(classify(priceChange({ amount: 49 }, { amount: 490, period: "year" }), PRICING)).toEqual([]);
  });

  it("reports a price that moved to another period and another currency as a change of terms", () => {
    const event = only(
      classify(priceChange({ amount: 20, currency: "EUR" }, { amount: 238, currency: "USD", period: "year" }), PRICING),
    );
    expect(event).toMatchObject({
      severity: "medium",
      title: "Acme changed Pro from €20/month to $238/year",
      tags: ["pricing", "billing-period", "pro"],
    });
  });

  it("reports a features-only change as low and lists added and removed features as evidence", () => {
    const before = plan({ name: "Pro", features: ["5 projects", "Email support"] });
    const after = plan({ name: "Pro", features: ["Unlimited projects", "Email support"] });
    const event = only(classify(diffOf({ pricing: [changed(before, after, ["features"])] }), PRICING));
    expect(event).toMatchObject({
      severity: "low",
      title: "Acme changed what the Pro plan includes",
      summary: 'Acme\'s Pro plan ($49/month) now lists "Unlimited projects" and no longer lists "5 projects".',
      tags: ["pricing", "features", "pro"],
    });
    expect(event.evidence[1]).toEqual({
      evidence_type: "before_after",
      title: "Pro plan features",
      excerpt: "Added: Unlimited projects · Removed: 5 projects",
      metadata: {
        plan: "Pro",
        before: before.features,
        after: after.features,
        added: ["Unlimited projects"],
        removed: ["5 projects"],
      },
    });
  });

  it("tells feature changes that came with a price change in the same event", () => {
    const before = plan({ name: "Pro", features: ["SSO"] });
    const after = plan({ name: "Pro", amount: 59, features: ["SSO", "API"] });
    const event = only(classify(diffOf({ pricing: [changed(before, after, ["amount", "features"])] }), PRICING));
    expect(event.title).toBe("Acme raised Pro from $49 to $59/month");
    expect(event.summary).toBe(
      'Acme\'s Pro plan now costs $59/month, up from $49/month (+20.4%). The plan also now lists "API".',
    );
    expect(event.evidence.map((e) => e.title)).toEqual(["Pro plan price", "Pro plan features"]);
  });

  it("scores confidence by where the plan was read, the weaker reading deciding, and marks token prices inferred", () => {
    const score = (from: PricingPlan["origin"], to: PricingPlan["origin"]) =>
      only(classify(priceChange({ origin: from }, { origin: to, amount: 59 }), PRICING));
    expect(score("jsonld", "jsonld")).toMatchObject({ confidence_score: 0.95, is_inferred: false });
    expect(score("card", "card")).toMatchObject({ confidence_score: 0.85, is_inferred: false });
    const token = score("jsonld", "token");
    expect(token).toMatchObject({ confidence_score: 0.55, is_inferred: true });
    expect(token.confidence_reasoning).toContain("loose price token");
    expect(token.confidence_reasoning).toContain("below 0.7: marked inferred");
  });

  it("makes no event for a plan whose name only changed case, nor for a free plan written as $0 then Free", () => {
    const diff = diffOf({ pricing: [changed(plan({ name: "Pro" }), plan({ name: "PRO", key: "pro" }), ["name"])] });
    expect(classify(diff, PRICING)).toEqual([]);
    const zero = plan({ name: "Free", amount: 0, is_free: true });
    const free = plan({ name: "Free", amount: null, is_free: true });
    expect(classify(diffOf({ pricing: [changed(zero, free, ["amount"])] }), PRICING)).toEqual([]);
  });

  it("makes one event per plan change, ordered by plan key, each with its own subject", () => {
    const diff = diffOf({
      pricing: [
        changed(plan({ name: "Team", amount: 99 }), plan({ name: "Team", amount: 89 }), ["amount"]),
        removed(plan({ name: "Free", amount: 0, is_free: true })),
        changed(plan({ name: "Pro" }), plan({ name: "Pro", amount: 59 }), ["amount"]),
      ],
    });
    const events = classify(diff, PRICING);
    expect(events.map((e) => [e.subject, e.severity, e.title])).toEqual([
      ["pricing:plan:free", "high", "Acme removed its Free plan"],
      ["pricing:plan:pro", "high", "Acme raised Pro from $49 to $59/month"],
      ["pricing:plan:team", "low", "Acme cut Team from $99 to $89/month"],
    ]);
  });
});

describe("classify: hiring", () => {
  it("reports one opened role as low, naming it and its location", () => {
    const event = only(
      classify(
        diffOf({
          jobs: [added(job("j1", "Senior Backend Engineer", { location: "Berlin", department: "Engineering" }))],
        }),
        CAREERS,
      ),
    );
    expect(event).toMatchObject({
      event_type: "hiring_change",
      severity: "low",
      title: "Acme opened a Senior Backend Engineer role",
      summary: "Acme posted a new job opening: Senior Backend Engineer (Berlin).",
      confidence_score: 0.95,
      is_inferred: false,
      tags: ["hiring", "roles-opened", "berlin", "engineering"],
      before_state: "null",
    });
    expect(event.evidence).toEqual([
      {
        evidence_type: "record",
        title: "Senior Backend Engineer",
        excerpt: "Senior Backend Engineer · Berlin · Engineering",
        metadata: {
          key: "j1",
          title: "Senior Backend Engineer",
          location: "Berlin",
          department: "Engineering",
          url: "https://acme.com/jobs/j1",
        },
      },
    ]);
  });

  it("summarises 2–4 opened roles as one medium event, naming the department they share", () => {
    const jobs = [
      job("j1", "Backend Engineer", { department: "Engineering", location: "Berlin" }),
      job("j2", "Frontend Engineer", { department: "engineering", location: "Remote" }),
      job("j3", "SRE", { department: "Engineering", location: "berlin" }),
    ];
    const event = only(classify(diffOf({ jobs: jobs.map(added) }), CAREERS));
    expect(event).toMatchObject({
      severity: "medium",
      title: "Acme opened 3 engineering roles",
      summary:
        "Acme posted 3 new job openings: Backend Engineer (Berlin), Frontend Engineer (Remote) and SRE (berlin).",
      tags: ["hiring", "roles-opened", "berlin", "engineering", "remote"],
    });
  });

  it('says "roles" when the opened jobs are in different departments', () => {
    const jobs = [job("j1", "Engineer", { department: "Engineering" }), job("j2", "AE", { department: "Sales" })];
    expect(only(classify(diffOf({ jobs: jobs.map(added) }), CAREERS)).title).toBe("Acme opened 2 roles");
  });

  it("reports five or more opened roles as high", () => {
    const jobs = Array.from({ length: 5 }, (_, i) => job(`j${i}`, `Engineer ${i}`));
    expect(only(classify(diffOf({ jobs: jobs.map(added) }), CAREERS))).toMatchObject({
      severity: "high",
      title: "Acme opened 5 roles",
    });
  });

  it("bumps severity one level for a leadership title and says the judgement is inferred", () => {
    const one = only(classify(diffOf({ jobs: [added(job("j1", "VP of Sales"))] }), CAREERS));
    expect(one).toMatchObject({ severity: "medium", title: "Acme opened a VP of Sales role", is_inferred: true });
    expect(one.tags).toContain("leadership");
    expect(one.confidence_reasoning).toContain('raised one level because a title reads as leadership ("VP of Sales")');

    const two = only(classify(diffOf({ jobs: [added(job("j1", "CTO")), added(job("j2", "Engineer"))] }), CAREERS));
    expect(two.severity).toBe("high");
    for (const title of ["Head of Marketing", "Director, Product", "Chief Revenue Officer"]) {
      expect(only(classify(diffOf({ jobs: [added(job("j1", title))] }), CAREERS)).severity).toBe("medium");
    }
    expect(only(classify(diffOf({ jobs: [added(job("j1", "Coordinator"))] }), CAREERS)).severity).toBe("low");

    const many = Array.from({ length: 5 }, (_, i) => job(`j${i}`, i === 0 ? "Head of Design" : `Designer ${i}`));
    const capped = only(classify(diffOf({ jobs: many.map(added) }), CAREERS));
    expect(capped).toMatchObject({ severity: "high", is_inferred: false });
  });

  it("scores postings from a job list 0.8 and from JSON-LD 0.95", () => {
    const list = only(classify(diffOf({ jobs: [added(job("j1", "Engineer", { origin: "list" }))] }), CAREERS));
    expect(list.confidence_score).toBe(0.8);
    expect(list.confidence_reasoning).toContain("job list");
  });

  it("reports closed roles as one low event, medium from five", () => {
    const two = only(classify(diffOf({ jobs: [removed(job("j1", "Designer")), removed(job("j2", "PM"))] }), CAREERS));
    expect(two).toMatchObject({
      event_type: "hiring_change",
      severity: "low",
      title: "Acme closed 2 roles",
      summary: "Acme no longer lists 2 job openings: Designer and PM.",
      tags: ["hiring", "roles-closed"],
      after_state: "null",
    });
    const five = Array.from({ length: 5 }, (_, i) => removed(job(`j${i}`, `Engineer ${i}`)));
    expect(only(classify(diffOf({ jobs: five }), CAREERS)).severity).toBe("medium");
    expect(only(classify(diffOf({ jobs: [removed(job("j1", "Designer"))] }), CAREERS)).title).toBe(
      "Acme closed its Designer role",
    );
  });

  it("makes separate opened and closed events, and none for a retitled posting", () => {
    const events = classify(
      diffOf({
        jobs: [
          added(job("j1", "Engineer")),
          changed(job("j2", "Designer"), job("j2", "Senior Designer"), ["title"]),
          removed(job("j3", "PM")),
        ],
      }),
      CAREERS,
    );
    expect(events.map((e) => e.title)).toEqual(["Acme opened an Engineer role", "Acme closed its PM role"]);
    expect(events[0]!.subject).toMatch(/^hiring:opened:[0-9a-f]{16}$/);
    expect(events[1]!.subject).toMatch(/^hiring:closed:[0-9a-f]{16}$/);
  });

  it("gives the same subject and state for the same opened roles in any order", () => {
    const a = only(classify(diffOf({ jobs: [added(job("j1", "A")), added(job("j2", "B"))] }), CAREERS));
    const b = only(classify(diffOf({ jobs: [added(job("j2", "B")), added(job("j1", "A"))] }), CAREERS));
    expect(b.subject).toBe(a.subject);
    expect(b.after_state).toBe(a.after_state);
    const other = only(classify(diffOf({ jobs: [added(job("j1", "A")), added(job("j3", "C"))] }), CAREERS));
    expect(other.subject).not.toBe(a.subject);
  });
});

describe("classify: product", () => {
  it("reports a new changelog entry as low, shipped, with the item as record evidence", () => {
    const entry = item("dark-mode", "Dark mode for dashboards", {
      date: "2024-05-02",
      summary: "Dashboards now follow your OS theme.",
    });
    const event = only(classify(diffOf({ items: [added(entry)] }), CHANGELOG));
    expect(event).toEqual({
      event_type: "product_change",
      severity: "low",
      title: "Acme shipped: Dark mode for dashboards",
      summary: 'New changelog entry "Dark mode for dashboards" dated 2024-05-02: Dashboards now follow your OS theme.',
      impact_summary: "A smaller Acme update: note it in the battlecard if it touches a feature you compete on.",
      confidence_score: 0.9,
      confidence_reasoning:
        "The entry was read as a distinct item (own title and link) from the changelog source and was not in the previous fetch.",
      is_inferred: false,
      tags: ["product", "changelog"],
      evidence: [
        {
          evidence_type: "record",
          title: "Dark mode for dashboards",
          excerpt: "Dashboards now follow your OS theme.",
          metadata: {
            key: "dark-mode",
            url: "https://acme.com/changelog/dark-mode",
            date: "2024-05-02",
            source_url: "https://acme.com/changelog",
          },
        },
      ],
      subject: "product:item:dark-mode",
      before_state: "null",
      after_state:
        '{"key":"dark-mode","title":"Dark mode for dashboards","date":"2024-05-02","url":"https://acme.com/changelog/dark-mode"}',
      // The page's calendar day, at its earliest instant (docs/product-rules.md#public-stats).
      published_at: "2024-05-02T00:00:00.000Z",
    });
  });

  it("ends the summary with a full stop when the item's own summary has none", () => {
    const entry = item("a", "Faster search", { summary: "Search is 3x faster" });
    expect(only(classify(diffOf({ items: [added(entry)] }), CHANGELOG)).summary).toBe(
      'New changelog entry "Faster search": Search is 3x faster.',
    );
  });

  it('says "published" for blog, press, rss and news sources', () => {
    for (const sourceType of ["blog", "press", "rss", "news"]) {
      const event = only(
        classify(diffOf({ items: [added(item("p", "Our 2024 report"))] }), { ...CHANGELOG, sourceType }),
      );
      expect(event).toMatchObject({ event_type: "product_change", title: "Acme published: Our 2024 report" });
      expect(event.tags).toEqual(["product", sourceType]);
    }
  });

  it("raises entries whose title suggests a launch to medium and marks that inferred", () => {
    const launches = [
      "Introducing Workflows",
      "We launched Insights",
      "Announcing our API",
      "SSO is now available",
      "New: audit log",
      "General availability of Sync",
      "Sync is GA",
      "Reports (beta)",
      "Acme v2",
      "CLI v3.1 released",
    ];
    for (const title of launches) {
      const event = only(classify(diffOf({ items: [added(item("x", title))] }), CHANGELOG));
      expect(event, title).toMatchObject({ severity: "medium", is_inferred: true });
      expect(event.tags).toContain("launch");
      expect(event.confidence_reasoning).toContain("suggests a launch");
    }
    for (const title of ["Gardening tips for remote teams", "Our new office", "Fixed a bug in navigation"]) {
      expect(only(classify(diffOf({ items: [added(item("x", title))] }), CHANGELOG)), title).toMatchObject({
        severity: "low",
        is_inferred: false,
      });
    }
  });

  it("makes no event for removed or edited items, nor for items on sources that are not product news", () => {
    const diff = diffOf({
      items: [removed(item("a", "Old")), changed(item("b", "B"), item("b", "B!"), ["title"])],
    });
    expect(classify(diff, CHANGELOG)).toEqual([]);
    expect(classify(diffOf({ items: [added(item("a", "Launch"))] }), HOMEPAGE)).toEqual([]);
  });

  it("makes at most 10 events, newest first, the last one summarising the rest", () => {
    const items = Array.from({ length: 13 }, (_, i) =>
      item(`i${String(i).padStart(2, "0")}`, `Update ${i}`, { date: `2024-05-${String(i + 1).padStart(2, "0")}` }),
    );
    const events = classify(diffOf({ items: items.map(added) }), CHANGELOG);
    expect(events).toHaveLength(10);
    expect(events[0]!.title).toBe("Acme shipped: Update 12");
    expect(events[8]!.title).toBe("Acme shipped: Update 4");
    expect(events[9]!.title).toBe("Acme shipped: Update 3 (and 3 more)");
    expect(events[9]!.summary).toBe(
      'New changelog entry "Update 3" dated 2024-05-04. Also new: "Update 2", "Update 1" and "Update 0".',
    );
    expect(events[9]!.evidence.map((e) => e.title)).toEqual(["Update 3", "Update 2", "Update 1", "Update 0"]);
    expect(new Set(events.map((e) => e.subject)).size).toBe(10);
  });
});

describe("classify: narrative", () => {
  const change = (field: NarrativeChange["field"], before: string | null, after: string | null): NarrativeChange => ({
    field,
    before,
    after,
  });

  it("reports a headline change as medium, quoting the new headline", () => {
    const diff = diffOf({
      narrative: [change("h1", "Ship faster", "The AI platform for revenue teams")],
      text: { added: ["The AI platform for revenue teams"], removed: ["Ship faster"], change_ratio: 0.05 },
    });
    const event = only(classify(diff, HOMEPAGE));
    expect(event).toMatchObject({
      event_type: "narrative_change",
      severity: "medium",
      title: 'Acme changed its homepage headline to "The AI platform for revenue teams"',
      summary: 'Acme\'s homepage headline changed from "Ship faster" to "The AI platform for revenue teams".',
      confidence_score: 0.85,
      is_inferred: false,
      tags: ["narrative", "homepage", "headline"],
      subject: "narrative:h1",
      before_state: '{"h1":"Ship faster"}',
      after_state: '{"h1":"The AI platform for revenue teams"}',
    });
    expect(event.evidence).toEqual([
      {
        evidence_type: "excerpt",
        title: "Headline (h1)",
        excerpt: 'Before: "Ship faster" · After: "The AI platform for revenue teams"',
        metadata: { field: "h1", before: "Ship faster", after: "The AI platform for revenue teams" },
      },
      {
        evidence_type: "excerpt",
        title: "Changed text",
        excerpt: "- Ship faster\n+ The AI platform for revenue teams",
        metadata: { added: ["The AI platform for revenue teams"], removed: ["Ship faster"], change_ratio: 0.05 },
      },
    ]);
  });

  it("reports a hero change as medium with confidence 0.75", () => {
    const event = only(classify(diffOf({ narrative: [change("hero", "Old pitch", "New pitch")] }), HOMEPAGE));
    expect(event).toMatchObject({
      severity: "medium",
      title: 'Acme changed its homepage hero copy to "New pitch"',
      confidence_score: 0.75,
    });
  });

  it("reports title and meta description changes as low", () => {
    const title = only(classify(diffOf({ narrative: [change("title", "Acme", "Acme | AI CRM")] }), HOMEPAGE));
    expect(title).toMatchObject({ severity: "low", title: 'Acme changed its homepage title to "Acme | AI CRM"' });
    const meta = only(classify(diffOf({ narrative: [change("meta_description", "Old", "New")] }), PRICING));
    expect(meta).toMatchObject({ severity: "low", title: 'Acme changed its pricing page meta description to "New"' });
  });

  it("combines narrative fields into one event with the highest severity", () => {
    const diff = diffOf({
      narrative: [
        change("title", "Acme", "Acme AI"),
        change("h1", "Ship faster", "Sell smarter"),
        change("h2", "A", "B"),
      ],
    });
    const event = only(classify(diff, HOMEPAGE));
    expect(event).toMatchObject({
      severity: "medium",
      title: 'Acme changed its homepage headline to "Sell smarter"',
      summary:
        'Acme\'s homepage headline changed from "Ship faster" to "Sell smarter". The page title and section headings changed too.',
      tags: ["narrative", "homepage", "page-title", "headline", "section-headings"],
      subject: "narrative:title+h1+h2",
    });
    expect(event.evidence.map((e) => e.title)).toEqual([
      "Page title (title)",
      "Headline (h1)",
      "Section headings (h2)",
    ]);
  });

  it("names other pages by their address and reports a removed headline", () => {
    const other = { ...HOMEPAGE, sourceType: "other", sourceUrl: "https://www.acme.com/about/" };
    expect(only(classify(diffOf({ narrative: [change("h1", "About us", null)] }), other)).title).toBe(
      "Acme removed its acme.com/about page headline",
    );
  });

  it("makes no narrative event on sources that do not present the company, nor for section headings alone", () => {
    expect(classify(diffOf({ narrative: [change("h1", "Post A", "Post B")] }), CHANGELOG)).toEqual([]);
    expect(classify(diffOf({ narrative: [change("h2", "A", "B")] }), HOMEPAGE)).toEqual([]);
  });

  it("reports a text-only rewrite of at least 15 % on a homepage as a low, inferred narrative change", () => {
    const diff = diffOf({ text: { added: ["New copy"], removed: ["Old copy"], change_ratio: 0.15 } });
    const event = only(classify(diff, HOMEPAGE));
    expect(event).toMatchObject({
      event_type: "narrative_change",
      severity: "low",
      title: "Acme rewrote 15% of its homepage",
      confidence_score: 0.6,
      is_inferred: true,
      tags: ["narrative", "homepage", "copy-rewrite"],
      subject: "narrative:text",
    });
    expect(event.confidence_reasoning).toContain("marked inferred");
    expect(event.evidence).toEqual([
      {
        evidence_type: "excerpt",
        title: "Changed text",
        excerpt: "- Old copy\n+ New copy",
        metadata: { added: ["New copy"], removed: ["Old copy"], change_ratio: 0.15 },
      },
    ]);
    const other = { ...HOMEPAGE, sourceType: "other", sourceUrl: "https://acme.com/platform" };
    expect(only(classify(diff, other)).title).toBe("Acme rewrote 15% of its acme.com/platform page");
  });

  it("gives a reverted rewrite swapped states, so flap damping can recognise it", () => {
    const forth = only(classify(diffOf({ text: { added: ["B"], removed: ["A"], change_ratio: 0.5 } }), HOMEPAGE));
    const back = only(classify(diffOf({ text: { added: ["A"], removed: ["B"], change_ratio: 0.5 } }), HOMEPAGE));
    expect(back.subject).toBe(forth.subject);
    expect(back.after_state).toBe(forth.before_state);
  });

  it("makes no event for text-only changes below 15 %, on pricing pages, or alongside record changes", () => {
    const text = (change_ratio: number) => ({ added: ["x"], removed: ["y"], change_ratio });
    expect(classify(diffOf({ text: text(0.01) }), HOMEPAGE)).toEqual([]);
    expect(classify(diffOf({ text: text(0.1) }), HOMEPAGE)).toEqual([]);
    expect(classify(diffOf({ text: text(0.149) }), HOMEPAGE)).toEqual([]);
    expect(classify(diffOf({ text: text(0.4) }), PRICING)).toEqual([]);
    const withItem = diffOf({ items: [changed(item("a", "A"), item("a", "A2"), ["title"])], text: text(0.4) });
    expect(classify(withItem, HOMEPAGE)).toEqual([]);
  });
});

describe("classify: whole diffs", () => {
  const multi = diffOf({
    pricing: [
      changed(plan({ name: "Pro" }), plan({ name: "Pro", amount: 59 }), ["amount"]),
      added(plan({ name: "Enterprise", amount: null })),
    ],
    jobs: [added(job("j1", "Account Executive", { department: "Sales", location: "London" }))],
    narrative: [{ field: "h1", before: "Ship faster", after: "Sell smarter" }],
    text: { added: ["Sell smarter"], removed: ["Ship faster"], change_ratio: 0.3 },
  });

  it("reports every change of a multi-change diff in a fixed order, with unique subjects", () => {
    const events = classify(multi, HOMEPAGE);
    expect(events.map((e) => [e.event_type, e.severity, e.title])).toEqual([
      ["pricing_change", "medium", "Acme added an Enterprise plan"],
      ["pricing_change", "high", "Acme raised Pro from $49 to $59/month"],
      ["hiring_change", "low", "Acme opened an Account Executive role"],
      ["narrative_change", "medium", 'Acme changed its homepage headline to "Sell smarter"'],
    ]);
    expect(new Set(events.map((e) => e.subject)).size).toBe(events.length);
  });

  it("returns deep-equal output for the same input, also after the diff went through JSON storage", () => {
    const first = classify(multi, HOMEPAGE);
    expect(classify(multi, HOMEPAGE)).toEqual(first);
    expect(classify(JSON.parse(JSON.stringify(multi)) as SnapshotDiff, HOMEPAGE)).toEqual(first);
  });

  it("keeps every draft within the documented ranges", () => {
    for (const event of classify(multi, HOMEPAGE)) {
      expect(event.confidence_score).toBeGreaterThanOrEqual(0);
      expect(event.confidence_score).toBeLessThanOrEqual(1);
      expect(event.confidence_reasoning.length).toBeGreaterThan(20);
      expect(event.is_inferred).toBe(event.confidence_score < 0.7 || event.confidence_reasoning.includes("inferred"));
      expect(event.evidence.length).toBeGreaterThan(0);
    }
  });
});

describe("classify: add-ons, usage meters and promotions", () => {
  it("tells an add-on's and a usage meter's price change a step lower than a plan's, named as what they are", () => {
    const addon = only(
      classify(priceChange({ amount: 10, kind: "addon" }, { amount: 15, kind: "addon" }, "Extra seats"), PRICING),
    );
    expect(addon).toMatchObject({
      severity: "medium", // +50 %: high for a plan
      title: "Acme raised Extra seats from $10 to $15/month",
      summary: "Acme's Extra seats add-on now costs $15/month, up from $10/month (+50%).",
      tags: ["pricing", "price-increase", "add-on", "extra-seats"],
    });
    const meter = only(
      classify(
        priceChange(
          { amount: 0.0004, period: null, kind: "usage" },
          { amount: 0.0003, period: null, kind: "usage" },
          "API requests",
        ),
        PRICING,
      ),
    );
    expect(meter).toMatchObject({
      severity: "low", // −25 %: medium for a plan
      summary: "Acme's API requests usage price now costs $0.0003, down from $0.0004 (−25%).",
      tags: ["pricing", "price-decrease", "usage", "api-requests"],
    });
  });

  it("tells a promotion starting beside an unchanged list price as a low promotion event, not a price cut", () => {
    const started = only(classify(priceChange({ amount: 49 }, { amount: 49, promo_amount: 39 }), PRICING));
    expect(started).toMatchObject({
      severity: "low",
      title: "Acme started a promotion on Pro: $39/month",
      summary: "Acme's Pro plan is on promotion at $39/month (list price $49/month).",
      tags: ["pricing", "promotion-started", "pro"],
    });
    // Only a promotional price shown (no list price beside it): still a promotion, not a cut from 49 to 39.
    const shownAlone = only(classify(priceChange({ amount: 49 }, { amount: 39, promo_amount: 39 }), PRICING));
    expect(shownAlone).toMatchObject({ severity: "low", title: "Acme started a promotion on Pro: $39/month" });
    expect(shownAlone.summary).toBe("Acme's Pro plan is on promotion at $39/month.");
  });

  it("tells a promotion ending or changing as low, and a list price that moved as the price change it is", () => {
    const ended = only(classify(priceChange({ amount: 39, promo_amount: 39 }, { amount: 49 }), PRICING));
    expect(ended).toMatchObject({
      severity: "low",
      title: "Acme ended its promotion on Pro",
      summary: "Acme's Pro plan is back to $49/month; the promotion at $39/month is over.",
      tags: ["pricing", "promotion-ended", "pro"],
    });
    const changedPromo = only(
      classify(priceChange({ amount: 49, promo_amount: 39 }, { amount: 49, promo_amount: 29 }), PRICING),
    );
    expect(changedPromo).toMatchObject({
      severity: "low",
      title: "Acme changed its promotion on Pro from $39/month to $29/month",
    });
    const listMoved = only(
      classify(priceChange({ amount: 49, promo_amount: 39 }, { amount: 59, promo_amount: 29 }), PRICING),
    );
    expect(listMoved).toMatchObject({ severity: "high", title: "Acme raised Pro from $49 to $59/month" });
  });

  it("compares kind and promotion in the diff, reading their absence as a plain plan", () => {
    const extraction = (pricing: PricingPlan[]): Extraction => ({
      version: 3,
      text: "",
      pricing,
      jobs: [],
      items: [],
      narrative: { title: null, meta_description: null, h1: [], h2: [], hero: null },
      signals: { bot_challenge: false },
    });
    const stored = extraction([plan({ name: "Pro" })]);
    const same = extraction([plan({ name: "Pro", kind: "plan", promo_amount: null })]);
    expect(diffExtractions(stored, same).pricing).toEqual([]);
    const promoted = extraction([plan({ name: "Pro", promo_amount: 39 })]);
    expect(diffExtractions(stored, promoted).pricing).toMatchObject([{ kind: "changed", fields: ["promo_amount"] }]);
  });
});

describe("classify: where prices are offers", () => {
  it("makes pricing events from pricing, homepage, docs and other pages only, not from pages that write about prices", () => {
    const change = () => priceChange({ amount: 5999 }, { amount: 6999 }, "Mac Pro");
    for (const sourceType of ["pricing", "homepage", "docs", "other"]) {
      expect(classify(change(), { ...PRICING, sourceType }).map((event) => event.event_type)).toEqual([
        "pricing_change",
      ]);
    }
    // A product roundup on a blog or in the news, a release note, a job ad: the prices are written about, not offered.
    for (const sourceType of ["blog", "news", "press", "changelog", "careers", "rss", "social", "reviews"]) {
      expect(classify(change(), { ...PRICING, sourceType })).toEqual([]);
    }
  });
});
