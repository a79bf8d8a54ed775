import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { extract } from "../../src/detection/read/index.js";
import { parsePrice } from "../../src/detection/read/pricing/money.js";
import { isPlanRecord, type PricingPlan } from "../../src/detection/types.js";

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/sites/${name}`, import.meta.url), "utf8");
const html = (body: string, url = "https://www.heliolytics.io/pricing") =>
  extract(body, { url, contentType: "text/html; charset=utf-8", fetchMethod: "http" });
/** The plan fields of docs/product-rules.md#extraction, in page order. */
const summary = (plans: PricingPlan[]) =>
  plans.map(({ name, amount, currency, period, is_free, origin }) => ({
    name,
    amount,
    currency,
    period,
    is_free,
    origin,
  }));

/** What each record is and what it costs, in page order. */
const kinds = (plans: PricingPlan[]) =>
  plans.map(({ name, amount, period, kind, promo_amount }) => ({
    name,
    amount,
    period,
    kind: kind ?? "plan",
    promo: promo_amount ?? null,
  }));

describe("pricing plans from plan cards", () => {
  it("reads the three cards of pricing-v1 with names, amounts, currency, period and features", () => {
    const { pricing } = html(fixture("pricing-v1.html"));
    expect(pricing).toEqual([
      {
        key: "free",
        name: "Free",
        amount: 0,
        currency: "USD",
        period: "month",
        is_free: true,
        origin: "card",
        features: ["Up to 10,000 events per month", "1 project", "7-day data retention", "Community support"],
      },
      {
        key: "pro",
        name: "Pro",
        amount: 49,
        currency: "USD",
        period: "month",
        is_free: false,
        origin: "card",
        features: [
          "Up to 1M events per month",
          "Unlimited projects",
          "12-month data retention",
          "Funnels, retention and paths",
          "Email support",
        ],
      },
      {
        key: "business",
        name: "Business",
        amount: 99,
        currency: "USD",
        period: "month",
        is_free: false,
        origin: "card",
        features: [
          "Up to 10M events per month",
          "Everything in Pro",
          "SAML SSO and audit log",
          "Data warehouse sync",
          "Priority support with 4-hour response",
        ],
      },
    ]);
  });

  it("sees Pro raised to $59, Free gone and an Enterprise card without a price in pricing-v2", () => {
    const { pricing } = html(fixture("pricing-v2.html"));
    expect(summary(pricing)).toEqual([
      { name: "Pro", amount: 59, currency: "USD", period: "month", is_free: false, origin: "card" },
      { name: "Business", amount: 99, currency: "USD", period: "month", is_free: false, origin: "card" },
      { name: "Enterprise", amount: null, currency: null, period: null, is_free: false, origin: "card" },
    ]);
    expect(pricing.find((plan) => plan.key === "enterprise")?.features).toEqual([
      "Unlimited events",
      "Everything in Business",
      "Dedicated infrastructure and EU data residency",
      "99.99% uptime SLA",
      "Named customer success manager",
    ]);
  });

  it("does not read the comparison table, FAQ prices or the 'Most popular' badge as plans", () => {
    const { pricing } = html(fixture("pricing-v1.html"));
    expect(pricing.map((plan) => plan.key)).toEqual(["free", "pro", "business"]);
  });

  it("finds sibling cards without any plan-like class names", () => {
    const { pricing } = html(`
      <main><h1>Plans</h1>
        <div class="row">
          <div class="col"><h4>Basic</h4><p>$9 per month</p><ul><li>1 user</li></ul></div>
          <div class="col"><h4>Plus</h4><p>$19 per month</p><ul><li>5 users</li></ul></div>
        </div></main>`);
    expect(pricing).toEqual([
      {
        key: "basic",
        name: "Basic",
        amount: 9,
        currency: "USD",
        period: "month",
        is_free: false,
        origin: "card",
        features: ["1 user"],
      },
      {
        key: "plus",
        name: "Plus",
        amount: 19,
        currency: "USD",
        period: "month",
        is_free: false,
        origin: "card",
        features: ["5 users"],
      },
    ]);
  });

  it("combines a split price (symbol, amount, period in separate spans) and ignores badges in the name", () => {
    const { pricing } = html(`
      <section class="pricing">
        <div class="tier"><h3>Team <span class="badge">Popular</span></h3>
          <div class="price"><span class="currency">€</span><span class="amount">1.299,00</span></div>
          <div class="price-note">per year, billed annually</div></div>
        <div class="tier"><h3>Solo</h3><div class="price">Free</div></div>
      </section>`);
    expect(summary(pricing)).toEqual([
      { name: "Team", amount: 1299, currency: "EUR", period: "year", is_free: false, origin: "card" },
      { name: "Solo", amount: 0, currency: null, period: null, is_free: true, origin: "card" },
    ]);
  });
  it("reads a price range as both its ends and 'Pay what you want' as a plan without an amount", () => {
    const { pricing } = html(`
      <main><h1>Plans</h1>
        <div class="row">
          <div class="col"><h3>Basic</h3><p>Free</p><ul><li>Notes</li></ul></div>
          <div class="col"><h3>Supporter</h3><p>Pay what you want</p><ul><li>Notes</li><li>Sync</li></ul></div>
          <div class="col"><h3>Team</h3><p>$8 – $12 per user / month</p><ul><li>Shared notes</li></ul></div>
        </div></main>`);
    expect(summary(pricing)).toEqual([
      { name: "Basic", amount: 0, currency: null, period: null, is_free: true, origin: "card" },
      { name: "Supporter", amount: null, currency: null, period: null, is_free: false, origin: "card" },
      { name: "Team", amount: 8, currency: "USD", period: "month", is_free: false, origin: "card" },
    ]);
    // Either end moving is a change of price: both are the record's prices, the low end first.
    expect(pricing[2]!.prices?.map((option) => [option.amount, option.period])).toEqual([
      [8, "month"],
      [12, "month"],
    ]);
  });
  it("reads a card priced only by 'Book Demo' as a plan without an amount", () => {
    const card = (name: string, price: string, button: string) =>
      `<div class="col"><h2>${name}</h2>${price}<ul><li>Billing</li></ul><a class="btn" href="/x">${button}</a></div>`;
    const { pricing } = html(
      `<main><h1>Pricing</h1><div class="row">${card("Self-hosted", "<p>£2,000 / year</p>", "Buy now")}` +
        `${card("Managed", "", "Book Demo")}</div></main>`,
    );
    expect(summary(pricing).map(({ name, amount }) => [name, amount])).toEqual([
      ["Self-hosted", 2000],
      ["Managed", null],
    ]);
  });

  it("reads 'Free' on a line of its own beside a price as one of the plan's prices, labelled or marked by an icon", () => {
    const head = (basic: string) =>
      html(`
      <main><h1>A fair price for you</h1>
        <table><thead><tr><th>Feature</th>
          <th><div>Basic</div><div>${basic}</div></th>
          <th><div>Pro</div><div>Pay-what-you-want (with a minimum)</div></th></tr></thead>
        <tbody><tr><td>Search</td><td>yes</td><td>yes</td></tr><tr><td>Sync</td><td>no</td><td>yes</td></tr></tbody></table>
      </main>`).pricing.map((plan) => [plan.name, (plan.prices ?? [plan]).map((option) => option.amount)]);
    const expected = [
      ["Basic", [0, 3.99]],
      ["Pro", [null]],
    ];
    expect(head("Android - Free<br>iOS - 3.99$")).toEqual(expected);
    expect(head('<div><svg class="icon"></svg> Free</div><div><svg class="icon"></svg> 3.99$</div>')).toEqual(expected);
  });
});

describe("pricing plans from JSON-LD", () => {
  it("reads Product offers with priceSpecification, billing durations and a priceless Enterprise offer", () => {
    const { pricing } = html(fixture("pricing-jsonld.html"), "https://relaywise.com/pricing");
    expect(pricing).toEqual([
      {
        key: "hobby",
        name: "Hobby",
        amount: 0,
        currency: "USD",
        period: null,
        is_free: true,
        origin: "jsonld",
        features: [],
      },
      {
        key: "starter",
        name: "Starter",
        amount: 20,
        currency: "USD",
        period: "month",
        is_free: false,
        origin: "jsonld",
        features: [],
      },
      {
        key: "scale",
        name: "Scale",
        amount: 1188,
        currency: "USD",
        period: "year",
        is_free: false,
        origin: "jsonld",
        features: [],
      },
      {
        key: "scale eu",
        name: "Scale EU",
        amount: 99.9,
        currency: "EUR",
        period: "month",
        is_free: false,
        origin: "jsonld",
        features: [],
      },
      {
        key: "enterprise",
        name: "Enterprise",
        amount: null,
        currency: null,
        period: null,
        is_free: false,
        origin: "jsonld",
        features: [],
      },
    ]);
  });

  it("reads an AggregateOffer range as no amount and follows @id references", () => {
    const { pricing } = html(`
      <script type="application/ld+json">[
        {"@context":"https://schema.org","@type":"SoftwareApplication","name":"Acme CLI",
         "offers":{"@type":"AggregateOffer","lowPrice":"19.00","highPrice":"99.00","priceCurrency":"gbp"}},
        {"@type":"http://schema.org/Product","name":"Acme Cloud","offers":{"@id":"#cloud-offer"}},
        {"@type":"Offer","@id":"#cloud-offer","name":"Cloud","price":49,"priceCurrency":"USD",
         "priceSpecification":{"@type":"UnitPriceSpecification","price":49,"priceCurrency":"USD","unitText":"MONTH"}}
      ]</script>`);
    expect(summary(pricing)).toEqual([
      // lowPrice 19 / highPrice 99 is a range: which one a plan costs is not said, so no amount (docs/real-pages.md#structured-data).
      { name: "Acme CLI", amount: null, currency: null, period: null, is_free: false, origin: "jsonld" },
      { name: "Cloud", amount: 49, currency: "USD", period: "month", is_free: false, origin: "jsonld" },
    ]);
  });

  it("skips an invalid JSON-LD block, repairs a trailing comma and still reads the cards", () => {
    const { pricing } = html(`
      <script type="application/ld+json">{"@type": "Product", "offers": [</script>
      <script type="application/ld+json">{"@type":"Product","name":"Pro","offers":{"@type":"Offer","price":"59","priceCurrency":"USD",},}</script>
      <div class="plans">
        <div class="plan"><h3>Pro</h3><p class="price">$49/mo</p><ul><li>Unlimited seats</li></ul></div>
        <div class="plan"><h3>Enterprise</h3><a class="btn" href="/sales">Contact sales</a></div>
      </div>`);
    expect(pricing).toEqual([
      {
        key: "pro",
        name: "Pro",
        amount: 59,
        currency: "USD",
        period: null,
        is_free: false,
        origin: "jsonld",
        // JSON-LD wins on the price; the card of the same plan lends its feature list.
        features: ["Unlimited seats"],
      },
      {
        key: "enterprise",
        name: "Enterprise",
        amount: null,
        currency: null,
        period: null,
        is_free: false,
        origin: "card",
        features: [],
      },
    ]);
  });
});

describe("pricing plans from loose price tokens", () => {
  it("names a price after the heading above it when no card or JSON-LD exists", () => {
    const { pricing } = html(`
      <article>
        <h2>Starter</h2><p>Everything a small team needs to get going.</p><p><strong>$19/month</strong></p>
        <h2>Team</h2><p>For departments.</p><p>€1.299,00 per year</p>
        <h2>Pro — US$49 /user/month</h2><p>Our most complete plan.</p>
      </article>`);
    expect(summary(pricing)).toEqual([
      { name: "Starter", amount: 19, currency: "USD", period: "month", is_free: false, origin: "context" },
      { name: "Team", amount: 1299, currency: "EUR", period: "year", is_free: false, origin: "context" },
      { name: "Pro", amount: 49, currency: "USD", period: "month", is_free: false, origin: "context" },
    ]);
  });

  it("reads a price in a paragraph whose text with its spacing runs just past a price line's length", () => {
    const { pricing } = html(`
      <article><h2>Premium offering</h2>
        <p>
            The premium offering ($25/year) will launch in the next months. If you're interested <a href="#">let us know</a>
            and we'll get you an invite. It includes:
        </p></article>`);
    expect(summary(pricing)).toEqual([
      { name: "premium offering", amount: 25, currency: "USD", period: "year", is_free: false, origin: "context" },
    ]);
  });

  it("reads no price from a discount banner ('50% off on the yearly plan ($15/year instead of $29.99/year)')", () => {
    const { pricing } = html(`
      <article><h2>Pricing</h2><p>Premium: $2.99 per month</p>
        <div class="banner">Black Friday Deal: 50% off on the yearly plan ($15/year instead of $29.99/year)</div>
      </article>`);
    expect(pricing.map((plan) => plan.amount)).toEqual([2.99]);
  });

  it("never lends a plan the price of the heading after it", () => {
    // The paragraph under "Starter" is followed by the next plan's own heading: that price is Pro's, not Starter's.
    const { pricing } = html(`
      <article>
        <h2>Starter</h2><p>Everything a small team needs to get going.</p>
        <h2>Pro — $49/month</h2><p>Our most complete plan.</p>
      </article>`);
    expect(summary(pricing)).toEqual([
      { name: "Pro", amount: 49, currency: "USD", period: "month", is_free: false, origin: "context" },
    ]);
  });

  it("finds no plans on a changelog that mentions $8/month or a homepage that mentions $40M", () => {
    expect(html(fixture("changelog-v1.html")).pricing).toEqual([]);
    expect(html(fixture("homepage.html")).pricing).toEqual([]);
    // A careers page's learning budget is a price named by its section, never a plan (and careers pages raise no
    // pricing events: test/detection/classify.test.ts).
    const careers = html(fixture("careers-v1.html")).pricing;
    expect(careers.filter(isPlanRecord)).toEqual([]);
    expect(careers.map(({ name, origin, amount }) => ({ name, origin, amount }))).toEqual([
      { name: "Benefits", origin: "context", amount: 1500 },
    ]);
  });
});

describe("price tokens", () => {
  it.each([
    ["$49", 49, "USD", null, false],
    ["$49.99/mo", 49.99, "USD", "month", false],
    ["US$49 /user/month", 49, "USD", "month", false],
    ["€1.299,00 per year", 1299, "EUR", "year", false],
    ["£12 a month", 12, "GBP", "month", false],
    ["49 USD monthly", 49, "USD", "month", false],
    ["$490 per year", 490, "USD", "year", false],
    ["$41/mo billed annually", 41, "USD", "month", false],
    ["$490 billed annually", 490, "USD", "year", false],
    ["CHF 1'299.00 one-time", 1299, "CHF", "one_time", false],
    ["A$29 per seat per month", 29, "AUD", "month", false],
    ["¥9,800 / month", 9800, "JPY", "month", false],
    ["$1,299", 1299, "USD", null, false],
    ["$0", 0, "USD", null, true],
    ["Free", 0, null, null, true],
    ["Contact us", null, null, null, false],
    ["Custom", null, null, null, false],
    ["Talk to sales", null, null, null, false],
  ])("reads %j", (text, amount, currency, period, isFree) => {
    expect(parsePrice(text)).toEqual({ amount, currency, period, isFree });
  });

  it("does not read amounts with a magnitude or without a currency as prices", () => {
    expect(parsePrice("We raised $40M in our Series B")).toBeNull();
    expect(parsePrice("Up to 10,000 events")).toBeNull();
  });

  it("keeps amounts free of float noise", () => {
    expect(parsePrice("$1,298.99")?.amount).toBe(1298.99);
    expect(parsePrice("€0,10")?.amount).toBe(0.1);
  });
});

describe("plans, add-ons and usage meters; list and promotional prices", () => {
  it("tells plan cards from the add-ons and usage meters sold beside them, and keeps all of them", () => {
    const { pricing } = html(`<main>
      <h1>Pricing</h1>
      <section class="plans">
        <div class="plan"><h3>Starter</h3><p class="price">$19/month</p><ul><li>3 projects</li></ul></div>
        <div class="plan"><h3>Pro</h3><p class="price">$49/month</p><ul><li>Unlimited projects</li></ul></div>
      </section>
      <section>
        <h2>Add-ons</h2>
        <div class="grid">
          <div class="card"><h3>Extra seats</h3><p class="price">$10 per user/month</p></div>
          <div class="card"><h3>Priority support</h3><p class="price">$99/month</p></div>
          <div class="card"><h3>API requests</h3><p class="price">$0.0004 per request</p></div>
        </div>
      </section>
      <section class="plans">
        <div class="plan"><h3>Team</h3><p class="price">$99/month</p></div>
        <div class="plan"><h3>SSO add-on</h3><p class="price">$5/month</p></div>
      </section></main>`);
    expect(kinds(pricing)).toEqual([
      { name: "Starter", amount: 19, period: "month", kind: "plan", promo: null },
      { name: "Pro", amount: 49, period: "month", kind: "plan", promo: null },
      { name: "Extra seats", amount: 10, period: "month", kind: "addon", promo: null },
      { name: "Priority support", amount: 99, period: "month", kind: "addon", promo: null },
      { name: "API requests", amount: 0.0004, period: null, kind: "usage", promo: null },
      { name: "Team", amount: 99, period: "month", kind: "plan", promo: null },
      { name: "SSO add-on", amount: 5, period: "month", kind: "addon", promo: null },
    ]);
    // A plain plan's stored shape is unchanged: the new fields are written only when they say something.
    expect(pricing[0]).not.toHaveProperty("kind");
    expect(pricing[0]).not.toHaveProperty("promo_amount");
  });

  it("reads the struck-through list price as the price and the promotional one beside it as the promotion", () => {
    const { pricing } = html(`<div class="plans">
      <div class="plan"><h3>Basic</h3><p class="price"><del>$49</del> $39/mo</p></div>
      <div class="plan"><h3>Plus</h3><p class="old-price">$99/mo</p><p class="price">$79/mo</p></div>
      <div class="plan"><h3>Max</h3><p class="price">$149/mo</p></div>
    </div>`);
    expect(kinds(pricing)).toEqual([
      { name: "Basic", amount: 49, period: "month", kind: "plan", promo: 39 },
      { name: "Plus", amount: 99, period: "month", kind: "plan", promo: 79 },
      { name: "Max", amount: 149, period: "month", kind: "plan", promo: null },
    ]);
  });

  it("reads 'then $X' as the list price after a promotional one, and promotional wording alone as a promotion", () => {
    const { pricing } = html(`<div class="plans">
      <div class="plan"><h3>Starter</h3><p class="price">$5/mo</p><p>for the first 3 months, then $10/mo</p></div>
      <div class="plan"><h3>Growth</h3><p class="price">$39/mo</p><p>Intro price for the first 12 months</p></div>
      <div class="plan"><h3>Scale</h3><p class="price">$99/mo</p><p>Billed monthly</p></div>
    </div>`);
    expect(kinds(pricing)).toEqual([
      { name: "Starter", amount: 10, period: "month", kind: "plan", promo: 5 },
      { name: "Growth", amount: 39, period: "month", kind: "plan", promo: 39 },
      { name: "Scale", amount: 99, period: "month", kind: "plan", promo: null },
    ]);
  });
  it("finds a struck list price by an inline line-through or an underscored class, its currency in a sibling", () => {
    // GitHub's 2023 cards: `<sup>$</sup><span class="diagonal_line_through">21</span>` beside `<sup>$</sup>19.25`.
    const { pricing } = html(`<div class="plans">
      <div class="plan"><h3>Team</h3><p class="price"><sup>$</sup><span class="diagonal_line_through">4</span>
        <sup>$</sup><span>3.67</span> per user/month for the first 12 months</p></div>
      <div class="plan"><h3>Business</h3><p class="price"><span style="text-decoration: line-through">$25</span>
        $20 per user/month</p></div>
    </div>`);
    expect(kinds(pricing)).toEqual([
      { name: "Team", amount: 4, period: "month", kind: "plan", promo: 3.67 },
      { name: "Business", amount: 25, period: "month", kind: "plan", promo: 20 },
    ]);
  });

  it("reads a price written as an increment ('+ $49 per user/month') as an add-on to the plan above it", () => {
    const { pricing } = html(`<div class="plans">
      <div class="plan"><h3>Enterprise</h3><p class="price">$49 per user/month</p></div>
      <div class="plan"><h3>Test Automation</h3><p class="price"><sup>+ $</sup>49 per user/month</p></div>
    </div>`);
    expect(kinds(pricing)).toEqual([
      { name: "Enterprise", amount: 49, period: "month", kind: "plan", promo: null },
      { name: "Test Automation", amount: 49, period: "month", kind: "addon", promo: null },
    ]);
  });
});

describe("plan cards on real layouts", () => {
  it("keeps a card whose feature list is long: only its text outside the list says it is a section", () => {
    const feature = (n: number) =>
      `<li>Feature ${n}: a sentence describing what this feature does for the team, at some length. </li>`;
    const features = Array.from({ length: 40 }, (_, n) => feature(n)).join("");
    const { pricing } = html(`<div class="plans">
      <div class="plan"><h3>Team</h3><p class="price">$4 per user/month</p><ul>${features}</ul></div>
      <div class="plan"><h3>Enterprise</h3><p class="price">$21 per user/month</p><ul>${features}</ul></div>
    </div>`);
    expect(kinds(pricing)).toEqual([
      { name: "Team", amount: 4, period: "month", kind: "plan", promo: null },
      { name: "Enterprise", amount: 21, period: "month", kind: "plan", promo: null },
    ]);
  });

  it("reads no plan from a feature comparison built as an ARIA grid, even where its cells quote prices", () => {
    const row = (heading: string, cell: string) => `<div role="rowgroup">
      <div role="row"><div role="rowheader"><h3>${heading}</h3></div></div>
      <div role="row"><div role="rowheader">Spending</div><div role="cell">${cell}</div><div role="cell">${cell}</div></div>
    </div>`;
    const { pricing } = html(`<main>
      <div class="plans">
        <div class="plan"><h2>Free</h2><p class="price">$0 per user/month</p></div>
        <div class="plan"><h2>Team</h2><p class="price">$4 per user/month</p></div>
      </div>
      <div role="table">${row("Code workflow", "$0 spend limit")}${row("Collaboration", "$3.67 per user/month")}</div>
    </main>`);
    expect(pricing.filter(isPlanRecord).map((plan) => plan.name)).toEqual(["Free", "Team"]);
    // The grid's amounts are still prices: named by their row and section, never as plans; the same price in every
    // column of a row is one record.
    expect(
      pricing.filter((plan) => !isPlanRecord(plan)).map(({ name, origin, context }) => ({ name, origin, context })),
    ).toEqual([
      { name: "Spending", origin: "context", context: "Code workflow" },
      { name: "Spending", origin: "context", context: "Collaboration" },
    ]);
  });
});

describe("blocks that hold prices without being offers", () => {
  it("reads no plan from 'Others also viewed', reviews or a newsletter box beside the plan cards", () => {
    const { pricing } = html(`<main>
      <div class="plans">
        <div class="plan"><h3>Basic</h3><p class="price">$9/month</p></div>
        <div class="plan"><h3>Team</h3><p class="price">$29/month</p></div>
      </div>
      <div class="row">
        <div class="box"><h3>Others also viewed</h3><p class="price">$60</p></div>
        <div class="box"><h3>Customer reviews</h3><p class="price">$26</p></div>
        <div class="box"><h3>Newsletter</h3><p>Get $5 off your first order</p></div>
      </div></main>`);
    expect(pricing.map((plan) => plan.name)).toEqual(["Basic", "Team"]);
  });
});
