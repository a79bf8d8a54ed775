/**
 * Pricing records read without knowing the layout (src/detection/read/pricing/, docs/real-pages.md), end to end on
 * small markup of the layouts real pages use: what extract() reads, and what a change between two versions becomes
 * (diff and classify as a pricing page). Each layout here is one the engine once read nothing of, or read wrong.
 */
import { describe, expect, it } from "vitest";
import { classify } from "../../src/detection/classify/classify.js";
import { diffExtractions } from "../../src/detection/diff/diff.js";
import { extract } from "../../src/detection/read/index.js";
import { isPlanRecord, type EventDraft, type PricingPlan } from "../../src/detection/types.js";

const read = (html: string) =>
  extract(`<html><body><main>${html}</main></body></html>`, {
    url: "https://acme.com/pricing",
    contentType: "text/html; charset=utf-8",
    fetchMethod: "http",
  });

const prices = (plans: PricingPlan[]) =>
  plans.map((plan) => ({
    name: plan.name,
    amount: plan.amount,
    currency: plan.currency,
    period: plan.period,
    ...(plan.prices ? { options: plan.prices.map((o) => [o.amount, o.period, o.billing ?? null]) } : {}),
  }));

const priceOptionsOf = (plan: PricingPlan) => (plan.prices ?? [plan]).map((option) => option.amount);

/** The events a customer gets when a pricing page goes from `before` to `after`. */
function events(before: string, after: string): EventDraft[] {
  return classify(diffExtractions(read(before), read(after)), {
    competitorName: "Acme",
    sourceType: "pricing",
    sourceUrl: "https://acme.com/pricing",
  });
}

const pricingEvents = (drafts: EventDraft[]) => drafts.filter((event) => event.event_type === "pricing_change");

/** Three Bootstrap cards whose names are not headings. */
function bootstrapCards(nameTag: string, close = nameTag): string {
  const card = (name: string, price: number) =>
    `<div class="col"><div class="card"><${nameTag}>${name}</${close}><p class="price">$${price} / month</p>` +
    `<ul><li>10 projects</li><li>Email support</li></ul><button>Upgrade</button></div></div>`;
  return `<h1>Pricing</h1><div class="row">${card("Basic", 2)}${card("Premium", 4)}${card("Ultimate", 8)}</div>`;
}

const THREE_PLANS = [
  { name: "Basic", amount: 2, currency: "USD", period: "month" },
  { name: "Premium", amount: 4, currency: "USD", period: "month" },
  { name: "Ultimate", amount: 8, currency: "USD", period: "month" },
];

describe("records from the page's own repetition", () => {
  it('reads three Bootstrap cards named by <div class="h3">', () => {
    expect(prices(read(bootstrapCards('div class="h3"', "div")).pricing)).toEqual(THREE_PLANS);
  });

  it("reads three Bootstrap cards named by <strong>", () => {
    expect(prices(read(bootstrapCards("strong")).pricing)).toEqual(THREE_PLANS);
  });

  it("reads three Bootstrap cards named by a plain <span>", () => {
    expect(prices(read(bootstrapCards("span")).pricing)).toEqual(THREE_PLANS);
  });

  it("reads plans named by the words before their price in a table's head cells ('Pro<br>$12/mo', 'Pro $12/mo')", () => {
    const table = (head: (name: string, price: string) => string) =>
      `<h1>Compare plans</h1><table><thead><tr><th></th>${head("Free", "$0/mo")}${head("Pro", "$12/mo")}` +
      `${head("Business", "$24/mo")}</tr></thead><tbody><tr><td>Projects</td><td>3</td><td>Unlimited</td>` +
      `<td>Unlimited</td></tr></tbody></table>`;
    const expected = [
      { name: "Free", amount: 0, currency: "USD", period: "month" },
      { name: "Pro", amount: 12, currency: "USD", period: "month" },
      { name: "Business", amount: 24, currency: "USD", period: "month" },
    ];
    for (const head of [
      (name: string, price: string) => `<th>${name}<br><span>${price}</span></th>`,
      (name: string, price: string) => `<th>${name} ${price}</th>`,
    ]) {
      const { pricing } = read(table(head));
      expect(pricing.every(isPlanRecord)).toBe(true);
      expect(prices(pricing)).toEqual(expected);
    }
  });

  it("names short price lines by the words before their price, but not a sentence about a price", () => {
    const { pricing } = read(
      `<h1>Pricing</h1><div class="calc"><p class="line">Price per credit <span><sup>$</sup>50</span></p>` +
        `<p class="line">Setup fee (yearly) <span><sup>$</sup>0</span></p></div>`,
    );
    expect(pricing.map(({ name, amount, origin }) => [name, amount, origin])).toEqual([
      ["Price per credit", 50, "card"],
      ["Setup fee (yearly)", 0, "card"],
    ]);
  });

  it("names no record by a bound before an amount ('MRR lower than $5,000' in a free plan's feature list)", () => {
    const card = (name: string, price: string, feature: string) =>
      `<div class="card"><h5>${name}</h5><div><span class="big">${price}</span></div><ul role="list">` +
      `<li><svg></svg><span>${feature}</span></li><li><svg></svg><span>Email support</span></li></ul></div>`;
    const { pricing } = read(
      `<h1>Pricing</h1><div class="grid">${card("Free", "Free", "MRR lower than $5,000")}` +
        `${card("Managed", "£249/month", "MRR over $5,000")}</div>`,
    );
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Free", 0],
      ["Managed", 249],
    ]);
  });

  it("reads a bare number whose currency is the next line ('50K' over 'Rupiah Per Tahun', '49' over 'USD / month')", () => {
    const card = (name: string, amount: string, unit: string) =>
      `<div class="row"><div class="col"><p class="h1">Hosting for you</p><p>Made for personal sites.</p></div>` +
      `<div class="col"><h5 class="card-title">${name}</h5><p class="display-4">${amount}</p><p class="text-muted">${unit}</p>` +
      `<ul class="checklist"><li><b>500 MB</b> Storage</li><li><b>5</b> Subdomain</li></ul></div></div>`;
    const { pricing } = read(
      `<h1>Harga</h1>${card("Paket Lite", "50K", "Rupiah Per Tahun")}${card("Paket Pro", "200K", "Rupiah Per Tahun")}` +
        `${card("Team", "49", "USD / month")}`,
    );
    expect(prices(pricing)).toEqual([
      { name: "Paket Lite", amount: 50000, currency: "IDR", period: "year" },
      { name: "Paket Pro", amount: 200000, currency: "IDR", period: "year" },
      { name: "Team", amount: 49, currency: "USD", period: "month" },
    ]);
  });

  it("reads a bare number over a line that says it is a price per a period ('50K' over 'Harga per tahun'), not over a quota", () => {
    const card = (name: string, amount: string, line: string) =>
      `<div class="row"><div class="col"><p class="h3">${name}</p><p class="display-2">${amount}</p><p>${line}</p></div>` +
      `<div class="col"><ul class="checklist"><li><b>5</b> Subdomain</li><li><b>6</b> Database</li></ul></div></div>`;
    const prices = read(
      `<h1>Daftar Harga</h1>${card("Paket Lite", "50K", "Harga per tahun")}${card("Paket Pro", "200K", "Harga per tahun")}`,
    );
    expect(prices.pricing.map(({ name, amount, currency, period }) => [name, amount, currency, period])).toEqual([
      ["Paket Lite", 50000, null, "year"],
      ["Paket Pro", 200000, null, "year"],
    ]);
    const quotas = read(`<h1>Limits</h1>${card("Builds", "100", "per month")}${card("Deploys", "500", "per month")}`);
    expect(quotas.pricing).toEqual([]);
  });

  it("reads a price split into currency, whole part and cents as one amount ('$' '29' '.99' is 29.99)", () => {
    const card = (name: string, whole: number) =>
      `<div class="plan"><h2>${name}</h2><div class="price"><span class="cur">$</span><span class="num">${whole}</span>` +
      `<span class="cents">.99</span></div><div class="per">/mo</div><ul><li>A</li><li>B</li></ul></div>`;
    const { pricing } = read(`<h1>Pricing</h1><div class="plans">${card("Lite", 29)}${card("Max", 59)}</div>`);
    expect(pricing.map(({ name, amount, currency }) => [name, amount, currency])).toEqual([
      ["Lite", 29.99, "USD"],
      ["Max", 59.99, "USD"],
    ]);
  });

  it("reads the rows of each plan's own 'Feature | Included' table as that plan's, never one 'Included' record", () => {
    const plan = (name: string, price: number, perTunnel: string) =>
      `<section><h2>${name}</h2><p><span>$${price}</span><span>/mo</span></p><table><caption>Features</caption>` +
      `<thead><tr><th>Feature</th><th>Included</th></tr></thead><tbody><tr><th>Tunnels included.</th><td>5 tunnels</td></tr>` +
      `<tr><th>Cost per tunnel.</th><td>${perTunnel}</td></tr><tr><th>Commercial use.</th><td>Yes</td></tr></tbody></table></section>`;
    const page = (personalTunnel: string) =>
      `<h1>Pricing</h1>${plan("Personal", 25, personalTunnel)}${plan("Commercial", 125, "25 USD / mo")}`;
    expect(read(page("5 USD / mo")).pricing.map((record) => [record.name, record.amount])).toEqual([
      ["Personal", 25],
      ["Cost per tunnel (Personal)", 5],
      ["Commercial", 125],
      ["Cost per tunnel (Commercial)", 25],
    ]);
    // Personal's per-tunnel price going is told as Personal's, never as a raise of one merged record.
    expect(pricingEvents(events(page("5 USD / mo"), page("Included"))).map((event) => event.title)).toEqual([
      "Acme removed its Cost per tunnel (Personal) add-on",
    ]);
  });

  it("reads 'Get in touch /mo' and 'Call us' in a card's price place as offers on request", () => {
    const card = (name: string, price: string) =>
      `<div class="card"><div><span class="badge">${name}</span></div><div class="price">${price}</div>` +
      `<ul><li>All features</li><li>Email support</li></ul></div>`;
    const page = (enterprise: string) =>
      `<h2>Pricing</h2><div class="grid">${card("Team", "$199 <span>/mo</span>")}${card("Department", "$399 <span>/mo</span>")}` +
      `${card("Enterprise", enterprise)}</div>`;
    for (const enterprise of ["Get in touch <span>/mo</span>", "Call us"])
      expect(read(page(enterprise)).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
        ["Team", 199],
        ["Department", 399],
        ["Enterprise", null],
      ]);
    expect(pricingEvents(events(page("Get in touch <span>/mo</span>"), page("Call us")))).toEqual([]);
  });

  it("reads 'On-demand' and 'On request' in a plan's price place as offers on request", () => {
    const head = (name: string, price: string) => `<th><small>${name}</small><strong>${price}</strong></th>`;
    const { pricing } = read(
      `<h2>Pick your plan</h2><table><thead><tr><th>Features</th>${head("Free", "0.00€")}${head("Enterprise", "On-demand")}` +
        `${head("Enterprise Advanced", "On request")}</tr></thead><tbody><tr><td>Clusters</td><td>1</td><td>Unlimited</td>` +
        `<td>Unlimited</td></tr></tbody></table>`,
    );
    expect(pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Free", 0],
      ["Enterprise", null],
      ["Enterprise Advanced", null],
    ]);
  });

  it("takes a plan's name written again in every row of a comparison as the column's label, not a free offer", () => {
    const head = (name: string, price: string) => `<th><small>${name}</small><strong>${price}</strong></th>`;
    const cell = (label: string, value: string) => `<td><b class="label">${label}</b><h6>${value}</h6></td>`;
    const row = (feature: string, values: string[]) =>
      `<tr><td><h2>${feature}</h2></td>${cell("FREE", values[0]!)}${cell("PRO", values[1]!)}${cell("ENTERPRISE", values[2]!)}</tr>`;
    const page = (rows: string) =>
      `<table><thead><tr><th>Features</th>${head("FREE", "0.00€")}${head("PRO", "19€")}${head("ENTERPRISE", "Contact us")}` +
      `</tr></thead><tbody>${rows}</tbody></table>`;
    const rows = [
      row("Core analytics", ["Yes", "Yes", "Yes"]),
      row("History", ["1 month", "12 months", "Unlimited"]),
      row("Support", ["-", "Email", "Dedicated"]),
      row("Regions", ["1", "Any", "Any"]),
    ];
    const { pricing } = read(page(rows.join("")));
    expect(pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["FREE", 0],
      ["PRO", 19],
      ["ENTERPRISE", null],
    ]);
    // A feature row removed is no plan removed.
    expect(pricingEvents(events(page(rows.join("")), page(rows.slice(0, 3).join(""))))).toEqual([]);
  });

  it("reads a card of the plans' template whose price place holds words as an offer without a stated price", () => {
    const card = (name: string, price: string) =>
      `<div class="column"><div class="box"><p class="is-size-4 font-medium">${name}</p><p class="is-size-2">${price}` +
      ` <span class="is-size-6">/ month</span></p><p>Built for teams.</p><ul><li>SSO</li><li>Metrics</li></ul></div></div>`;
    const page = (pro: string) =>
      `<h1>Pricing</h1><div class="columns">${card("Community", "$0")}${card("Pro", pro)}` +
      `${card("Enterprise", "Talk to us")}</div>`;
    expect(read(page("Cluster")).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Community", 0],
      ["Pro", null],
      ["Enterprise", null],
    ]);
    // Its price stated later is a pricing event.
    expect(pricingEvents(events(page("$$"), page("$500"))).length).toBeGreaterThan(0);
  });

  it("reads a line pricing its offer in words beside priced lines, and a table row without a price among priced rows", () => {
    const list = read(
      `<h3>Plan Pricing</h3><ul><li><strong>Hobby</strong>: $5 / mo</li><li><strong>Pro</strong>: $20 / seat / mo</li>` +
        `<li><strong>Enterprise</strong>: Custom pricing</li></ul>` +
        `<p>The <strong>Enterprise</strong> plan helps with <strong>vendor registration</strong> and more.</p>`,
    );
    expect(list.pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Hobby", 5],
      ["Pro", 20],
      ["Enterprise", null],
    ]);
    const row = (name: string, price: string) =>
      `<tr><td><strong>${name}</strong></td><td>16 GB</td><td>${price}</td></tr>`;
    const gpus = read(
      `<table><thead><tr><th>GPU</th><th>Memory</th><th>Price</th></tr></thead><tbody>${row("A4000", "$0.76/hr")}` +
        `${row("A100", "$3.09/hr")}${row("H100", "$5.95/hr")}${row("A5000", "🔜")}</tbody></table>`,
    );
    expect(gpus.pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["A4000", 0.76],
      ["A100", 3.09],
      ["H100", 5.95],
      ["A5000", null],
    ]);
    // Feature rows beside a table's one priced row price nothing.
    const features = read(
      `<table><tbody><tr><td><strong>Price</strong></td><td>$0</td><td>$8/mo</td></tr>` +
        `<tr><td><strong>Endpoints</strong></td><td>Up to 3</td><td>Unlimited</td></tr>` +
        `<tr><td><strong>Domains</strong></td><td>Random</td><td>Custom</td></tr></tbody></table>`,
    );
    expect(features.pricing.map((plan) => plan.name)).not.toContain("Endpoints");
  });

  it("reads a period hidden from screen readers only ('$50<span aria-hidden>/mo</span>' after an sr-only 'Price:')", () => {
    const card = (name: string, price: string) =>
      `<div class="card"><h3>${name}</h3><p class="price"><span class="sr-only">Price:</span>${price}` +
      `<span aria-hidden="true">/mo</span></p><ul><li>Projects</li><li>Support</li></ul></div>`;
    const { pricing } = read(`<div class="grid">${card("Team", "$50")}${card("Business", "$200")}</div>`);
    expect(pricing.map((plan) => [plan.name, plan.amount, plan.period])).toEqual([
      ["Team", 50, "month"],
      ["Business", 200, "month"],
    ]);
  });

  it("names a plan 'Start' by its name-classed element, and reads a price classed 'old' as the list price", () => {
    const card = (name: string, price: string) =>
      `<div class="pricing-plan"><div class="plan-header"><span class="plan-name">${name}</span></div>` +
      `<div class="plan-price">${price}</div><ul><li>Projects</li><li>Support</li></ul><a class="btn">Start</a></div>`;
    const { pricing } = read(
      `<div class="plans">${card("Start", "49 zł netto / mies.")}${card("Biznes", "<span class='old'>149 zł</span> 99 zł / mies.")}</div>`,
    );
    expect(pricing.map((plan) => [plan.name, plan.amount, plan.promo_amount ?? null, plan.origin])).toEqual([
      ["Start", 49, null, "card"],
      ["Biznes", 149, 99, "card"],
    ]);
  });

  it("reads a plan priced 'for free' beside priced plans", () => {
    const card = (name: string, price: string) =>
      `<div class="column"><div class="is-size-3">${name}</div><div><span class="is-size-4">${price}</span></div>` +
      `<a class="button" href="/download">Download</a><div>1 user</div><div>Community support</div></div>`;
    const { pricing } = read(
      `<div class="columns">${card("Community", "for free")}${card("Premium", "$12")}${card("Team", "$150")}</div>`,
    );
    expect(pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Community", 0],
      ["Premium", 12],
      ["Team", 150],
    ]);
  });

  it("reads cents set apart after the sign as cents ('35€<sup>99</sup>' is 35.99, not 35 and 99)", () => {
    const card = (name: string, price: string) =>
      `<div class="plan"><h2>${name}</h2><h4 class="price">${price}</h4><span>per user / month</span></div>`;
    const { pricing } = read(
      `<h1>Pricing</h1><div class="plans">${card("Lite", "35€<sup>99</sup>")}${card("Max", "59€<span>49</span>")}</div>`,
    );
    expect(pricing.map((plan) => [plan.name, priceOptionsOf(plan), plan.currency])).toEqual([
      ["Lite", [35.99], "EUR"],
      ["Max", [59.49], "EUR"],
    ]);
  });

  it("reads cents in an element of their own after the whole amount (a WordPress price-table widget's '$ 9 99 /month')", () => {
    const table = (name: string, whole: string, cents: string) =>
      `<div class="elementor-price-table"><div class="elementor-price-table__header"><h3>${name}</h3></div>` +
      `<div class="elementor-price-table__price"><span class="elementor-price-table__currency">$</span>` +
      `<span class="elementor-price-table__integer-part">${whole}</span><div class="elementor-price-table__after-price">` +
      `<span class="elementor-price-table__fractional-part">${cents}</span>` +
      `<span class="elementor-price-table__period">/month</span></div></div><ul><li>10 users</li><li>Support</li></ul></div>`;
    const { pricing } = read(
      `<div class="row"><div class="col">${table("Starter", "9", "99")}</div><div class="col">${table("Pro", "29", "00")}</div></div>`,
    );
    expect(pricing.map((plan) => [plan.name, priceOptionsOf(plan), plan.period])).toEqual([
      ["Starter", [9.99], "month"],
      ["Pro", [29], "month"],
    ]);
  });

  it("reads a higher bare number beside a price as the list price it replaces ('10$ <span>20</span>')", () => {
    const card = (name: string, price: string) =>
      `<div class="plan"><h2>${name}</h2><h4 class="price">${price}</h4><span>per user / month</span></div>`;
    const { pricing } = read(
      `<h1>Pricing</h1><div class="plans">${card("Pro", "4$")}${card("Team", '10$ <span class="discounted">20</span>')}</div>`,
    );
    expect(pricing.map((plan) => [plan.name, priceOptionsOf(plan), plan.promo_amount ?? null])).toEqual([
      ["Pro", [4], null],
      ["Team", [20], 10],
    ]);
  });

  it("reads the same labels under the prices of many cards as each card's options ('$11.00 / Buy', '$14.00 / Extend')", () => {
    const card = (name: string, buy: number, extend: number) =>
      `<div class="col"><div class="d-flex"><div class="h2 card-title">${name}</div>` +
      `<div><div class="display-4">$ ${buy}.00</div><h6 class="text-muted">Buy</h6></div>` +
      `<div><div class="h5">$ ${extend}.00</div><h6 class="text-muted">Extend</h6></div></div></div>`;
    const { pricing } = read(
      `<h1>Domain Price List</h1><div class="row">${card(".COM", 11, 11)}${card(".ORG", 11, 14)}${card(".XYZ", 3, 12)}</div>`,
    );
    expect(pricing.map((plan) => [plan.name, priceOptionsOf(plan)])).toEqual([
      [".COM", [11, 11]],
      [".ORG", [11, 14]],
      [".XYZ", [3, 12]],
    ]);
  });

  it("reads a card of the plans' own name shape whose name says 'Free' as a free plan, without a price of its own", () => {
    const card = (name: string, price: number) =>
      `<div class="box"><h2 class="plan-name">${name}</h2><div class="plan-price"><span class="currency">$</span>` +
      `<span class="price">${price}</span><span class="month">/mo</span></div></div>`;
    const { pricing } = read(
      `<h1>Plans</h1><div class="box"><h2 class="plan-name">Free Push</h2><p>Our free plan gives unlimited ` +
        `notifications up to 5,000 users.</p></div><div class="plans">${card("Start Push", 199)}${card("More Push", 399)}</div>`,
    );
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Free Push", 0],
      ["Start Push", 199],
      ["More Push", 399],
    ]);
  });

  it("reads a card of the plans' own name shape that asks to be contacted as an offer on request", () => {
    const card = (name: string, body: string) =>
      `<div class="card price-plan"><h2 class="card-title">${name}</h2><p class="card-text">${body}</p></div>`;
    const { pricing } = read(
      `<h1>Rates</h1><div class="deck">${card("Wanderer", "<strong>$158/month</strong>")}` +
        `${card("Explorer", "<strong>$195/month</strong>")}</div>` +
        card("Tribe", 'Share a package with your team! <a href="/contact">Contact us</a> for more information.'),
    );
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Wanderer", 158],
      ["Explorer", 195],
      ["Tribe", null],
    ]);
  });

  it("names a card by its most prominent text before the price, not by its badge or tagline", () => {
    const card = (name: string, price: number, badge = "") =>
      `<div><p class="tagline">Made for teams</p>${badge}<div class="plan-title">${name}</div><span>$${price}/mo</span><ul><li>a</li></ul></div>`;
    const { pricing } = read(
      `<div>${card("Starter", 9)}${card("Growth", 29, '<span class="ribbon">Most popular</span>')}${card("Scale", 99)}</div>`,
    );
    expect(pricing.map((plan) => plan.name)).toEqual(["Starter", "Growth", "Scale"]);
  });

  it("reads a comparison grid of div columns, each named in its head cell, its price further down the column", () => {
    const column = (name: string, price: string) =>
      `<div class="col"><div class="head"><strong>${name}</strong></div><div class="cell">Unlimited users</div>` +
      `<div class="cell">${price}</div><div class="cell">Email support</div></div>`;
    const { pricing } = read(
      `<div class="grid">${column("10k", "$19/mo")}${column("40k", "$49/mo")}${column("100k", "$99/mo")}</div>`,
    );
    expect(prices(pricing)).toEqual([
      { name: "10k", amount: 19, currency: "USD", period: "month" },
      { name: "40k", amount: 49, currency: "USD", period: "month" },
      { name: "100k", amount: 99, currency: "USD", period: "month" },
    ]);
  });

  it("knows cards that carry no name by their price", () => {
    const card = (price: string) =>
      `<div class="col"><div class="panel"><p>${price}</p><ul><li>Unlimited checks</li><li>Team access</li></ul></div></div>`;
    const { pricing } = read(`<div class="row">${card("free")}${card("$5/mo")}${card("$20/mo")}</div>`);
    expect(prices(pricing)).toEqual([
      { name: "free", amount: 0, currency: null, period: null },
      { name: "$5/mo", amount: 5, currency: "USD", period: "month" },
      { name: "$20/mo", amount: 20, currency: "USD", period: "month" },
    ]);
  });

  it("reads both periods of a price written in one line: '$10/year or $1/month'", () => {
    const card = (name: string, text: string) => `<div><h3>${name}</h3><p>${text}</p></div>`;
    const { pricing } = read(
      `<div>${card("Personal", "$10/year or $1/month")}${card("Team", "$50/year or $5/month")}</div>`,
    );
    expect(prices(pricing)).toEqual([
      {
        name: "Personal",
        amount: 10,
        currency: "USD",
        period: "year",
        options: [
          [10, "year", null],
          [1, "month", null],
        ],
      },
      {
        name: "Team",
        amount: 50,
        currency: "USD",
        period: "year",
        options: [
          [50, "year", null],
          [5, "month", null],
        ],
      },
    ]);
  });

  it("reads a plan's prices inside its buttons, with how each is billed", () => {
    const card = (name: string, month: number, year: number) =>
      `<div><h3>${name}</h3><form><button>Monthly billing $${month}/month</button><button>Yearly billing $${year}/year</button></form></div>`;
    const { pricing } = read(`<div>${card("Pro", 4, 30)}${card("Team", 8, 60)}</div>`);
    expect(prices(pricing)).toEqual([
      {
        name: "Pro",
        amount: 4,
        currency: "USD",
        period: "month",
        options: [
          [4, "month", "month"],
          [30, "year", "year"],
        ],
      },
      {
        name: "Team",
        amount: 8,
        currency: "USD",
        period: "month",
        options: [
          [8, "month", "month"],
          [60, "year", "year"],
        ],
      },
    ]);
  });

  it("names prices in a plan's column by the label column beside it, as that plan's add-ons", () => {
    const labels = `<div class="labels"><ul><li>Projects</li><li>Additional user<span class="period">per month</span></li><li>Storage</li></ul></div>`;
    const plan = (name: string, price: number, user: number) =>
      `<div class="product"><h2>${name}</h2><h3>$${price} per month</h3><ul><li>Unlimited</li><li><span class="price">$${user}</span> per month</li><li>100 GB</li></ul></div>`;
    const { pricing } = read(`<div class="table">${labels}${plan("Team", 74, 12)}${plan("Business", 225, 4)}</div>`);
    expect(pricing.map(({ name, kind, amount }) => ({ name, kind: kind ?? "plan", amount }))).toEqual([
      { name: "Team", kind: "plan", amount: 74 },
      { name: "Additional user (Team)", kind: "addon", amount: 12 },
      { name: "Business", kind: "plan", amount: 225 },
      { name: "Additional user (Business)", kind: "addon", amount: 4 },
    ]);
  });

  it("reads a comparison table's cost row under its header of plan names, 'Free' cells included", () => {
    const { pricing } = read(`<table><tr><th></th><th>Free</th><th>Teams</th><th>Enterprise</th></tr>
      <tr><td>Users</td><td>2</td><td>Unlimited</td><td>Unlimited</td></tr>
      <tr><td>Cost</td><td>Free</td><td>$3 per user per month, billed annually</td><td>$5 per user per month, billed annually</td></tr></table>`);
    expect(prices(pricing)).toEqual([
      { name: "Free", amount: 0, currency: null, period: null },
      { name: "Teams", amount: 3, currency: "USD", period: "month", options: [[3, "month", "year"]] },
      { name: "Enterprise", amount: 5, currency: "USD", period: "month", options: [[5, "month", "year"]] },
    ]);
  });

  it("reads a lone card of the set's own template standing in a section of its own", () => {
    const card = (name: string, price: number) =>
      `<ul class="pricing-table"><li class="title">${name}</li><li class="price">$${price}<span>/month</span></li><li>Support</li></ul>`;
    const { pricing } = read(
      `<div class="hosted"><h2>Hosted</h2><div class="row"><div class="col-4">${card("Basic", 29)}</div>` +
        `<div class="col-4">${card("Pro", 59)}</div></div></div>` +
        `<div class="onprem"><h2>On-premise</h2><div class="col-12">${card("Enterprise 10", 300)}</div></div>`,
    );
    expect(pricing.map(({ name, origin, amount }) => ({ name, origin, amount }))).toEqual([
      { name: "Basic", origin: "card", amount: 29 },
      { name: "Pro", origin: "card", amount: 59 },
      { name: "Enterprise 10", origin: "card", amount: 300 },
    ]);
  });

  it("reads priced lines of a card's feature list as that plan's add-ons, named by what the price is for", () => {
    const card = (name: string, price: number, project: number) =>
      `<div class="product"><div class="header"><h2>${name}</h2><h3><span class="price">$${price}</span></h3></div>` +
      `<ul class="body"><li>1 certificate included</li>` +
      `<li><div>1 project included</div><div class="sub"><span class="price">$${project}</span> per additional project</div></li>` +
      `<li><div>1 user included</div><div class="sub"><span class="price">$${project}</span> per additional user</div></li></ul></div>`;
    const { pricing } = read(`<div class="products">${card("Starter", 500, 150)}${card("Basic", 1000, 200)}</div>`);
    expect(pricing.map(({ name, kind, amount }) => ({ name, kind: kind ?? "plan", amount }))).toEqual([
      { name: "Starter", kind: "plan", amount: 500 },
      { name: "Additional project (Starter)", kind: "addon", amount: 150 },
      { name: "Additional user (Starter)", kind: "addon", amount: 150 },
      { name: "Basic", kind: "plan", amount: 1000 },
      { name: "Additional project (Basic)", kind: "addon", amount: 200 },
      { name: "Additional user (Basic)", kind: "addon", amount: 200 },
    ]);
  });

  it("reads a price per unit of use in a plan's column as a meter of that plan, not a second price of the plan", () => {
    const column = (name: string, price: number) =>
      `<div class="col"><h2>${name}</h2><h3><sup>$</sup>${price}/ month</h3>` +
      `<p><sup>$</sup>130 / GB memory per month</p><a href="/contact">Contact us</a></div>`;
    const page = (low: number) => `<div class="row">${column("Prototyping", low)}${column("Production", 2070)}</div>`;
    expect(
      read(page(1550)).pricing.map(({ name, kind, amount, period }) => [name, kind ?? "plan", amount, period]),
    ).toEqual([
      ["Prototyping", "plan", 1550, "month"],
      ["GB memory (Prototyping)", "usage", 130, "month"],
      ["Production", "plan", 2070, "month"],
      ["GB memory (Production)", "usage", 130, "month"],
    ]);
    expect(pricingEvents(events(page(1550), page(1780))).map((event) => event.title)).toEqual([
      expect.stringContaining("Prototyping"),
    ]);
    // "+ 0.99 € /device" under a plan's monthly price is a price per device beside it, not the plan's second price.
    const card = (name: string, price: string) =>
      `<li class="card"><h3>${name}</h3><div class="price">${price} € /month</div>` +
      `<div class="grey">+ 0.99 € /device</div><ul><li>Up to 50 devices</li></ul></li>`;
    const devices = read(`<h1>Pricing</h1><ul class="cards">${card("Basic", "19.99")}${card("Pro", "39.99")}</ul>`);
    expect(devices.pricing.map(({ name, kind, amount }) => [name, kind ?? "plan", amount])).toEqual([
      ["Basic", "plan", 19.99],
      ["device (Basic)", "usage", 0.99],
      ["Pro", "plan", 39.99],
      ["device (Pro)", "usage", 0.99],
    ]);
    // "+ $10 per extra seat" under "$49/mo": an add-on the plan sells, not a second price of the plan.
    const seats = (name: string, price: string, extra: string) =>
      `<div class="card"><h3>${name}</h3><p class="price">${price}/mo</p><p class="small">+ ${extra} per extra seat</p>` +
      `<ul><li>5 seats</li><li>Support</li></ul></div>`;
    const team = read(`<div class="grid">${seats("Team", "$49", "$10")}${seats("Business", "$199", "$8")}</div>`);
    expect(team.pricing.map(({ name, kind, amount }) => [name, kind ?? "plan", amount])).toEqual([
      ["Team", "plan", 49],
      ["extra seat (Team)", "addon", 10],
      ["Business", "plan", 199],
      ["extra seat (Business)", "addon", 8],
    ]);
  });

  it("reads plans named at the head of a comparison grid and priced in the monthly and yearly panes below it", () => {
    const head = (name: string, seats: number, addon: string) =>
      `<div class="col"><div class="head line"><strong>${name}</strong><br>cloud</div><div class="line">${seats}</div>` +
      `<div class="line">Unlimited</div><div class="line"><span title="Additional charge">${addon}</span></div></div>`;
    const pane = (id: string, prices: string[], period: string) =>
      `<div id="${id}" class="tab">${prices.map((price) => `<div class="col"><div class="line price"><strong>${price}</strong> ${period}</div><div class="line"><a class="button">Buy now</a></div></div>`).join("")}</div>`;
    const { pricing } = read(
      `<div class="table"><div class="left"><div class="col"><div class="line">Translators</div><div class="line">Projects</div>` +
        `<div class="line">Dedicated instance</div></div></div><div class="right">${head("Basic", 5, "€ 100")}${head("Medium", 15, "€ 100")}` +
        `<div class="tabs">${pane("monthly", ["€ 19", "€ 49"], "Monthly")}${pane("yearly", ["€ 199", "€ 499"], "Yearly")}</div></div></div>`,
    );
    expect(pricing.map(({ name, kind, amount }) => ({ name, kind: kind ?? "plan", amount }))).toEqual([
      { name: "Dedicated instance (Basic)", kind: "addon", amount: 100 },
      { name: "Dedicated instance (Medium)", kind: "addon", amount: 100 },
      { name: "Basic", kind: "plan", amount: 19 },
      { name: "Medium", kind: "plan", amount: 49 },
    ]);
    expect(pricing.find((plan) => plan.name === "Medium")!.prices!.map((option) => option.amount)).toEqual([49, 499]);
  });

  it("takes 'Free' opening a sentence for a price, not for the name of a list of prices", () => {
    const { pricing } = read(
      `<p>CodePush is priced as follows:</p><ul><li><strong>Free</strong> for annual plans and Enterprise customers.</li>` +
        `<li><strong>$99/month per team</strong> for pay-as-you-go customers.</li><li><strong>$6k/year</strong> for a standalone instance.</li></ul>` +
        `<h2>Builds</h2><ul><li>Linux</li><li>macOS</li></ul>`,
    );
    expect(pricing.filter(isPlanRecord)).toEqual([]);
    expect(pricing.map((plan) => plan.amount)).toEqual([99, 6000]);
  });

  it("reads an offer priced only by 'Contact us' in a block of its own beside the plans, not a note below them", () => {
    const card = (name: string, price: number) =>
      `<div class="product"><h2>${name}</h2><h3>$${price} per month</h3><ul><li>5 users</li></ul><a class="btn">Buy</a></div>`;
    const { pricing } = read(
      `<div class="pricing"><div class="additional"><div><h2>Enterprise</h2></div><div><p>For organizations that need more.</p>` +
        `<a class="btn">Contact us</a></div></div><div class="products">${card("Team", 74)}${card("Business", 225)}</div>` +
        `<div class="info"><h3>Billing</h3><p>All plans are billed up-front. For special inquiries, please <a>contact us</a>.</p></div></div>`,
    );
    expect(pricing.map(({ name, amount }) => ({ name, amount }))).toEqual([
      { name: "Enterprise", amount: null },
      { name: "Team", amount: 74 },
      { name: "Business", amount: 225 },
    ]);
  });

  it("reads a list of prices named in bold line by line, never as one plan with every price of the list", () => {
    const { pricing } = read(
      `<h2>Plan pricing</h2><ul><li><strong>Hobby</strong>: $5 / mo, including $5 of usage</li>` +
        `<li><strong>Pro</strong>: $20 / seat / mo</li></ul>` +
        `<h2>Usage pricing</h2><ul><li><strong>RAM</strong>: $10 / GB / mo</li><li><strong>CPU</strong>: $20 / vCPU / mo</li></ul>`,
    );
    const byName = new Map(pricing.map((plan) => [plan.name, priceOptionsOf(plan)]));
    expect(byName.get("Hobby")).toEqual([5]);
    expect(byName.get("Pro")).toEqual([20]);
    expect(byName.get("RAM")).toEqual([10]);
    // Each line names its own price in bold: a plan, or a meter when priced per unit.
    expect(pricing.filter((plan) => plan.origin === "card").map(({ name, kind }) => [name, kind ?? "plan"])).toEqual([
      ["Hobby", "plan"],
      ["Pro", "plan"],
      ["RAM", "usage"],
      ["CPU", "usage"],
    ]);
  });

  it("reads a table row written line by line, its cells each a list, as one record per line", () => {
    const row = (gpu: string, lines: [string, string][]) =>
      `<tr><td><p><strong>${gpu}</strong></p><ul>${lines.map(([name]) => `<li>${name}</li>`).join("")}</ul></td>` +
      `<td><p><br></p><ul>${lines.map(([, price]) => `<li>${price}</li>`).join("")}</ul></td>` +
      `<td><ul>${lines.map(() => "<li>Available</li>").join("")}</ul></td></tr>`;
    const { pricing } = read(
      `<h1>Machine types</h1><table><thead><tr><th>GPU</th><th>Price on Core</th><th>Availability</th></tr></thead><tbody>` +
        row("P4000", [
          ["P4000", "$0.51 / hr"],
          ["P4000x2", "$1.02 / hr"],
        ]) +
        row("V100", [["V100", "$2.30 / hr"]]) +
        `</tbody></table>`,
    );
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["P4000", 0.51],
      ["P4000x2", 1.02],
      ["V100", 2.3],
    ]);
  });

  it("reads a comparison table's price row labelled with its currency ('Contribution (USD)') as the plans' prices", () => {
    const table = (label: string) =>
      `<h1>Catalyst</h1><table><thead><tr><th>Benefit</th><th>Insider</th><th>Supporter</th><th>VIP</th></tr></thead>` +
      `<tbody><tr><td>Early access</td><td>✓</td><td>✓</td><td>✓</td></tr>` +
      `<tr><td><strong>${label}</strong></td><td>$25</td><td>$50</td><td>$100</td></tr></tbody></table>`;
    expect(read(table("Contribution (USD)")).pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Insider", 25],
      ["Supporter", 50],
      ["VIP", 100],
    ]);
    expect(pricingEvents(events(table("Pricing"), table("Contribution (USD)")))).toEqual([]);
  });

  it("names a table row by its label, or by the head of a label too long to name it ('Class B Requests: GET, …')", () => {
    const { pricing } = read(
      `<h1>Pricing</h1><table><thead><tr><th>Component</th><th>Standard Tier</th><th>Archive Tier</th></tr></thead><tbody>` +
        `<tr><td>Class A Requests: PUT, COPY, POST, LIST</td><td>$0.005/1000 requests</td><td>$0.005/1000 requests</td></tr>` +
        `<tr><td>Class B Requests: GET, SELECT, HEAD, OPTIONS, and all the other kinds of request</td>` +
        `<td>$0.0005/1000 requests</td><td>$0.0005/1000 requests</td></tr></tbody></table>`,
    );
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Standard Tier – Class A Requests: PUT, COPY, POST, LIST", 0.005],
      ["Archive Tier – Class A Requests: PUT, COPY, POST, LIST", 0.005],
      ["Standard Tier – Class B Requests", 0.0005],
      ["Archive Tier – Class B Requests", 0.0005],
    ]);
  });

  it("reads a cell that says 'Free + …' as a price of 0 beside the row's priced cells", () => {
    const { pricing } = read(
      `<h1>Pricing</h1><table><thead><tr><th>User</th><th>Public Repository</th><th>Private Repository</th></tr></thead>` +
        `<tbody><tr><td>Person</td><td>Free + Access to community cluster</td><td>$10/month + Access to community cluster</td></tr>` +
        `<tr><td>Organization</td><td>Free + Access to community cluster</td><td>$10/seat/month + Access to community cluster</td></tr>` +
        `</tbody></table>`,
    );
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Public Repository – Person", 0],
      ["Private Repository – Person", 10],
      ["Public Repository – Organization", 0],
      ["Private Repository – Organization", 10],
    ]);
  });

  it("reads a row of 'Free' cells in a table whose other rows are priced as prices at 0", () => {
    const matrix = (egress: string) =>
      `<h1>Pricing</h1><table><thead><tr><th>Component</th><th>Standard</th><th>Archive</th></tr></thead><tbody>` +
      `<tr><td>Data storage</td><td>$0.02/GB/month</td><td>$0.004/GB/month</td></tr>` +
      `<tr><td>Requests</td><td>$0.005/1000 requests</td><td>$0.005/1000 requests</td></tr>` +
      `<tr><td>Egress</td>${egress}</tr></tbody></table>`;
    const read0 = read(matrix("<td>Free</td><td>Free</td>")).pricing;
    expect(read0.filter((plan) => /Egress/.test(plan.name)).map(({ name, amount }) => [name, amount])).toEqual([
      ["Standard – Egress", 0],
      ["Archive – Egress", 0],
    ]);
    // Egress priced where it was free is a price change, told.
    expect(
      pricingEvents(events(matrix("<td>Free</td><td>Free</td>"), matrix("<td>$0.05/GB</td><td>$0.05/GB</td>"))),
    ).not.toEqual([]);
  });

  it("places a table's prices under their plans when a cell above spans two rows", () => {
    const { pricing } =
      read(`<table><thead><tr><td></td><th>Free software</th><th>Basic</th><th>Medium</th></tr></thead>
      <tfoot><tr><th>Monthly by PayPal</th><td rowspan="2"><a>Contact us</a></td><td>19 EUR / month</td><td>49 EUR / month</td></tr>
      <tr><th>Yearly by invoice (save 15-20%)</th><td>199 EUR / year</td><td>499 EUR / year</td></tr></tfoot></table>`);
    expect(pricing.map((plan) => [plan.name, priceOptionsOf(plan)])).toEqual([
      ["Free software", [null]],
      ["Basic", [19, 199]],
      ["Medium", [49, 499]],
    ]);
  });

  it("tells apart table rows that share a first cell by the cells before their prices", () => {
    const row = (size: string, disk: string, vm: string, total: string) =>
      `<tr><td>${size}</td><td>${disk}</td><td>${vm}</td><td>${total}</td></tr>`;
    const { pricing } = read(
      `<table><thead><tr><th colspan="2">Size</th><th>VM Price</th><th>Total Price</th></tr></thead><tbody>` +
        `${row("shared-cpu-1x", "10GB volumes", "~$1.94/mo", "~$6.88/mo")}${row("shared-cpu-1x", "40GB volumes", "~$10.70/mo", "~$27.40/mo")}` +
        `${row("dedicated-cpu-2x", "100GB volumes", "~$62/mo", "~$154/mo")}</tbody></table>`,
    );
    const totals = pricing.filter((plan) => !plan.name.startsWith("VM Price"));
    expect(totals.map((plan) => [plan.name, priceOptionsOf(plan)])).toEqual([
      ["shared-cpu-1x, 10GB volumes", [6.88]],
      ["shared-cpu-1x, 40GB volumes", [27.4]],
      ["dedicated-cpu-2x", [154]],
    ]);
    expect(pricing.find((plan) => plan.amount === 10.7)!.name).toBe("VM Price – shared-cpu-1x, 40GB volumes");
  });

  it("reads no record from a comparison table's row of limits ending in 'Custom', but a plan row priced 'Contact us'", () => {
    const limits = read(
      `<h1>Pricing</h1><table><thead><tr><th>Feature</th><th>Free</th><th>Pay as you go</th><th>Enterprise</th></tr>` +
        `</thead><tbody><tr><td>Max DLQ Size</td><td>1,000</td><td>10,000</td><td>Custom</td></tr>` +
        `<tr><td>Max Delay</td><td>7 days</td><td>30 days</td><td>Custom</td></tr>` +
        `<tr><td>Price per 100K Messages</td><td>N/A</td><td>$1</td><td>Custom</td></tr></tbody></table>`,
    );
    expect(limits.pricing.map((plan) => plan.name)).not.toContain("Max DLQ Size");
    expect(limits.pricing.map((plan) => plan.name)).not.toContain("Max Delay");
    const plans = read(
      `<h1>Pricing</h1><table><tr><th>Plan</th><th>Price</th><th>Users</th></tr><tr><td>Starter</td><td>$9/mo</td>` +
        `<td>1</td></tr><tr><td>Growth</td><td>$29/mo</td><td>5</td></tr><tr><td>Enterprise</td><td>Contact us</td>` +
        `<td>Unlimited</td></tr></table>`,
    );
    expect(plans.pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Starter", 9],
      ["Growth", 29],
      ["Enterprise", null],
    ]);
  });

  it("names a priced table row by a long first cell, but a row of limits priced 'Custom' not at all", () => {
    const { pricing } = read(
      `<h1>Pricing</h1><table><thead><tr><th>Component</th><th>Price</th></tr></thead><tbody>` +
        `<tr><td>Data Storage</td><td>$0.02/GB/month</td></tr>` +
        `<tr><td>Data Transfer to Machine(s) in the same region</td><td>$0.00/GB</td></tr>` +
        `<tr><td>Data Transfer to Internet</td><td>$0.05/GB</td></tr></tbody></table>` +
        `<table><thead><tr><th>Feature</th><th>Free</th><th>Pay as you go</th><th>Enterprise</th></tr></thead><tbody>` +
        `<tr><td>Max Events Size (Number of logs to keep)</td><td>10,000</td><td>10,000</td><td>Custom</td></tr>` +
        `<tr><td>Price per 100K Messages</td><td>N/A</td><td><strong>$1</strong></td><td>Custom</td></tr></tbody></table>`,
    );
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Data Storage", 0.02],
      ["Data Transfer to Machine(s) in the same region", 0],
      ["Data Transfer to Internet", 0.05],
      ["Price per 100K Messages", 1],
      ["Enterprise", null],
    ]);
  });

  it("reads a price cell's period from its column's head ('Plan | Monthly | Annual')", () => {
    const row = (name: string, month: number) =>
      `<tr><td>${name}</td><td>$${month}</td><td>$${month * 10}</td><td>1</td></tr>`;
    const { pricing } = read(
      `<h1>Plans</h1><table><thead><tr><th>Plan</th><th>Monthly</th><th>Annual</th><th>Seats</th></tr></thead><tbody>` +
        `${row("Solo", 12)}${row("Team", 39)}</tbody></table>`,
    );
    expect(pricing.map((plan) => [plan.name, plan.prices?.map((o) => [o.amount, o.period])])).toEqual([
      [
        "Solo",
        [
          [12, "month"],
          [120, "year"],
        ],
      ],
      [
        "Team",
        [
          [39, "month"],
          [390, "year"],
        ],
      ],
    ]);
  });

  it("names the rows of a volume price table by their tier ('10,000 | $99')", () => {
    const { pricing } = read(
      `<h2>Add-on pricing</h2><table><thead><tr><th>Monthly Active Users</th><th>Price (USD)</th></tr></thead><tbody>` +
        `<tr><td>10,000</td><td>$99</td></tr><tr><td>150,000</td><td>$198</td></tr><tr><td>1-10M</td><td>$990</td></tr>` +
        `</tbody></table>`,
    );
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["10,000", 99],
      ["150,000", 198],
      ["1-10M", 990],
    ]);
  });

  it("reads a row of a comparison whose label ends in a template's full stop as a price of its own, not a plan's option", () => {
    const cell = (text: string) => `<td><span>${text}</span></td>`;
    const { pricing } = read(
      `<table><thead><tr><th>Plans</th><th>Personal</th><th>Business</th></tr></thead><tbody>` +
        `<tr><th scope="row">Pricing</th>${cell("$19.99 /mo")}${cell("$249.99 /mo")}</tr>` +
        `<tr><th scope="row">Tunnels included.</th>${cell("2 tunnels")}${cell("5 tunnels")}</tr>` +
        `<tr><th scope="row">Cost per tunnel.</th>${cell("10 USD / mo")}${cell("50 USD / mo")}</tr>` +
        `<tr><th scope="row">Platform fee.</th>${cell("n/a")}${cell("250 USD / mo")}</tr></tbody></table>`,
    );
    // "Cost per tunnel" below the plans' price row is a price per tunnel, not another option of each plan's price.
    expect(pricing.map((plan) => [plan.name, priceOptionsOf(plan)])).toEqual([
      ["Personal", [19.99]],
      ["Business", [249.99]],
      ["Personal – Cost per tunnel", [10]],
      ["Business – Cost per tunnel", [50]],
      ["Business – Platform fee", [250]],
    ]);
  });

  it("names a table row by its first cell whatever wraps the text, without footnote marks or status notes", () => {
    const row = (name: string, price: string) => `<tr><td>${name}</td><td>8 vCPU</td><td>${price}</td></tr>`;
    const { pricing } = read(
      `<table><tr><th>Hardware</th><th>CPU</th><th>Hourly price</th></tr>${row("T4 small", "$0.40")}` +
        `${row("A10G large", "$1.50")}${row("<em>H100 - deprecated December 2025</em>", "$4.50")}` +
        `${row("L40S<sup>1</sup>", "$1.80")}${row("A100 (Beta)", "$2.50")}${row("L4**", "$0.80")}</table>`,
    );
    expect(pricing.map((plan) => plan.name)).toEqual(["T4 small", "A10G large", "H100", "L40S", "A100", "L4"]);
  });

  it("reads no plan from a theme's tab pane that nothing on the page can show, but reads a pane its tab shows", () => {
    const card = (name: string, price: string) =>
      `<div class="col"><div class="card"><h6>${name}</h6><div class="display-2">${price}</div><span>per month</span>` +
      `<ul><li>Unlimited links</li></ul></div></div>`;
    const panes = (tabs: string) =>
      `<h1>Pricing</h1>${tabs}<div class="tab-content"><div class="tab-pane" id="personal"><div class="row">` +
      `${card("Gold", "$100")}${card("Platinum", "$135")}</div></div><div class="tab-pane active" id="business">` +
      `<div class="row">${card("Starter", "€9")}${card("Scale", "€29")}</div></div></div>`;
    const names = (html: string) => read(html).pricing.map((plan) => plan.name);
    // Bootstrap hides a .tab-pane that is not .active: with no tab targeting it, no visitor ever sees Gold.
    expect(names(panes(""))).toEqual(["Starter", "Scale"]);
    const tabs =
      '<ul class="nav nav-pills"><li><a data-toggle="tab" href="#personal">Personal</a></li>' +
      '<li><a data-toggle="tab" href="#business">Business</a></li></ul>';
    expect(names(panes(tabs))).toEqual(expect.arrayContaining(["Gold", "Platinum", "Starter", "Scale"]));
  });

  it("reads a card set whose cards end in the same footnote pricing someone else's fee, and its 'Contact us' card", () => {
    const card = (name: string, price: string, note: string) =>
      `<div class="col-lg-4"><div class="single-price-box"><div class="pricing-head"><div class="pricing-type">` +
      `<span>${name}</span></div><div class="price">${price}</div></div><div class="pricing-body"><ul>` +
      `<li>1% service fee* (only successful transactions)</li><li>Unlimited customers</li></ul>` +
      `<a href="#" class="btn">Create your account</a><p class="hidden-charge">${note}</p></div></div></div>`;
    const stripe = "* plus Stripe's transaction fees, <br>typically 2,9% + 30¢";
    const page =
      `<h1>Pricing</h1><div class="row">${card("Basic", "€0 /mo", stripe)}${card("PRO", "€20 /mo", stripe)}` +
      `${card("Enterprise", "Contact us", "Contact us for a free quote.")}</div>`;
    const plans = read(page).pricing.filter(isPlanRecord);
    expect(prices(plans)).toEqual([
      { name: "Basic", amount: 0, currency: "EUR", period: "month" },
      { name: "PRO", amount: 20, currency: "EUR", period: "month" },
      { name: "Enterprise", amount: null, currency: null, period: null },
    ]);
    // The footnote's amount is still read (a change to it is never silent), by its context, not named after a button.
    const note = read(page).pricing.find((plan) => plan.amount === 0.3);
    expect(note?.name).not.toMatch(/create your account|service fee/i);
    // Rewording the button above a footnote is no price change.
    expect(pricingEvents(events(page, page.replaceAll("Create your account", "Create your free account")))).toEqual([]);
  });

  it("reads a price written a digit per element (an animated counter) as one number, never a price per digit", () => {
    const card = (name: string, digits: string) =>
      `<div class="card"><h3>${name}</h3><div class="price"><span class="currency">$</span>` +
      `${[...digits].map((digit) => `<span class="digit">${digit}</span>`).join("\n")}<span class="per">/mo</span></div>` +
      `<ul><li>Unlimited projects</li></ul></div>`;
    const { pricing } = read(`<h1>Pricing</h1><div class="cards">${card("Basic", "19")}${card("Pro", "149")}</div>`);
    expect(prices(pricing)).toEqual([
      { name: "Basic", amount: 19, currency: "USD", period: "month" },
      { name: "Pro", amount: 149, currency: "USD", period: "month" },
    ]);
    // Cells are not digits of one number: a comparison row "Projects | 1 | 5" keeps its numbers apart.
    const table =
      "<table><tr><th></th><th>Basic</th><th>Pro</th></tr><tr><td>Price</td><td>$9/mo</td><td>$29/mo</td></tr>" +
      "<tr><td>Projects</td><td>1</td>\n<td>5</td></tr></table>";
    expect(read(`<h1>Pricing</h1>${table}`).text).toContain("Projects | 1 | 5");
  });

  it("reads a yearly price whose line also says what it saves ('or $490/year (save 2 months)'), never the saving", () => {
    const card = (name: string, monthly: string, yearly: string) =>
      `<div class="card"><h3>${name}</h3><p class="price">${monthly}/mo</p>` +
      `<p class="small">or ${yearly}/year (save 2 months)</p><ul><li>Unlimited projects</li></ul></div>`;
    const { pricing } = read(
      `<h1>Pricing</h1><div class="cards">${card("Pro", "$49", "$490")}${card("Team", "$99", "$990")}</div>`,
    );
    expect(pricing.map((plan) => [plan.name, priceOptionsOf(plan)])).toEqual([
      ["Pro", [49, 490]],
      ["Team", [99, 990]],
    ]);
    const saving = read(
      `<h1>Pricing</h1><div class="cards">${card("Pro", "$49", "$490").replace("save 2 months", "save $98")}</div>`,
    );
    expect(priceOptionsOf(saving.pricing[0]!)).not.toContain(98);
  });

  it("reads the period of a price set as a heading with its '/mo' as the next heading (MUI's pricing template)", () => {
    const card = (name: string, price: string) =>
      `<div class="MuiCard-root"><div class="MuiCardHeader-root"><span class="MuiTypography-h5">${name}</span></div>` +
      `<div class="MuiCardContent-root"><div><h2 class="MuiTypography-h2">${price}</h2><h6 class="MuiTypography-h6">/mo</h6>` +
      `</div><ul><li>10 users included</li></ul></div></div>`;
    const { pricing } = read(
      `<h1>Pricing</h1><div class="MuiGrid-container">${card("Free", "$0")}${card("Pro", "$15")}</div>`,
    );
    expect(prices(pricing)).toEqual([
      { name: "Free", amount: 0, currency: "USD", period: "month" },
      { name: "Pro", amount: 15, currency: "USD", period: "month" },
    ]);
  });

  it("reads offers listed as a definition list, each named by its term, 'Contact us' included", () => {
    const list =
      '<dl class="pricing"><dt>Basic</dt><dd>$9 per month</dd><dt>Pro</dt><dd>$29 per month</dd><dd>$290 per year</dd>' +
      "<dt>Enterprise</dt><dd>Contact us</dd></dl>";
    const plans = read(`<h1>Pricing</h1>${list}`).pricing;
    expect(plans.filter(isPlanRecord).map((plan) => [plan.name, priceOptionsOf(plan)])).toEqual([
      ["Basic", [9]],
      ["Pro", [29, 290]],
      ["Enterprise", [null]],
    ]);
    // A glossary that mentions one price is no price list: its price is read by its context.
    const glossary =
      "<dl><dt>Seat</dt><dd>A member of your workspace, $5 each.</dd><dt>Project</dt><dd>A repository.</dd></dl>";
    expect(read(`<h1>Docs</h1>${glossary}`).pricing.filter(isPlanRecord)).toEqual([]);
  });

  it("names a price in a table of its own by the table's caption (one table per plan)", () => {
    const table = (name: string, price: string) =>
      `<table class="plan"><caption>${name}</caption><tr><th>Price</th><td>${price}</td></tr>` +
      "<tr><th>Users</th><td>5</td></tr></table>";
    const page = (pro: string) => `<h1>Pricing</h1>${table("Basic", "$10/mo")}${table("Pro", pro)}`;
    expect(read(page("$30/mo")).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Basic", 10],
      ["Pro", 30],
    ]);
    const raised = pricingEvents(events(page("$30/mo"), page("$35/mo")));
    expect(raised.map((event) => event.title)).toEqual([expect.stringMatching(/Pro.*\$30.*\$35/)]);
  });

  it("reads lines of one paragraph that each price a plan apart, a plan named Pro included ('Pro – $29/month')", () => {
    const { pricing } = read("<h1>Pricing</h1><p>Starter – $9/month<br>Pro – $29/month<br>Business – $99/month</p>");
    expect(pricing.map((plan) => [plan.name, priceOptionsOf(plan)])).toEqual([
      ["Starter", [9]],
      ["Pro", [29]],
      ["Business", [99]],
    ]);
    // German "pro" still says per what: one price, per month.
    expect(prices(read("<h1>Preise</h1><p>Basis – 9 € pro Monat</p>").pricing)).toEqual([
      { name: "Basis", amount: 9, currency: "EUR", period: "month" },
    ]);
  });

  it("reads a price drawn as text on a card's SVG header, and no text of other drawings", () => {
    const card = (name: string, price: string) =>
      `<div class="col-md-4"><div class="pricingTable"><svg viewBox="0 0 360 220"><path d="M0 0h360v220H0z"></path>` +
      `<text x="70" y="116">${price}</text><text x="234" y="115">/Min.</text></svg><div class="pricing-content">` +
      `<h3 class="title">${name}</h3><ul><li>2 vCPUs</li><li>Unlimited users</li></ul></div></div></div>`;
    const logo = '<svg viewBox="0 0 10 10"><text>ACME 2</text></svg>';
    const page = `<h1>Pricing</h1>${logo}<div class="row">${card("Basic", "$0.015")}${card("Growth", "$0.030")}</div>`;
    const { pricing, text } = read(page);
    expect(pricing.map((plan) => [plan.name, plan.amount, plan.currency])).toEqual([
      ["Basic", 0.015, "USD"],
      ["Growth", 0.03, "USD"],
    ]);
    expect(text).not.toContain("ACME 2");
  });

  it("reads cents set in superscript after a currency set the same way ('<sup>$</sup>9<sup>99</sup>' is $9.99)", () => {
    const card = (name: string, dollars: string, cents: string) =>
      `<div class="col-md-4"><div class="pricing-box"><h4>${name}</h4><div class="price"><sup>$</sup>${dollars}` +
      `<sup>${cents}</sup><span>/month</span></div><ul><li>Unlimited projects</li></ul><a href="#">Get started</a></div></div>`;
    const { pricing } = read(
      `<h1>Pricing</h1><div class="row">${card("Basic", "9", "99")}${card("Pro", "19", "50")}</div>`,
    );
    expect(prices(pricing)).toEqual([
      { name: "Basic", amount: 9.99, currency: "USD", period: "month" },
      { name: "Pro", amount: 19.5, currency: "USD", period: "month" },
    ]);
  });

  it("reads a list price a class strikes beside a price whose currency and number stand apart (Elementor's price table)", () => {
    const card = (name: string, price: string, original = "") =>
      `<div class="elementor-price-table"><div class="elementor-price-table__header"><h3>${name}</h3></div>` +
      `<div class="elementor-price-table__price">` +
      (original ? `<div class="elementor-price-table__original-price">${original}</div>` : "") +
      `<span class="elementor-price-table__currency">$</span><span class="elementor-price-table__integer-part">${price}` +
      `</span><span class="elementor-price-table__period">Monthly</span></div><ul><li>10 sites</li></ul>` +
      `<a class="elementor-button" href="#">Buy now</a></div>`;
    const page = (agency: string) => `<h1>Pricing</h1><div class="row">${card("Basic", "9")}${agency}</div>`;
    const { pricing } = read(page(card("Agency", "99", "$129")));
    expect(pricing.map((plan) => [plan.name, plan.amount, plan.currency, plan.promo_amount ?? null])).toEqual([
      ["Basic", 9, "USD", null],
      ["Agency", 129, "USD", 99],
    ]);
    const promotion = pricingEvents(events(page(card("Agency", "129")), page(card("Agency", "99", "$129"))));
    expect(promotion.map((event) => event.title)).toEqual([expect.stringMatching(/Agency/)]);
    expect(promotion[0]!.title).not.toMatch(/cut|increase|raise/i);
  });

  it("reads a sale price once where screen-reader text restates both prices (WooCommerce's 'Original price was: …')", () => {
    const product = (name: string, price: string, was = "") =>
      `<li class="product"><a href="/product/x"><h2 class="woocommerce-loop-product__title">${name}</h2><span class="price">` +
      (was
        ? `<del aria-hidden="true"><span class="amount"><bdi><span>&#36;</span>${was}</bdi></span></del> ` +
          `<span class="screen-reader-text">Original price was: &#36;${was}.</span><ins aria-hidden="true">`
        : "") +
      `<span class="amount"><bdi><span>&#36;</span>${price}</bdi></span>` +
      (was ? `</ins><span class="screen-reader-text">Current price is: &#36;${price}.</span>` : "") +
      ` <span class="subscription-details"> / month</span></span></a><a class="button" href="?add-to-cart=1">Sign up</a></li>`;
    const { pricing, text } = read(
      `<h1>Plans</h1><ul class="products">${product("Starter", "19.00")}${product("Pro", "29.00", "39.00")}</ul>`,
    );
    expect(pricing.map((plan) => [plan.name, priceOptionsOf(plan), plan.period, plan.promo_amount ?? null])).toEqual([
      ["Starter", [19], "month", null],
      ["Pro", [39], "month", 29],
    ]);
    expect(text).not.toContain("Original price was");
    // Screen-reader text that says what the screen does not (the period of '$50' beside it) is kept.
    expect(read('<h1>Plans</h1><p><span class="sr-only">Price per month:</span> $50</p>').text).toContain("per month");
  });

  it("gives every side of a currency switch the period written after them all ('$10 €9 £8 /month')", () => {
    const card = (name: string, [usd, eur, gbp]: number[]) =>
      `<div class="card"><h3>${name}</h3><p class="price"><span data-currency="usd">$${usd}</span>` +
      `<span data-currency="eur" hidden>€${eur}</span><span data-currency="gbp" hidden>£${gbp}</span> /month</p>` +
      "<ul><li>Unlimited projects</li></ul></div>";
    const { pricing } = read(
      `<h1>Pricing</h1><div class="cards">${card("Basic", [10, 9, 8])}${card("Pro", [30, 28, 25])}</div>`,
    );
    expect(
      pricing.map((plan) => [plan.name, plan.period, plan.prices?.map((o) => [o.amount, o.currency, o.period])]),
    ).toEqual([
      [
        "Basic",
        "month",
        [
          [10, "USD", "month"],
          [9, "EUR", "month"],
          [8, "GBP", "month"],
        ],
      ],
      [
        "Pro",
        "month",
        [
          [30, "USD", "month"],
          [28, "EUR", "month"],
          [25, "GBP", "month"],
        ],
      ],
    ]);
    // On a page of one plan (no card set to read it as one), the sides are still one offer's prices.
    const single = read(
      `<h1>Pricing</h1><div class="plan"><h3>Basic</h3><p class="price"><span>$10</span><span hidden>€9</span> /month</p></div>`,
    );
    expect(single.pricing.map((plan) => [plan.name, plan.prices?.map((o) => [o.amount, o.currency])])).toEqual([
      [
        "Basic",
        [
          [10, "USD"],
          [9, "EUR"],
        ],
      ],
    ]);
    // Two prices in one currency do not share a period this way: a month's and a year's price side by side.
    const pair = read(
      `<h1>Pricing</h1><div class="cards"><div class="card"><h3>Pro</h3><p>$10 $100/year</p></div></div>`,
    );
    expect(pair.pricing[0]!.prices?.map((o) => o.period)).toEqual([null, "year"]);
  });

  it("reads no price from a comparison table's feature rows ('Number of apps | Custom | Custom | Custom')", () => {
    const row = (label: string, cells: string[]) =>
      `<tr><td>${label}</td>${cells.map((cell) => `<td><span class="hidden-xs">${cell}</span><span class="visible-xs">${cell}</span></td>`).join("")}</tr>`;
    const table = (priceRow = "") =>
      "<table><thead><tr><th></th><th>Starter</th><th>Elite</th><th>Enterprise</th></tr></thead><tbody>" +
      `${priceRow}${row("Number of apps", ["Custom", "Custom", "Custom"])}${row("Custom dashboards", ["Custom", "Custom", "Custom"])}` +
      `${row("SSL certificate", ["Free", "Free", "Free"])}</tbody></table>`;
    expect(read(`<h1>Pricing</h1>${table()}`).pricing).toEqual([]);
    // A row that speaks of a price keeps its words: "Custom" there is a price on request.
    const priced = read(`<h1>Pricing</h1>${table("<tr><td>Price</td><td>$0</td><td>$49/mo</td><td>Custom</td></tr>")}`);
    expect(priced.pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Starter", 0],
      ["Elite", 49],
      ["Enterprise", null],
    ]);
  });

  it("reads 'Free / per server' and 'Free in beta' as free, not as the 'Contact' button below them", () => {
    const card = (name: string, price: string) =>
      `<div class="col-md-4"><ul class="pricing"><li><big>${name}</big></li><li>Core API</li><li>Event mappers</li>` +
      `<li><h3>${price}</h3></li><li><a href="mailto:sales@acme.com">Contact</a></li></ul></div>`;
    const page = `<h1>Pricing</h1><div class="row">${card("Managed", "Free <span>/ per server</span>")}${card("Cloud", "Free <i>in beta</i>")}${card("Business", "")}</div>`;
    expect(read(page).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Managed", 0],
      ["Cloud", 0],
      ["Business", null],
    ]);
  });

  it("reads a card priced 'Free' with a remark ('Free*', 'Free (beta)', 'Free for now') or in another language as free", () => {
    const page = (price: string) =>
      `<h1>Pricing</h1><div class="row">${["Basic:$9/mo", "Pro:$29/mo", `Team:${price}`]
        .map((card) => card.split(":"))
        .map(
          ([name, amount]) =>
            `<div class="col"><div class="card"><h3>${name}</h3><p class="price">${amount}</p><ul><li>A</li></ul></div></div>`,
        )
        .join("")}</div>`;
    const team = (price: string) => read(page(price)).pricing.find((plan) => plan.name === "Team")?.amount;
    for (const free of [
      "Free*",
      "Free (beta)",
      "Free for now",
      "Free during early access",
      "Free until launch",
      "Grátis",
      "Gratuito",
      "Bezpłatnie",
      "Бесплатно",
      "無料",
      "免费",
      "Ücretsiz",
      "Zdarma",
    ])
      expect([free, team(free)]).toEqual([free, 0]);
    // A trial is no price.
    expect(team("Free to try")).not.toBe(0);
    // An allowance in the card's price place is its price: free, up to so many users.
    expect(team("Free up to 3 users")).toBe(0);
    expect(team("Free for up to 3 users")).toBe(0);
  });

  it("reads no price a site builder hides for good (Webflow's w-condition-invisible, Elementor's hidden everywhere)", () => {
    const item = (name: string, price: string, onRequest: boolean) =>
      `<div role="listitem" class="w-dyn-item"><div class="pricing-card"><h3>${name}</h3>` +
      `<div class="price${onRequest ? " w-condition-invisible" : ""}">${price}<span>/mo</span></div>` +
      `<div class="contact${onRequest ? "" : " w-condition-invisible"}">Contact sales</div><a class="button">Go</a></div></div>`;
    const webflow = `<h1>Pricing</h1><div role="list" class="w-dyn-items">${item("Starter", "$29", false)}${item("Pro", "$79", false)}${item("Enterprise", "$999", true)}</div>`;
    expect(read(webflow).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Starter", 29],
      ["Pro", 79],
      ["Enterprise", null],
    ]);
    const hiddenEverywhere = "elementor-hidden-desktop elementor-hidden-tablet elementor-hidden-mobile";
    const elementor = `<h1>Pricing</h1><div class="row">${["Basic:$9", "Pro:$29"]
      .map((card) => card.split(":"))
      .map(
        ([name, price]) =>
          `<div class="col"><div class="card"><h3>${name}</h3><p class="price">${price}/mo</p><p class="price ${hiddenEverywhere}">$1/mo</p></div></div>`,
      )
      .join("")}</div>`;
    expect(read(elementor).pricing.map((plan) => priceOptionsOf(plan))).toEqual([[9], [29]]);
  });

  it("reads '¥' as the yuan on a page whose language is Chinese, the yen elsewhere", () => {
    const page = (lang: string) =>
      extract(
        `<html lang="${lang}"><body><main><h1>价格</h1><div class="row">` +
          `<div class="card"><h3>基础版</h3><p class="price">¥99/月</p></div>` +
          `<div class="card"><h3>专业版</h3><p class="price">¥299/月</p></div></div></main></body></html>`,
        { url: "https://acme.cn/pricing", contentType: "text/html; charset=utf-8", fetchMethod: "http" },
      ).pricing.map((plan) => [plan.amount, plan.currency]);
    expect(page("zh-CN")).toEqual([
      [99, "CNY"],
      [299, "CNY"],
    ]);
    expect(page("ja")).toEqual([
      [99, "JPY"],
      [299, "JPY"],
    ]);
  });

  it("reads no price from a volume threshold written 'More then €10,000 per month? Contact us'", () => {
    const card = (name: string, price: string, footer: string) =>
      `<div class="col"><div class="card"><h6>${name}</h6><div class="display-2">${price}</div>` +
      `<span>per transaction</span><div class="card-footer"><a href="/about">${footer}</a></div></div></div>`;
    const page = `<h1>Pricing</h1><div class="row">${card("Fees", "1%", "More then €10,000 per month? contact us")}</div>`;
    expect(read(page).pricing.map((plan) => plan.amount)).not.toContain(10000);
  });
});

describe("a section that sums up its cards", () => {
  /** A home page's pricing section: a paragraph states the prices, the cards below state them again. */
  const section = (intro: string) =>
    `<div class="hero"><h1>A blog you'll actually keep updated</h1><p>Write where you like.</p>` +
    `<p>Trusted by 1000+ bloggers. Free forever, Premium $39/year or $4/month.</p></div>` +
    `<div id="pricing"><h2>Pricing</h2><p>${intro}</p><div class="grid">` +
    `<div class="card"><h3>Classic</h3><div class="amount">FREE</div><p>Your blogging basics.</p><ul><li>Unlimited posts</li><li>Themes</li></ul></div>` +
    `<div class="card"><h3>Premium</h3><div class="amount">$39<span> /year or $4/mo</span></div><p>Everything.</p><ul><li>Custom domains</li><li>Analytics</li></ul></div>` +
    `</div></div><div class="features"><h2>Everything you need</h2><p>Compare the plans.</p></div>`;
  const PLANS = [
    { name: "Classic", amount: 0, currency: null, period: null },
    {
      name: "Premium",
      amount: 39,
      currency: "USD",
      period: "year",
      options: [
        [39, "year", null],
        [4, "month", null],
      ],
    },
  ];

  it("reads the cards as plans when the section's paragraph states their prices in bold before them", () => {
    const intro =
      "The blogging basics are <strong>free forever</strong>. Upgrade any time for custom domains and more for " +
      "<strong>$39/year</strong> or <strong>$4/month</strong>.";
    // Not a record named "free forever" holding the cards as its add-ons, nor the paragraph's prices again; the line
    // under the headline that names Premium restates its prices.
    expect(prices(read(section(intro)).pricing)).toEqual(PLANS);
  });

  it("reads a price's period written inside its element after it ('$39<span> /year or $4/mo</span>')", () => {
    const plans = read(section("Pick a plan.")).pricing;
    expect(prices(plans).find((plan) => plan.name === "Premium")).toEqual(PLANS[1]);
  });

  it("reads offers the structured data names for their billing cycle as one plan's two prices", () => {
    const ld = {
      "@context": "https://schema.org",
      "@type": "SoftwareApplication",
      name: "Pagecord",
      offers: [
        { "@type": "Offer", name: "Classic", price: "0", priceCurrency: "USD" },
        { "@type": "Offer", name: "Premium (Annual)", price: "39", priceCurrency: "USD" },
        {
          "@type": "Offer",
          name: "Premium (Monthly)",
          price: "4",
          priceCurrency: "USD",
          priceSpecification: { "@type": "UnitPriceSpecification", billingDuration: "P1M" },
        },
      ],
    };
    const html = `<script type="application/ld+json">${JSON.stringify(ld)}</script><h1>Pagecord</h1><p>A blog.</p>`;
    expect(prices(read(html).pricing)).toEqual([{ ...PLANS[0], currency: "USD" }, PLANS[1]]);
  });

  it("names a price by the phrase its sentence links or bolds before it ('becoming a <a>Supporter</a> for $75/year')", () => {
    const html =
      section("Pick a plan.") +
      `<p>If you're a super-fan, please consider becoming a <a href="/support">Supporter</a> for $75/year!</p>`;
    const supporter = read(html).pricing.find((plan) => plan.amount === 75);
    expect(supporter && { name: supporter.name, origin: supporter.origin }).toEqual({
      name: "Supporter",
      origin: "context",
    });
  });

  it("raises no pricing event when the headline's line stops restating the plans' prices", () => {
    const intro =
      "The basics are <strong>free forever</strong>. Upgrade for <strong>$39/year</strong> or <strong>$4/month</strong>.";
    const before = section(intro);
    const after = before.replace(
      "Free forever, Premium $39/year or $4/month.",
      "Every account starts with a free trial.",
    );
    expect(pricingEvents(events(before, after))).toEqual([]);
  });
});

describe("an offer given away to whom a heading names", () => {
  const page = (box: string) =>
    `<h1>Pricing</h1><div class="row">` +
    `<div class="plan"><h2>Starter</h2><p class="price">€69/month</p><ul><li>5 keys</li><li>Support</li></ul></div>` +
    `<div class="plan"><h2>Professional</h2><p class="price">€299/month</p><ul><li>50 keys</li><li>Support</li></ul></div>` +
    `</div>${box}`;
  const offer = `<div class="open-source-offer"><h2>Always free for eligible<br>open source projects and NGOs</h2><p class="button"><a href="#">Get started</a></p></div>`;

  it("reads 'Always free for eligible open source projects and NGOs' beside its button as an offer at 0, and its removal as a change", () => {
    const free = read(page(offer)).pricing.find((plan) => plan.amount === 0);
    expect(free && [free.name, free.is_free]).toEqual(["Eligible open source projects and NGOs", true]);
    const after = page(
      `<div class="open-source-offer"><h2>Discounts for charities</h2><p class="button"><a href="#">Ask us</a></p></div>`,
    );
    expect(pricingEvents(events(page(offer), after)).length).toBeGreaterThan(0);
  });

  it("reads no offer from a slogan over a section or a trial's length", () => {
    for (const heading of [
      "<div><h2>Always Free for Open Source</h2></div>",
      `<div><h2>Free for 14 days</h2><a href="#">Start trial</a></div>`,
      `<div><h2>Free for the first month</h2><a href="#">Sign up</a></div>`,
    ])
      expect(read(page(heading)).pricing.map((plan) => plan.name)).toEqual(["Starter", "Professional"]);
  });
});

describe("a comparison grid of divs whose cells repeat the column names", () => {
  const cell = (plan: string, value: string, extra = "") =>
    `<div class="col"><p class="mobile-title">${plan}</p><p class="value">${value}</p>${extra}</div>`;
  const row = (label: string, pro: string, enterprise: string) =>
    `<div class="row"><div class="label"><p>${label}</p></div>${cell("Hobby", "Included")}${cell("Pro", pro)}${cell("Enterprise", enterprise)}</div>`;
  const grid = (duration: string) =>
    `<h2>Compare the plans</h2><div class="grid">` +
    row("Build minutes", "5,000", "<p>Custom</p>") +
    row("Serverless function invocations", "2,000,000<p>then starting at $0.40 per 1M</p>", "<p>Custom</p>") +
    row("Function duration", `1,000 GB-hour<p>then ${duration} per GB-hour</p>`, "<p>Custom</p>") +
    row("Function timeout", "1 hour", "<p>Custom</p>") +
    `</div>`;

  it("reads a priced cell as its row's price for that column, and a cell saying 'Custom' as no price", () => {
    expect(read(grid("$0.06")).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Serverless function invocations (Pro)", 0.4],
      ["Function duration (Pro)", 0.06],
    ]);
  });

  it("tells a change of one row's price as that row's, and nothing when a row of values is added", () => {
    const raised = pricingEvents(events(grid("$0.06"), grid("$0.08")));
    expect(raised.map((event) => event.title)).toEqual([expect.stringContaining("Function duration (Pro)")]);
    const added = grid("$0.06")
      .replace("</div><h2>", "")
      .replace(
        `${row("Function timeout", "1 hour", "<p>Custom</p>")}`,
        `${row("Function timeout", "1 hour", "<p>Custom</p>")}${row("Log retention", "30 days", "<p>Custom</p>")}`,
      );
    expect(pricingEvents(events(grid("$0.06"), added))).toEqual([]);
  });
});

describe("a supporter page's overview and comparison", () => {
  const page = (savings: string) =>
    `<h1>Become a supporter</h1><div class="plan-overview"><div class="header"><div class="col">Free</div><div class="col">Supporter</div></div>` +
    `<div class="body"><div class="col free"><h3>Free</h3><div class="price">$0</div><div class="interval">per month</div><ul><li>1 GB storage</li><li>Community</li></ul></div>` +
    `<div class="col supporter"><h3>Supporter</h3><div class="price">$5</div><div class="interval">per month</div><ul><li>50 GB storage</li><li>Support</li></ul></div></div></div>` +
    `<table><thead><tr><th></th><th>Free</th><th>Supporter ($5/mo)</th></tr></thead><tbody>` +
    `<tr><td>Storage</td><td>1 GB</td><td>50 GB</td></tr>` +
    `<tr><td>Cost Savings vs AWS *</td><td>$37.50/mo</td><td>${savings}</td></tr></tbody></table>`;

  it("reads the cards under a row of plan names as plans, the table's head 'Supporter ($5/mo)' as Supporter, and no saving as a price", () => {
    expect(read(page("$482.84/mo")).pricing.map((plan) => [plan.name, plan.amount, plan.kind ?? "plan"])).toEqual([
      ["Free", 0, "plan"],
      ["Supporter", 5, "plan"],
    ]);
  });

  it("reads a comparison's head cell '<h3>Free</h3>' over feature rows as the Free card again, not a price of its own", () => {
    const cards =
      `<h1>Become a supporter</h1><div class="plans">` +
      `<div class="col"><h3>Free</h3><div class="price">$0</div><div>per month</div><ul><li>100 MB</li><li>50 GB</li></ul></div>` +
      `<div class="col"><h3>Supporter</h3><div class="price">$5</div><div>per month</div><ul><li>50 GB</li><li>3 TB</li></ul></div></div>`;
    const chart =
      `<h2>What you get</h2><table><tr><th></th><th><h3>Free</h3></th><th><h3>Supporter</h3></th></tr>` +
      `<tr><td>Storage</td><td>100 MB</td><td>50 GB</td></tr></table>`;
    expect(read(cards + chart).pricing.map((plan) => plan.name)).toEqual(["Free", "Supporter"]);
    expect(pricingEvents(events(cards, cards + chart))).toEqual([]);
  });

  it("raises no pricing event when a saving against another offer changes", () => {
    expect(pricingEvents(events(page("$482.84/mo"), page("$738.53/mo")))).toEqual([]);
  });
});

describe("quantity tiers priced each", () => {
  it("names 'from 5 licenses - each 6,99 €' without the word leading into its price, so adding it renames nothing", () => {
    const tiers = (lead: string) =>
      `<h2>Buy for commercial usage</h2><p>Discounts</p>` +
      [
        ["from 5 licenses", "6,99", "30"],
        ["from 20 licenses", "4,99", "50"],
        ["from 50 licenses", "3,99", "60"],
      ]
        .map(([name, price, off]) => `<p>${name}${lead} ${price} € (-${off}%)</p>`)
        .join("");
    expect(read(tiers(" - each")).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["from 5 licenses", 6.99],
      ["from 20 licenses", 4.99],
      ["from 50 licenses", 3.99],
    ]);
    expect(pricingEvents(events(tiers(""), tiers(" - each")))).toEqual([]);
  });
});

describe("an overage price in an FAQ's answer", () => {
  const page = (answer: string) =>
    `<h1>Pricing</h1><div class="row">` +
    `<div class="card"><h3>Hobby</h3><p class="price">Free</p><ul><li>1 project</li><li>Community</li></ul></div>` +
    `<div class="card"><h3>Pro</h3><p class="price">$29/month</p><ul><li>10 projects</li><li>Support</li></ul></div></div>` +
    `<h2>FAQ</h2><details><summary>What happens when I exceed the invocation limit on a Pro project?</summary>` +
    `<div class="accordion-body">${answer}</div></details>`;
  const overage = "You will be billed an extra $10 for each additional 10,000,000 function invocations per project.";

  it("reads it as a price of more of something, named by what it buys", () => {
    const plan = read(page(overage)).pricing.find((p) => p.amount === 10);
    expect(plan && [plan.name, plan.origin]).toEqual(["Additional 10,000,000 function invocations", "context"]);
  });

  it("tells its removal, where a mention in an answer coming or going is no change", () => {
    const after = page("After a grace period we will reach out to personalize your plan.");
    expect(pricingEvents(events(page(overage), after)).length).toBe(1);
  });
});

describe("periods written in Spanish, Portuguese, French and Italian", () => {
  it("reads '/mensual' as per month, whatever the switch's labels after it say ('Mensual Semestral Anual')", () => {
    const card = (name: string, price: string, period: string) =>
      `<div class="card"><h5>${name}</h5><h6 class="card-price">${price}<span class="period">/${period}</span></h6>` +
      `<div><label>Mensual</label><label>Semestral</label><label>Anual</label></div><ul><li>Documentos</li><li>Soporte</li></ul></div>`;
    const plans = read(
      `<h1>Precios</h1><div class="row">${card("Pro Mensual", "$12.0", "mensual")}${card("Pro Anual", "$115", "anual")}</div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.period])).toEqual([
      ["Pro Mensual", 12, "month"],
      ["Pro Anual", 115, "year"],
    ]);
  });
});

describe("the same plans in a discount section", () => {
  it("reads the cards under '## Discount pricing' apart from the same names under '## Enterprise pricing', by their section", () => {
    const cards = (prices: number[]) =>
      `<div class="cards">` +
      ["Mini", "Small"]
        .map(
          (name, k) =>
            `<div class="card"><h2>${name}</h2><p class="price">€${prices[k]} /year</p><ul><li>Support</li><li>Hosting</li></ul></div>`,
        )
        .join("") +
      `</div>`;
    const html =
      `<h1>Pricing</h1><section><h2>Enterprise pricing</h2>${cards([3000, 6000])}</section>` +
      `<section><h2>Discount pricing for education and nonprofits</h2><p>50% off</p>${cards([1500, 3000])}</section>`;
    expect(read(html).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Mini", 3000],
      ["Small", 6000],
      ["Discount pricing for education and nonprofits – Mini", 1500],
      ["Discount pricing for education and nonprofits – Small", 3000],
    ]);
  });
});

describe("a section heading written as a sentence", () => {
  it("names the section's price by the phrase it sets in bold ('we present <strong>Formspree Gold</strong>')", () => {
    const html =
      `<h1>Formspree</h1><p>Forms for static sites.</p>` +
      `<h2>For Formspree power users, we present <strong>Formspree Gold</strong></h2>` +
      `<p class="center">Formspree Gold costs</p><h1 class="center"><a class="button" href="">$ 9.99</a></h1><p>each month</p>`;
    expect(read(html).pricing.map((plan) => [plan.name, plan.amount])).toEqual([["Formspree Gold", 9.99]]);
  });
});

describe("a comparison table whose head cells span columns", () => {
  const head = (name: string, span: number) =>
    `<th colspan="${span}"><strong>${name}</strong> <span>The choice for ${name.toLowerCase()} teams.</span> <a href="/enquiries">Find out more</a></th>`;
  const table =
    `<h2>Support plans</h2><table><thead><tr><td></td>${head("Pre-production", 1)}${head("Production", 2)}</tr></thead><tbody>` +
    `<tr><th scope="row">Annual price</th><td><strong>£1199</strong></td><td><strong>£4999</strong><br><em>+£1299 per cluster</em></td>` +
    `<td><strong>£9999</strong><br><em>+£1299 per cluster</em></td></tr>` +
    `<tr><th scope="row">Support availability</th><td>9am to 5pm</td><td>Every day</td><td>Every day</td></tr>` +
    `<tr><th scope="row">Response time</th><td>Next day*</td><td>Next day*</td><td>Same day*</td></tr>` +
    `</tbody></table>`;

  it("names each column by the bold words of its head cell, tells spanned columns apart, and reads '+£1299 per cluster' as an add-on", () => {
    expect(prices(read(table).pricing)).toEqual([
      { name: "Pre-production", amount: 1199, currency: "GBP", period: "year", options: [[1199, "year", "year"]] },
      {
        name: "Production (Next day)",
        amount: 4999,
        currency: "GBP",
        period: "year",
        options: [[4999, "year", "year"]],
      },
      {
        name: "Additional cluster (Production (Next day))",
        amount: 1299,
        currency: "GBP",
        period: "year",
        options: [[1299, "year", "year"]],
      },
      {
        name: "Production (Same day)",
        amount: 9999,
        currency: "GBP",
        period: "year",
        options: [[9999, "year", "year"]],
      },
      {
        name: "Additional cluster (Production (Same day))",
        amount: 1299,
        currency: "GBP",
        period: "year",
        options: [[1299, "year", "year"]],
      },
    ]);
  });

  it("tells a raise of one spanned column's price as that column's", () => {
    const raised = pricingEvents(events(table, table.replace("£9999", "£10999")));
    expect(raised.map((event) => event.title)).toEqual([expect.stringMatching(/Production \(Same day\)/)]);
  });

  it("names an increment with its period before what it is per ('+ £995/year per cluster support') by what it buys", () => {
    const card = (name: string, price: string) =>
      `<div class="col"><h3>${name}</h3><p><span class="price">${price}</span><br><span class="sub">+ £995/year per cluster support</span></p><ul><li>Hardware</li><li>Setup</li></ul></div>`;
    const plans = read(
      `<h2>Appliances</h2><div class="row">${card("Standard", "£1,995")}${card("Pro", "£3,995")}</div>`,
    ).pricing;
    expect(plans.map((plan) => plan.name)).toEqual([
      "Standard",
      "Additional cluster support (Standard)",
      "Pro",
      "Additional cluster support (Pro)",
    ]);
  });
});

describe("prices in documentation prose", () => {
  it("names a price in a list of sentences by the item's one bold phrase, as documentation pages list their plans", () => {
    const item = (name: string, price: number) =>
      `<li>The <strong>${name}</strong> plan offers unlimited searches for USD $${price} per month. It suits most people.` +
      ` This sentence is long enough to be running text, so the price is read from it as prose.</li>`;
    const page = (pro: number) => `<h1>Plan types</h1><ul>${item("Starter", 5)}${item("Professional", pro)}</ul>`;
    expect(read(page(10)).pricing.map(({ name, amount, period }) => [name, amount, period])).toEqual([
      ["Starter", 5, "month"],
      ["Professional", 10, "month"],
    ]);
    expect(pricingEvents(events(page(10), page(12))).map((event) => event.title)).toEqual([
      expect.stringMatching(/Professional/),
    ]);
    // One item alone, or an item with two bold phrases, names nothing by its bold.
    const lone = read(`<h1>Plan types</h1><ul>${item("Starter", 5)}<li>Contact us for more.</li></ul>`).pricing;
    expect(lone.map((plan) => plan.name)).toEqual(["Plan types"]);
  });

  it("reads each offer a sentence enumerates with its price in brackets ('Standard ($29/month), Premium ($199/month)')", () => {
    const page = (premium: number) =>
      `<h1>Resource pricing</h1><h2>Support</h2><p>You can get access to additional support by purchasing a Standard ` +
      `($29/month), Premium ($${premium}/month), or Enterprise (starting at $2500/month) package in the Support section ` +
      `of your dashboard. For more about Support, see the support page.</p>`;
    expect(read(page(199)).pricing.map(({ name, amount, period }) => [name, amount, period])).toEqual([
      ["Standard", 29, "month"],
      ["Premium", 199, "month"],
      ["Enterprise", 2500, "month"],
    ]);
    expect(pricingEvents(events(page(199), page(249))).map((event) => event.title)).toEqual([
      'Acme raised the price "Premium" under "Support" from $199 to $249/month',
    ]);
    // A price with its conversion in brackets is one offer, not two.
    const converted = read(`<h1>Pricing</h1><p>The plan costs $10 (€9) per month, billed each month to your card.</p>`);
    expect(converted.pricing).toHaveLength(1);
  });
});

describe("offers listed line by line", () => {
  it("names list items at one price by the words before their dash, up to five ('Redis in-memory data store - …')", () => {
    const item = (name: string, included: string) =>
      `<li>${name} - ${included} included<br><i>$100/month per additional gigabyte</i></li>`;
    const { pricing } = read(
      `<h2>Standard services</h2><ul>${item("S3 object store", "5TB")}${item("Redis in-memory data store", "10GB")}</ul>`,
    );
    expect(pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["S3 object store", 100],
      ["Redis in-memory data store", 100],
    ]);
  });

  /** A landing page's pricing list: each item names its offer before a dash, its prices in a list nested under it. */
  const offers = (premium: string) => `
    <h1>Mataroa</h1><h2>Pricing</h2>
    <ul>
      <li>Free — most features</li>
      <ul><li>No custom domain</li><li>No auto-exports via email</li></ul>
      <li>Premium — all features</li>
      <ul>${premium}</ul>
    </ul>
    <h2>Philosophy</h2><p>Blogging is beautiful.</p>`;

  it("names each price by the words its item opens with, 'Free' included, and a nested list's price by its item", () => {
    const { pricing } = read(offers("<li>$9/year</li><li>5% of revenue funds CO₂ removal</li>"));
    expect(pricing.map(({ name, amount, period }) => [name, amount, period])).toEqual([
      ["Free", 0, null],
      ["Premium", 9, "year"],
    ]);
  });

  it("reads a struck price and the lower one on the next line as a list price and its promotion", () => {
    const beta = offers("<li><s>$9/year</s></li><li>Currently $0/year during beta</li>");
    const [, premium] = read(beta).pricing;
    expect([premium!.name, premium!.amount, premium!.promo_amount]).toEqual(["Premium", 9, 0]);
    // The promotion ending is told; the two nested lists are never read as a grid of names over prices.
    expect(read(beta).pricing.map((plan) => plan.name)).not.toContain("No auto-exports via email");
    const ended = pricingEvents(events(beta, offers("<li>$9/year</li><li>Payment optional during beta</li>")));
    expect(ended.map((event) => event.title)).toEqual([expect.stringMatching(/ended its promotion on .*Premium/)]);
  });

  it("takes the item's name over a label that only says more around it, and never lends it to an included amount", () => {
    const { pricing } = read(`
      <h1>Plans</h1><ul>
        <li><strong>Hobby</strong>: $5 / mo, including $5 of usage</li>
        <li>The <strong>Team</strong> plan offers unlimited users for $19 per month with $0.025 per search</li>
      </ul>`);
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Hobby", 5],
      ["Team", 19],
      ["Team (2)", 0.025],
    ]);
  });
});

describe("plans as sections of a document", () => {
  it("reads plans stated as bold lines or headings 'Name: price' over their feature lists, the free one too", () => {
    const features = "<ul><li>Your own username.</li><li>Replies to other posts.</li></ul>";
    const bold = (line: string) => `<p><strong>${line}</strong></p>${features}`;
    const page = `<p>Here's how the plans work.</p>${bold("Basics: free")}${bold("Cross-posting: $2/month")}${bold(
      "Hosted microblog: $5/month",
    )}<p>Thanks for supporting us!</p>`;
    expect(read(page).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Basics", 0],
      ["Cross-posting", 2],
      ["Hosted microblog", 5],
    ]);
    const headed =
      `<h2>Basics: free</h2>${features}<h2>Hosted microblog: $5/month</h2>${features}` +
      `<h2>Premium: podcasting, video, and bookmarks: $10/month</h2>${features}` +
      `<h2>Yearly pricing</h2><p>It's $50/year for a hosted microblog.</p>`;
    const plans = read(headed).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Basics", 0],
      ["Hosted microblog", 5],
      ["Premium", 10],
      ["Yearly pricing", 50],
    ]);
    // A heading that prices its plan in words is the plan's line, not the section of the plans after it.
    expect(plans.map((plan) => plan.context ?? null)).toEqual([null, null, null, null]);
  });

  it("reads a heading that names its offer and prices it in words ('1. Shared Agora: name your price')", () => {
    const card = (name: string, price: string) =>
      `<div class="card"><h4>${name}</h4><h1>${price} <small>/ month</small></h1><ul><li>Support</li></ul></div>`;
    const page =
      `<h1>A solution for everyone</h1><div class="container"><h2>1. Shared Agora: name your price</h2>` +
      `<p>You can give what you like to use the shared server.</p><p>It is funded through donations.</p></div>` +
      `<h2>2. Dedicated Agora</h2><div class="deck">${card("Standard", "40€")}${card("Supporter", "80€")}</div>`;
    expect(read(page).pricing.map((plan) => [plan.name, plan.amount, plan.currency])).toEqual([
      ["Shared Agora", null, null],
      ["Standard", 40, "EUR"],
      ["Supporter", 80, "EUR"],
    ]);
  });

  it("reads a comparison's head cell named free beside head cells that state their price as a free plan", () => {
    const page =
      `<table><tr><th></th><th>Free &amp; Open Source</th><th>Commercial License<br>$25/mo</th>` +
      `<th>Commercial License + SLA<br>$40/mo</th></tr><tr><td>License</td><td>GPL v3</td><td>Commercial</td>` +
      `<td>Commercial</td></tr></table>`;
    expect(read(page).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Free & Open Source", 0],
      ["Commercial License", 25],
      ["Commercial License + SLA", 40],
    ]);
  });

  it("reads offers stacked in one column, each price line named by the line before it, the free one too", () => {
    const column = (name: string, price: number) =>
      `<ul><li class="package">${name}</li><li class="price"><sup>$</sup> <span>${price}</span> / month</li>` +
      `<li>Daily backups</li><li class="buy"><a href="#">Sign Up</a></li></ul>`;
    const page =
      `<div class="table">${column("Hamlet", 100)}${column("Village", 250)}<ul class="other">` +
      `<li class="package">Developer's Edition</li><li class="price"><span>Free & Open Source</span></li>` +
      `<li class="buy"><a href="https://github.com/">Github</a></li>` +
      `<li class="package">Non-profit Organizations</li><li class="price"><sup>$</sup> <span>20</span> / month</li>` +
      `<li class="buy"><a href="#">Sign Up</a></li><li class="package">On-site Installation</li>` +
      `<li class="price"><sup>$</sup> <span>100</span> +</li><li class="buy"><a href="mailto:x@acme.com">Contact Us</a></li>` +
      `</ul></div>`;
    expect(read(page).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Hamlet", 100],
      ["Village", 250],
      ["Developer's Edition", 0],
      ["Non-profit Organizations", 20],
      ["On-site Installation", 100],
    ]);
  });

  it("reads a table's first column as a plan when its head names one and its cell states a price", () => {
    const page = (village: string) =>
      `<table><tr><th><h3>Village</h3><p>for small groups</p></th><th><h3>City</h3><p>for businesses</p></th>` +
      `<th><h3>Metropolis</h3><p>for larger organizations</p></th></tr><tr><td><sup>$</sup>${village} / month</td>` +
      `<td><sup>$</sup>750 / month</td><td><a href="#contact">Contact Us</a></td></tr>` +
      `<tr><td>Up to 2 million page views</td><td>Up to 10 million page views</td><td>Above that</td></tr></table>`;
    expect(read(page("250")).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Village", 250],
      ["City", 750],
      ["Metropolis", null],
    ]);
    expect(pricingEvents(events(page("250"), page("300"))).map((event) => event.title)).toEqual([
      "Acme raised Village from $250 to $300/month",
    ]);
  });

  it("names a card by its heading's two lines ('Komodo IDE For<br/>Teams (5-Packs)'), never by a tagline after them", () => {
    const card = (heading: string, price: number) =>
      `<li><h2>${heading}</h2><h1><sup>$</sup>${price} <span>/license</span></h1><ul><li>Support</li></ul></li>`;
    const page = `<ul class="block">${card('Komodo IDE<br/>"Personal"', 99)}${card("Komodo IDE For<br/>Teams (5-Packs)", 1365)}${card(
      "Pro<br/>for growing teams and agencies.",
      295,
    )}</ul>`;
    expect(read(page).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ['Komodo IDE "Personal"', 99],
      ["Komodo IDE For Teams (5-Packs)", 1365],
      ["Pro", 295],
    ]);
  });

  it("reads a name-classed element as a heading: its two lines in a card, its name alone in a table's head cell (a bold line too)", () => {
    const card = (heading: string, price: number) =>
      `<li><div class="title">${heading}</div><div class="price">$${price} /license</div><ul><li>Support</li></ul></li>`;
    expect(
      read(
        `<ul class="block">${card("Komodo IDE For<br/>Teams (5-Packs)", 1365)}${card("Komodo Site<br/>License", 99)}</ul>`,
      ).pricing.map((plan) => plan.name),
    ).toEqual(["Komodo IDE For Teams (5-Packs)", "Komodo Site License"]);
    // A first line set apart in bold is the name alone, its second line a tagline.
    const tagged = `<ul class="block">${card("<strong>Basic</strong><br>Start here", 5)}${card("<strong>Pro</strong><br>For teams", 9)}</ul>`;
    expect(read(tagged).pricing.map((plan) => plan.name)).toEqual(["Basic", "Pro"]);
    // Read by its context (its name is a price word), a free card is named by its first line, not "FreeStart here".
    const free = `<ul class="block">${card("<strong>Free</strong><br>Start here", 0)}${card("<strong>Pro</strong><br>For teams", 9)}</ul>`;
    expect(read(free).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Free", 0],
      ["Pro", 9],
    ]);
    const head = (name: string, line: string) => `<th><div class="title">${name}</div><p>${line}</p></th>`;
    const table =
      `<table><tr>${head("Village", "for small groups")}${head("City", "for businesses")}</tr>` +
      `<tr><td>$250 / month</td><td>$750 / month</td></tr></table>`;
    expect(read(table).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Village", 250],
      ["City", 750],
    ]);
    // A bold line in a head cell names the column the same way.
    const bold = table.replace(/<div class="title">(\w+)<\/div>/g, "<p><strong>$1</strong></p>");
    expect(read(bold).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Village", 250],
      ["City", 750],
    ]);
  });

  it("names buttons that state their price and then what it buys, but not words going on from the price", () => {
    const button = (price: string, label: string) =>
      `<a class="button" href="#"><big><del>$595</del> ${price}</big><small>${label}</small></a>`;
    const bundles = `<h1>Bundles</h1><p>Everything a developer needs.</p><div class="buttons">${button(
      "$495",
      "ActivePerl Pro Studio",
    )}${button("$495", "ActiveTcl Pro Studio")}</div>`;
    expect(read(bundles).pricing.map((plan) => [plan.name, plan.amount, plan.promo_amount])).toEqual([
      ["ActivePerl Pro Studio", 595, 495],
      ["ActiveTcl Pro Studio", 595, 495],
    ]);
    const runs = `<div class="buttons">${button("$5", "for 1k browser check runs")}${button("$4", "for 1k API check runs")}</div>`;
    expect(read(runs).pricing.map((plan) => plan.name)).not.toContain("for 1k browser check runs");
  });

  it("reads prices in cards that are links around blocks, named by their heading, not by a hover label ('Apply')", () => {
    const card = (hover: string, price: string, name: string) =>
      `<a class="offer" href="#"><div class="on-hover">${hover}</div><figure>${price}</figure><div><h2>${name}</h2>` +
      `<p>Our licenses for this group are handled by a partner of ours</p></div></a>`;
    const page = `<h1>Other licenses</h1><div class="stacked">${card("Buy", "$100~", "Student")}${card(
      "Apply",
      "Free",
      "Educational",
    )}</div>`;
    expect(read(page).pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Student", 100],
      ["Educational", 0],
    ]);
  });

  it("reads a card's 'Upgrade for $168' and 'Subscribe for $87' as add-ons, and 'with Upgrades & Support' as a variant", () => {
    const card = (name: string, price: number, extra: string) =>
      `<li><h2>${name}</h2><figure>$${price}</figure><p>Companies &amp; Personal</p>${extra}<ul><li>Support</li></ul></li>`;
    const page = `<ul class="plans">${card(
      "Professional",
      295,
      "<p>Upgrade for <strong>$168</strong><br> or <a href='#'>Subscribe for <strong>$87</strong></a></p>",
    )}${card(
      "Komodo IDE",
      295,
      `<div class="buttons"><a class="button" href="#"><big>$394</big> <small>with Upgrades &amp; Support</small></a>` +
        `<a class="button" href="#"><big>$295</big> <small>without Upgrades &amp; Support</small></a></div>`,
    )}</ul>`;
    expect(read(page).pricing.map((plan) => [plan.name, plan.kind ?? "plan", priceOptionsOf(plan)])).toEqual([
      ["Professional", "plan", [295]],
      ["Upgrade (Professional)", "addon", [168]],
      ["Subscribe (Professional)", "addon", [87]],
      ["Komodo IDE", "plan", [295, 295]],
      ["Komodo IDE with Upgrades & Support", "plan", [394]],
    ]);
  });

  it("reads 'then $9 per additional user' in a card as the plan's add-on, apart from '$9 per additional website'", () => {
    const card = (name: string, price: number, lines: string) =>
      `<div class="plan"><h3>${name}</h3><div class="amount">$${price}/month</div>` +
      `<p>Includes your first 5 users, then $9 per additional user.</p><ul>${lines}</ul></div>`;
    const page = (sites: string) =>
      `<div class="plans">${card("Starter", 29, `<li>${sites}</li><li>Support</li>`)}${card("Pro", 749, "<li>Support</li>")}</div>`;
    const before = page("5 sites, then $9 per additional website");
    expect(read(before).pricing.map((plan) => [plan.name, plan.amount, plan.kind ?? "plan"])).toEqual([
      ["Starter", 29, "plan"],
      ["Additional user (Starter)", 9, "addon"],
      ["Additional website (Starter)", 9, "addon"],
      ["Pro", 749, "plan"],
      ["Additional user (Pro)", 9, "addon"],
    ]);
    const priced = pricingEvents(events(before, page("10 sites"))).filter((event) => !event.tags.includes("features"));
    expect(priced.map((event) => event.title)).toEqual(['Acme removed its price "Additional website (Starter)"']);
  });

  it("tells a plan of a later tab's pane from the first pane's plan of the same name, even at the same price", () => {
    const card = (name: string, price: string) =>
      `<div class="card"><p class="plan-type">${name}</p><h3>${price}</h3><p>per user / month</p><ul><li>SSO</li></ul></div>`;
    const page = (selfHostBusiness: string) =>
      `<h1>Pricing</h1><div class="tab"><button onclick="openPricing(event, 'cloud')">Cloud <span>(We host)</span></button>` +
      `<button onclick="openPricing(event, 'selfHost')">Self-host pricing</button></div>` +
      `<div id="cloud" class="tabcontent">${card("Free", "$0")}${card("Business", "$16")}</div>` +
      `<div id="selfHost" class="tabcontent">${card("Community", "$0")}${card("Business", selfHostBusiness)}</div>`;
    expect(read(page("$16")).pricing.map((plan) => [plan.name, priceOptionsOf(plan)])).toEqual([
      ["Free", [0]],
      ["Business", [16]],
      ["Community", [0]],
      ["Business (Self-host)", [16]],
    ]);
    expect(pricingEvents(events(page("$16"), page("$18"))).map((event) => event.title)).toEqual([
      "Acme raised Business (Self-host) from $16 to $18/month",
    ]);
  });

  it("names a plan told in a tab pane by its tab, its add-on line by both, and a pane asking to be contacted on request", () => {
    const tab = (id: string, name: string) => `<li><a role="tab" aria-controls="${id}">${name}</a></li>`;
    const pane = (id: string, body: string) => `<div class="tab-pane" id="${id}">${body}</div>`;
    const sold = (what: string, price: string, extra: string) =>
      `<p>An annual subscription with access to <strong>${what}</strong> is <strong>${price}/year</strong>.</p>` +
      `<ul><li>3 concurrencies</li><li>Unlimited build minutes</li><li>Unlimited team seats</li>` +
      `<li>In-app chat support</li><li>Additional concurrencies are <strong>${extra}/year</strong>.</li></ul>`;
    const { pricing } = read(
      `<h1>Pricing</h1><h2>Fixed annual plans</h2><ul role="tablist">${tab("m2", "macOS M2")}${tab("m4", "macOS M4")}` +
        `${tab("m4x", "macOS M4 + Linux X4")}${tab("studio", "Mac Studio M4 Max")}</ul><div class="tab-content">` +
        pane("m2", sold("macOS M2", "$3,990", "$1,500")) +
        pane("m4", sold("macOS M4", "$5,400", "$1,800")) +
        pane("m4x", sold("macOS M4</strong> and <strong>Linux X4", "$8,100", "$2,700")) +
        pane(
          "studio",
          "<p>The <strong>Mac Studio M4 Max</strong> plan gives you 3 concurrencies.</p>" +
            "<p>To request this plan, please contact us.</p>",
        ) +
        `</div>`,
    );
    expect(pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["macOS M2", 3990],
      ["Additional concurrencies (macOS M2)", 1500],
      ["macOS M4", 5400],
      ["Additional concurrencies (macOS M4)", 1800],
      ["macOS M4 + Linux X4", 8100],
      ["Additional concurrencies (macOS M4 + Linux X4)", 2700],
      ["Mac Studio M4 Max", null],
    ]);
  });

  it("reads the lines of a plan list priced in words beside its priced line ('Hobby — free', 'Enterprise — contact us')", () => {
    const { pricing } = read(
      `<h1>Billing</h1><p>We offer three plans:</p><ul><li>Hobby — free</li><li>Pro — $20/user/month</li>` +
        `<li>Enterprise — contact us</li></ul><h2>Limits</h2><ul><li>Builds — free</li><li>Logs: 7 days</li></ul>`,
    );
    expect(pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Hobby", 0],
      ["Pro", 20],
      ["Enterprise", null],
    ]);
    // "Free forever for personal projects." under a heading among priced headings is that offer at 0.
    const headed = read(
      `<h1>Plans</h1><h2>Hobby</h2><p>Free forever for personal projects.</p><h2>Pro</h2><p>$20 per user per month.</p>`,
    );
    expect(headed.pricing.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Hobby", 0],
      ["Pro", 20],
    ]);
  });

  it("reads a plan per heading, 'Free' and 'Custom pricing' under their headings included", () => {
    const plan = (name: string, price: string) =>
      `<h3>${name}</h3><p><em>${price}</em></p><ul><li>2 concurrent apps</li><li>Email support</li></ul>`;
    const { pricing } = read(
      `<h1>Pricing overview</h1><h2>Plans</h2>${plan("Community", "Free, no credit card required")}` +
        `${plan("Professional", "Starting at $20/month")}${plan("Enterprise", "Custom pricing")}`,
    );
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Community", 0],
      ["Professional", 20],
      ["Enterprise", null],
    ]);
  });

  it("reads a heading that names a free plan ('1. Free plan') as that offer at 0, once", () => {
    const { pricing } = read(`
      <h1>Pricing</h1><h2>Pricing for individuals</h2>
      <h3>1. Free plan</h3><p>Individuals receive 500 free minutes per month.</p>
      <h3>2. Buying additional minutes</h3><table><tr><th>Item</th><th>Price</th></tr>
        <tr><td>macOS VM</td><td>$0.095 / minute</td></tr><tr><td>Linux VM</td><td>$0.045 / minute</td></tr></table>`);
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Free plan", 0],
      ["macOS VM", 0.095],
      ["Linux VM", 0.045],
    ]);
  });

  it("reads no price from a worked example's paragraphs and tables, and a 'Free tier' heading as an offer", () => {
    const page = (total: string) => `
      <h1>Pricing</h1>
      <table><tr><th>Item</th><th>Price</th></tr><tr><td>Storage</td><td>$4 per TB per month</td></tr>
        <tr><td>Egress</td><td>$7 per TB</td></tr></table>
      <h2>Bandwidth fee</h2><p>Download bandwidth is charged per byte.</p>
      <p><strong>Cost Example 1:</strong></p>
      <p>A user downloads one 1 TB file: 1.3 TB of bandwidth at $0.007 per GB is ${total}.</p>
      <table><tr><th>Part size</th><th>Monthly cost</th></tr><tr><td>64MB</td><td>$0.14</td></tr><tr><td>5MB</td><td>$1.76</td></tr></table>
      <h2>Free tier</h2><p>Every project gets 25 GB of storage each month.</p>`;
    expect(read(page("$9.10")).pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Storage", 4],
      ["Egress", 7],
      ["Free tier", 0],
    ]);
    expect(pricingEvents(events(page("$9.10"), page("$9.17")))).toEqual([]);
  });

  it("reads no price from the headings of worked examples under 'Example Fees for Online Payments'", () => {
    const page = (fee: string) => `
      <h1>Pricing</h1><h2>Clubs</h2><p><strong>${fee} per transaction</strong> for online payments.</p>
      <h3>Example Fees for Online Payments</h3><p>A few examples to help you see the cost.</p>
      <h4>$100 purchase</h4><p>You receive $96.05.</p><h4>$200 purchase</h4><p>You receive $192.45.</p>
      <h2>Support</h2><p>Write to us any time.</p>`;
    expect(read(page("$0.35")).pricing.map(({ amount }) => amount)).toEqual([0.35]);
    expect(pricingEvents(events(page("$0.35"), page("$0.35").replace("$200 purchase", "$250 purchase")))).toEqual([]);
  });

  it("reads a heading whose first paragraph prices it on request as an offer without an amount", () => {
    const { pricing } = read(`
      <h1>Pricing</h1><h2>Pricing table</h2>
      <table><tr><th>Item</th><th>Price</th></tr><tr><td>Data storage</td><td>$0.02/GB/month</td></tr></table>
      <h2>Enterprise pricing</h2><p>For larger workloads we offer the ability to customize the pricing and service
        contract to best fit your needs. Please reach out to us at <a href="mailto:sales@example.com">sales@example.com</a>.</p>
      <h2>Support</h2><p>Contact us at <a href="mailto:help@example.com">help@example.com</a> with any question.</p>`);
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Data storage", 0.02],
      ["Enterprise", null],
    ]);
    // Among plans written as sections, a heading whose paragraph only asks to get in touch is an offer too.
    const plan = (name: string, body: string) => `<h3>${name}</h3><p><em>${body}</em></p><ul><li>Apps</li></ul>`;
    const sections = read(
      `<h1>Plans</h1>${plan("Community", "Free")}${plan("Teams", "Starting at $200/month")}` +
        `<h3>Enterprise</h3><ul><li>VPC deployment</li></ul><p>Send us an email to <a href="mailto:x@example.com">x@example.com</a>.</p>`,
    );
    expect(sections.pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Community", 0],
      ["Teams", 200],
      ["Enterprise", null],
    ]);
  });

  it("reads no price from a worked calculation or a value a plan includes", () => {
    const { pricing } = read(`
      <h1>Pricing</h1>
      <div class="row"><div class="col"><h3>Team</h3><p class="price">$70 / month</p><p>Includes check runs worth $70</p></div>
        <div class="col"><h3>Starter</h3><p class="price">$7 / month</p><p>Includes check runs worth $7</p></div></div>
      <h2>How many check runs do I need?</h2>
      <div>Monthly runs: 7200 x 31 = 223,200 runs</div>
      <div>Which costs me (223,200 / 10,000) * $1.20 = $26.80 per month on the "Pay as you go"-plan.</div>`);
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Team", 70],
      ["Starter", 7],
    ]);
  });

  it("reads no price from a credit given ('a one-time $5 free trial credit', '$300 in free credits')", () => {
    const { pricing } = read(`
      <h1>Pricing</h1><h2>Plans</h2><p>The Hobby plan costs $5 per month.</p>
      <h2>New sign-ups</h2><p>When you sign up, you get a one-time $7 free trial credit to test-drive the service.</p>
      <p>Startups get $300 in free credits for a year.</p>`);
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([["Hobby plan", 5]]);
  });

  it("reads lists whose lines are each priced as offers under their section, never as cards named by a price", () => {
    const { pricing } = read(`
      <h1>Resource pricing</h1><h3>Reservation blocks</h3><p>Reserve a block of compute time for a discount.</p>
      <p><strong>Performance Machines</strong></p>
      <ul><li>$144/year for $20/month of usage</li><li>$1,440/year for $200/month of usage</li></ul>
      <p><strong>Shared Machines</strong></p>
      <ul><li>$36/year for $5/month of usage</li><li>$360/year for $50/month of usage</li></ul>`);
    expect(pricing.filter(isPlanRecord)).toEqual([]);
    expect(pricing.map((plan) => [plan.origin, plan.amount, plan.period])).toEqual([
      ["context", 144, "year"],
      ["context", 1440, "year"],
      ["context", 36, "year"],
      ["context", 360, "year"],
    ]);
  });
});

describe("free allowances and folded answers", () => {
  it("reads a headline that says the offer is free in another language ('Gratis, Selamanya') as an offer at 0", () => {
    const { pricing } = read(
      `<blockquote>Berapa biaya hosting?</blockquote><h1>Gratis, Selamanya</h1><p>dengan kuota 50 MB, bandwidth 1 GB</p>`,
    );
    expect(pricing.map((plan) => [plan.name, plan.amount])).toEqual([["Gratis, Selamanya", 0]]);
  });

  const usage = (allowance: string) =>
    `<h1>Pricing</h1><p>Cache costs $0.15/GB transferred. That's it!</p>${allowance}` +
    `<h3>Managed certificates</h3><ul><li>Single hostname certificates: $0.10/mo</li><li>Wildcard: $1/mo</li></ul>`;

  it("reads a free allowance stated in a sentence or as a heading as an offer at 0, never a plan", () => {
    for (const allowance of [
      "<p>Your first 50 GBs transferred each month are free, and you need no credit card.</p>",
      "<h2>Free allowances</h2><ul><li>Up to 3 shared VMs</li><li>160GB outbound data transfer</li></ul>",
    ]) {
      const free = read(usage(allowance)).pricing.filter((plan) => plan.amount === 0);
      expect(free.map((plan) => [plan.origin, plan.currency])).toEqual([["context", null]]);
    }
  });

  it("tells a free allowance that appears or goes, beside another one", () => {
    const first = "<p>Your first 50 GBs transferred each month are free.</p>";
    const certificates = `${first}<p>Every organization's first 10 single hostname certificates are free.</p>`;
    expect(pricingEvents(events(usage(first), usage(certificates)))).toHaveLength(1);
    expect(pricingEvents(events(usage(first), usage("")))).toHaveLength(1);
  });

  it("reads an answer folded under a question as that question's, and no price from a calculation's result", () => {
    const page = (answer: string) =>
      `<h1>Pricing</h1><div class="plans"><div><h3>Starter</h3><p>$5/month</p></div><div><h3>Team</h3><p>$15/month</p>` +
      `</div></div><h3>FAQ</h3><details><summary>Can I run a production app for $1.50/month?</summary>${answer}</details>` +
      `<details><summary>Can I see a few pricing examples?</summary><h5>You process 1 million requests a day:</h5>` +
      `<p><code>1 million requests / day * 30.5 days * 4KB * $.15/GB</code> = <strong>$18.3 /month</strong></p></details>`;
    const { pricing } = read(page("<p>Absolutely, if you transfer 10 GB a month.</p>"));
    expect(
      pricing.filter((plan) => plan.origin === "context").map((plan) => [plan.context ?? plan.name, plan.amount]),
    ).toEqual([["Can I run a production app for $1.50/month?", 1.5]]);
    expect(pricing.some((plan) => plan.amount === 18.3)).toBe(false);
  });

  it("names the rows of a table whose price column is headed by what is paid ('Momento charges')", () => {
    const { pricing } = read(
      `<h1>Pricing</h1><table><thead><tr><th>Dimension</th><th>Acme charges</th></tr></thead><tbody>` +
        `<tr><td>Memory / Storage</td><td>$0/GB</td></tr><tr><td>Connections</td><td>$0/thousand connections</td></tr>` +
        `<tr><td>Data transfer</td><td>$0.15/GB</td></tr></tbody></table>`,
    );
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([
      ["Memory / Storage", 0],
      ["Connections", 0],
      ["Data transfer", 0.15],
    ]);
  });
});

describe("prices in a product's credits", () => {
  const page = (linux: number) => `
    <h1>Pricing</h1>
    <p>For private personal repositories there is a very affordable $10 a month plan.</p>
    <h2>Compute Credits</h2>
    <p>1 compute credit can be bought for 1 US dollar. Here is how much 1000 minutes of CPU time will cost:</p>
    <ul>
      <li>1000 minutes of 1 virtual CPU for Linux for ${linux} compute credits</li>
      <li>1000 minutes of 1 virtual CPU for Windows for 10 compute credits</li>
    </ul>
    <p>Every plan includes 500 credits per seat, and you get 200 credits per month for free.</p>`;

  it("reads an amount of credits paid for something as its price, without a currency, and allowances as none", () => {
    const credits = read(page(5)).pricing.filter((plan) => plan.currency === null);
    expect(credits.map((plan) => plan.amount)).toEqual([5, 10]);
    expect(credits.every((plan) => plan.origin === "context")).toBe(true);
  });

  it("reads and tells a line added to a list at a price another line states ('…for FreeBSD for 5 compute credits')", () => {
    const freeBSD = page(5).replace(
      "<li>1000 minutes of 1 virtual CPU for Windows",
      "<li>1000 minutes of 1 virtual CPU for FreeBSD for 5 compute credits</li><li>1000 minutes of 1 virtual CPU for Windows",
    );
    expect(
      read(freeBSD)
        .pricing.filter((plan) => plan.currency === null)
        .map((plan) => plan.amount),
    ).toEqual([5, 5, 10]);
    expect(pricingEvents(events(page(5), freeBSD))).toHaveLength(1);
  });

  it("tells a change of a price in credits", () => {
    expect(pricingEvents(events(page(5), page(3))).map((event) => event.title)).toEqual([
      expect.stringMatching(/cut the price "Compute Credits" from 5 to 3/),
    ]);
  });

  it("reads no price from an amount a plan includes", () => {
    const { pricing } = read(`
      <h1>Pricing</h1><h2>Plans</h2><p>The Hobby plan costs $5 per month.</p>
      <h2>Included usage</h2><p>The Hobby plan includes $5 of resource usage per month.</p>`);
    expect(pricing.map(({ name, amount }) => [name, amount])).toEqual([["Hobby plan", 5]]);
  });
});

/** Cards whose price element keeps both sides of a billing switch in data attributes, `shown` on the page. */
function switchCards(plans: [name: string, monthly: string, yearly: string][], shown: "monthly" | "yearly", per = "") {
  const card = ([name, monthly, yearly]: [string, string, string]) =>
    `<div class="col"><div class="pricing-card"><h3>${name}</h3><div class="pricing-card__price"><span>$</span>` +
    `<span class="amount" data-monthly="${monthly}" data-annual="${yearly}" data-monthly-id="price_1Nx">` +
    `${shown === "monthly" ? monthly : yearly}</span><span class="period"${per}>/mo</span></div>` +
    `<ul><li>Unlimited projects</li></ul><a href="/signup">Start</a></div></div>`;
  return `<h1>Pricing</h1><label><input type="checkbox" id="annual"> Annual</label><div class="row">${plans.map(card).join("")}</div>`;
}

describe("a price change is never silent", () => {
  it("reads the other side of a billing switch kept in data attributes, and what its number is per", () => {
    const options = (html: string) =>
      read(html).pricing.map((plan) => [plan.name, (plan.prices ?? []).map((o) => [o.amount, o.period, o.billing])]);
    // A smaller yearly number is a month's price billed yearly.
    expect(
      options(
        switchCards(
          [
            ["Starter", "29", "23"],
            ["Pro", "49", "39"],
          ],
          "monthly",
        ),
      ),
    ).toEqual([
      [
        "Starter",
        [
          [29, "month", "month"],
          [23, "month", "year"],
        ],
      ],
      [
        "Pro",
        [
          [49, "month", "month"],
          [39, "month", "year"],
        ],
      ],
    ]);
    // The first card's prices, its yearly number beside a second card's ten times its monthly one.
    const starter = (monthly: string, yearly: string, per = "") =>
      options(
        switchCards(
          [
            ["Starter", monthly, yearly],
            ["Pro", "20", "200"],
          ],
          "monthly",
          per,
        ),
      )[0];
    // Ten times the monthly one is a year's price; the period element's own pair says so too.
    expect(starter("15", "126")).toEqual([
      "Starter",
      [
        [15, "month", "month"],
        [126, "year", "year"],
      ],
    ]);
    const perYear = ' data-monthly="/mo" data-annual="/yr"';
    expect(starter("4.99", "8.99", perYear)).toEqual([
      "Starter",
      [
        [4.99, "month", "month"],
        [8.99, "year", "year"],
      ],
    ]);
    // A yearly number that is neither is read without a period: its change is not lost, and nothing is made up.
    expect(starter("10", "30")).toEqual([
      "Starter",
      [
        [10, "month", "month"],
        [30, null, "year"],
      ],
    ]);
    // A text bound to the switch (Alpine's x-text, Vue's v-text) says both sides in its expression.
    const bound = (name: string, monthly: string, yearly: string) =>
      `<div class="col"><div class="rounded"><h3>${name}</h3><p><span x-text="annual ? '$${yearly}' : '$${monthly}'">` +
      `$${monthly}</span><span x-text="annual ? '/yr' : '/mo'">/mo</span></p><ul><li>Unlimited</li></ul></div></div>`;
    expect(
      options(
        `<h1>Pricing</h1><div class="grid">${bound("Starter", "29.99", "299")}${bound("Pro", "49", "490")}</div>`,
      )[0],
    ).toEqual([
      "Starter",
      [
        [29.99, "month", "month"],
        [299, "year", "year"],
      ],
    ]);
    // Only two names alike but for their period word pair up: a yearly saving beside the monthly price is no price.
    const saving = switchCards(
      [
        ["Starter", "29", "23"],
        ["Pro", "49", "39"],
      ],
      "monthly",
    ).replaceAll("data-annual=", "data-annual-saving=");
    expect(options(saving)[0]).toEqual(["Starter", []]);
  });

  it("tells a plan's one price moving to another period at a number no view switch explains ($9.99/year → $49.99/month)", () => {
    const page = (price: string) =>
      `<h1>Pricing</h1><div class="row"><div class="card"><h3>Basic</h3><p class="price">${price}</p></div>` +
      `<div class="card"><h3>Pro</h3><p class="price">$24.99 / year</p></div></div>`;
    const told = pricingEvents(events(page("$9.99 / year"), page("$49.99 / Month")));
    expect(told.map((event) => event.title)).toEqual([expect.stringMatching(/Basic.*\$9\.99.*\$49\.99/)]);
    // $49/month shown as $490/year is the page's other view of one price: no event.
    expect(pricingEvents(events(page("$49 / month"), page("$490 / year")))).toEqual([]);
  });

  it("tells a price that moved when the page stopped saying per what its prices are ('$549/year · $49/month' → '$539 · $49')", () => {
    const page = (prices: string) =>
      `<h1>Pricing</h1><div class="row"><div class="card"><h3>Growth</h3>${prices}</div>` +
      `<div class="card"><h3>Pro</h3><p class="price">$2149 per year</p><p class="price">$199 per month</p></div></div>`;
    const before = page('<p class="price">$549 per year</p><p class="price">$49 per month</p>');
    const after = page('<p class="price">$539</p><p class="price">$49</p>');
    const told = pricingEvents(events(before, after));
    expect(told.map((event) => event.title)).toEqual([expect.stringMatching(/Growth.*\$549.*\$539/)]);
  });

  it("tells a change of the price behind a billing switch, but not the page showing the switch's other side", () => {
    const before = switchCards(
      [
        ["Starter", "29", "23"],
        ["Pro", "49", "39"],
      ],
      "monthly",
    );
    const yearlyRaised = switchCards(
      [
        ["Starter", "29", "25"],
        ["Pro", "49", "39"],
      ],
      "monthly",
    );
    const change = pricingEvents(events(before, yearlyRaised));
    expect(change).toHaveLength(1);
    expect(change[0]!.title).toMatch(/Starter/);
    expect(change[0]!.title).toMatch(/25/);
    const yearlyShown = switchCards(
      [
        ["Starter", "29", "23"],
        ["Pro", "49", "39"],
      ],
      "yearly",
    );
    expect(pricingEvents(events(before, yearlyShown))).toEqual([]);
  });

  const page = (price: string) =>
    `<h1>Pricing</h1><h2>Extras</h2><p>Need more? Extra storage is available.</p><p class="note">${price} per 100 GB each month</p>`;

  it("reads a price no plan can be named for, by its context, never as a plan", () => {
    const { pricing } = read(page("$5"));
    expect(pricing.filter(isPlanRecord)).toEqual([]);
    expect(pricing.map(({ name, origin, amount, context }) => ({ name, origin, amount, context }))).toEqual([
      { name: "Extras", origin: "context", amount: 5, context: undefined },
    ]);
  });

  it("turns its change into a pricing event with a lower confidence that says why", () => {
    const [event, ...rest] = pricingEvents(events(page("$5"), page("$7")));
    expect(rest).toEqual([]);
    expect(event).toMatchObject({
      title: 'Acme raised the price "Extras" from $5 to $7/month',
      confidence_score: 0.5,
      is_inferred: true,
    });
    expect(event!.confidence_reasoning).toMatch(/could not be tied to a named plan/);
  });

  it("reports a price whose sentence was reworded as that price changed, with the other price in the sentence", () => {
    const plans = `<div class="plans"><div><h3>Starter</h3><p>$5/month</p></div><div><h3>Team</h3><p>$15/month</p></div></div>`;
    const hosts = (sentence: string) => `${plans}<h2>Dedicated hosts</h2><p>${sentence}</p>`;
    const before = hosts(
      "Dedicated M2 or Intel hosts are available for $449/month, paid annually comes to <strong>$4,310/year</strong>.",
    );
    const after = hosts(
      "Dedicated <strong>M2</strong> hosts are available for $830/month, paid annually comes to <strong>$7,968/year</strong>.",
    );
    const hostsRecord = read(before).pricing.find((plan) => plan.origin === "context")!;
    expect(priceOptionsOf(hostsRecord)).toEqual([449, 4310]);
    expect(pricingEvents(events(before, after)).map((event) => event.title)).toEqual([
      'Acme raised the price "Dedicated M2 hosts are available" under "Dedicated hosts" from $449 to $830/month',
    ]);
  });

  it("reports an option inserted in a list of prices as added, never as the next price cut", () => {
    const plans = `<div class="plans"><div><h3>Starter</h3><p>$5/month</p></div><div><h3>Team</h3><p>$15/month</p></div></div>`;
    const list = (...lines: string[]) =>
      `${plans}<h2>CodePush</h2><ul>${lines.map((line) => `<li>${line}</li>`).join("")}</ul>`;
    const before = list(
      "<strong>Free</strong> for annual plans.",
      "<strong>$99/month</strong> on pay-as-you-go.",
      "<strong>$6k/year</strong> for a standalone instance.",
    );
    const after = list(
      "<strong>Free</strong> for annual plans.",
      "<strong>$99/month</strong> on pay-as-you-go.",
      "<strong>$3k/year</strong> to integrate into your pipeline.",
      "<strong>$6k/year</strong> for a standalone instance.",
    );
    expect(pricingEvents(events(before, after)).map((event) => event.title)).toEqual([
      'Acme added a price "CodePush (2)"',
    ]);
  });

  it("reads prices stated in a sentence beside the plans, but not an FAQ's answers or worked examples", () => {
    const plans = `<div class="plans"><div><h3>Starter</h3><p>$5/month</p></div><div><h3>Team</h3><p>$15/month</p></div></div>`;
    const { pricing } = read(
      `${plans}<h2>Support</h2><p>Community support is included. You can get more by purchasing a Standard ($29/month) or ` +
        `Premium ($199/month) package in the Support section of your dashboard.</p>` +
        `<h2>Frequently asked questions</h2><p>Does the Starter plan include usage? It includes $5 of usage every month, after ` +
        `which you pay only for what your services use, billed at the end of the month with the subscription.</p>` +
        `<h2>Billing</h2><p>If your usage comes to $3 in a month, you still pay the $5 subscription and nothing more: the ` +
        `subscription covers usage up to its own amount, and anything above it is billed at the usual rates.</p>`,
    );
    const context = pricing.filter((plan) => plan.origin === "context");
    expect(context.map((plan) => [plan.name, priceOptionsOf(plan)])).toEqual([
      ["Standard", [29]],
      ["Premium", [199]],
    ]);
  });

  it("reports a price that appears in a sentence beside the plans, but not an FAQ's answer or a price stated again", () => {
    const plans = `<div class="plans"><div><h3>Starter</h3><p>$5/month</p></div><div><h3>Team</h3><p>$15/month</p></div></div>`;
    const dedicated = `${plans}<h2>CodePush</h2><p><strong>$6k/year</strong> for a dedicated, standalone instance.</p>`;
    expect(pricingEvents(events(plans, dedicated)).map((event) => event.title)).toEqual([
      'Acme added a price "CodePush"',
    ]);
    const faq = `${plans}<h2>Which payment methods do you support?</h2><p>Cards, and invoices above $1,000 a year.</p>`;
    expect(pricingEvents(events(plans, faq))).toEqual([]);
    // The same overage price gone from a plan's card while its row in the feature table still states it.
    const table = (card: string) =>
      `<div class="plans"><div><h3>Starter</h3><p>$5/month</p></div><div><h3>Team</h3><p>$15/month</p>${card}</div></div>` +
      `<table><tr><th></th><th>Starter</th><th>Team</th></tr><tr><td>API check runs</td><td>$3</td><td>$2</td></tr></table>`;
    const moved = pricingEvents(events(table("<ul><li>$2.00 per 10K additional API check runs</li></ul>"), table("")));
    expect(moved.filter((event) => !event.tags.includes("features"))).toEqual([]);
  });

  it("reports a price changed where its context's prices also swapped places ($3/month, $30/year → $30/year, $4/month)", () => {
    const premium = (first: string, second: string) =>
      `<h1>Premium</h1><div class="box"><p>${first}</p></div><div class="box"><p>${second}</p></div>`;
    expect(
      pricingEvents(events(premium("$3 / month", "$30 / year"), premium("$30 / year", "$4 / month"))).map(
        (event) => event.title,
      ),
    ).toEqual([expect.stringMatching(/raised the price .* from \$3 to \$4\/month/)]);
  });

  it("raises no price event for advice that restates a named plan's price, or a link's title that quotes one", () => {
    const plans = `<h1>Plans</h1><ul><li>The <strong>Starter</strong> plan offers 300 searches for USD $5 per month.</li>
      <li>The <strong>Professional</strong> plan offers unlimited searches for USD $10 per month.</li></ul>`;
    const advice =
      `${plans}<h2>Pick the right plan</h2><p>If you keep running out of searches it is time to consider the ` +
      `Professional plan. This plan is priced at USD $10/month and you get unlimited searches!</p>` +
      `<h2>Legacy subscribers</h2><p>For existing subscribers who want to know how legacy accounts are kept, please ` +
      `refer to the blog post <a href="https://blog.example.com/unlimited">Unlimited searches for $10 per month</a>.</p>`;
    expect(pricingEvents(events(plans, advice))).toEqual([]);
  });

  it("names a price in a sentence by the plan named after it ('the $5/month Hobby plan'), whatever the words before", () => {
    const page = (sentence: string) =>
      `<h1>Pricing</h1><h2>Usage</h2><p>Pay for what you use.</p><h3>New sign-ups</h3><p>${sentence}</p>`;
    const before = read(
      page("You won't be charged for the $5/month Hobby plan subscription until your credit is used."),
    );
    expect(before.pricing.map(({ name, amount }) => [name, amount])).toEqual([["Hobby", 5]]);
    const after = page("Your organization is placed on the $5/month Hobby plan when its credit is used up.");
    expect(pricingEvents(events(page("You won't be charged for the $5/month Hobby plan until later."), after))).toEqual(
      [],
    );
  });

  it("reports a usage price that appears in a sentence below the plans", () => {
    const cards = `<div class="plans"><div><h3>Starter</h3><ul><li>€5/month</li><li>Custom domain</li></ul></div><div><h3>Business</h3><ul><li>€15/month</li><li>Custom domain</li></ul></div></div>`;
    const usage = `${cards}<div>Additional pageviews can be added for €0.20 per 10k pageviews, charged based on actual usage.</div>`;
    expect(pricingEvents(events(cards, usage))).toHaveLength(1);
  });
});

describe("a redesign is not a price change", () => {
  it("raises no pricing event when a customer's quotation with an amount is added ('Acme saved us $50,000 a year')", () => {
    const card = (name: string, price: string) =>
      `<div class="card"><h3>${name}</h3><p class="price">${price}</p><ul><li>Projects</li><li>Support</li></ul></div>`;
    const page = (more: string) =>
      `<h1>Pricing</h1><div class="grid">${card("Basic", "$10/mo")}${card("Pro", "$20/mo")}</div>${more}`;
    for (const quote of [
      `<blockquote>"Switching cut our bill to $300 a month." — Jane, CTO</blockquote>`,
      `<p class="testimonial">"Acme saved us $50,000 a year." — Sam, VP Engineering</p>`,
    ])
      expect(pricingEvents(events(page(""), page(quote)))).toEqual([]);
  });

  it("raises no pricing event when a price named by its context is read under another label at the same amount", () => {
    // Buttons priced in a column without a heading: a note inserted above them changes the words that name them.
    const page = (note: string) =>
      `<div class="col"><div class="display-6">Secure payments by <a href="https://paddle.com">Paddle</a></div>${note}` +
      `<button class="btn">Monthly <br> $2.99/month</button><button class="btn">Yearly <br> $29.99/year</button></div>`;
    const before = page("<hr>");
    const after = page(
      `<div>Please note that Paddle only supports bank card or PayPal. <br> Email us for other options.</div>`,
    );
    expect(read(before).pricing.map((plan) => plan.name)).not.toEqual(read(after).pricing.map((plan) => plan.name));
    expect(pricingEvents(events(before, after))).toEqual([]);
  });

  const cards = `<div class="plans"><div class="plan"><h3>Basic</h3><p>$9/month</p></div><div class="plan"><h3>Pro</h3><p>$29/month</p></div></div>`;
  const table = `<table><thead><tr><th>Plan</th><th>Basic</th><th>Pro</th></tr></thead>
    <tbody><tr><td>Price</td><td>$9/month</td><td>$29/month</td></tr></tbody></table>`;

  it("raises no pricing event when the same prices move from cards into a table", () => {
    expect(pricingEvents(events(cards, table))).toEqual([]);
  });

  it("raises no pricing event when a comparison table's column copying a card's price is renamed to match it", () => {
    const page = (column: string) =>
      `${cards}<table><thead><tr><th>Feature</th><th>Basic</th><th>${column}</th></tr></thead>` +
      `<tbody><tr><td>Pricing</td><td>$9/month</td><td>$29/month</td></tr>` +
      `<tr><td>Projects</td><td>3</td><td>Unlimited</td></tr></tbody></table>`;
    expect(pricingEvents(events(page("Premium"), page("Pro")))).toEqual([]);
    // A price that moved on the card is still told, and so is a row of its own at a card's price.
    expect(pricingEvents(events(page("Premium"), page("Pro").replace("<p>$29/month", "<p>$39/month")))).not.toEqual([]);
    const extra = page("Pro").replace("</tbody>", "<tr><td>Extra seats</td><td>-</td><td>$9/month</td></tr></tbody>");
    expect(pricingEvents(events(page("Pro"), extra)).map((event) => event.title)).toEqual([
      expect.stringMatching(/added .*Extra seats/),
    ]);
  });

  it("raises no pricing event when the page shows its yearly prices where it showed the monthly ones", () => {
    const yearly = cards.replace("$9/month", "$90/year").replace("$29/month", "$290/year");
    expect(pricingEvents(events(cards, yearly))).toEqual([]);
  });

  it("tells plans renamed at the same prices as one low event", () => {
    const renamed = cards.replace("Basic", "Starter").replace(">Pro<", ">Business<");
    const drafts = pricingEvents(events(cards, renamed));
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({ severity: "low", tags: ["pricing", "plan-renamed"] });
  });

  it("tells a struck list price appearing over an unchanged price as a promotion, not a raise", () => {
    const promo = cards.replace("<p>$29/month</p>", "<p><del>$39</del> $29/month</p>");
    const [event, ...rest] = pricingEvents(events(cards, promo));
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ severity: "low", tags: ["pricing", "promotion-started", "pro"] });
  });

  it("tells a sale starting on a page of one plan as a promotion ('<del>$39</del> <ins>$29</ins>'), not a price added", () => {
    const page = (price: string) =>
      `<h1>Pricing</h1><div class="card"><h3>Basic</h3><p class="price">${price}/mo</p><ul><li>Everything</li></ul></div>`;
    const sale = page("<del>$39</del> <ins>$29</ins>");
    expect(read(sale).pricing.map((plan) => [plan.name, plan.amount, plan.promo_amount])).toEqual([["Basic", 39, 29]]);
    const [event, ...rest] = pricingEvents(events(page("$39"), sale));
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ severity: "low", tags: expect.arrayContaining(["promotion-started"]) });
  });

  it("tells a plan priced per user at an unchanged amount ('$10/month' → '$10/user/month'), and not an allowance", () => {
    const page = (basic: string, pro: string) =>
      `<h1>Pricing</h1><div class="grid">${[
        ["Basic", basic],
        ["Pro", pro],
      ]
        .map(
          ([name, price]) =>
            `<div class="card"><h3>${name}</h3><p class="price">${price}</p><ul><li>Projects</li></ul></div>`,
        )
        .join("")}</div>`;
    const flat = page("$10/month", "$20/month");
    const seats = page("$10 per user / month", "$20 / team member / month");
    expect(read(seats).pricing.map((plan) => [plan.name, plan.amount, plan.per_seat])).toEqual([
      ["Basic", 10, true],
      ["Pro", 20, true],
    ]);
    expect(
      read(page("$49/month for 5 users", "$10/mo + $5 per additional user")).pricing.map((plan) => plan.per_seat),
    ).toEqual([undefined, undefined]);
    const told = pricingEvents(events(flat, seats));
    expect(told.map((event) => [event.severity, event.title])).toEqual([
      ["medium", "Acme now prices Basic per user ($10/month each)"],
      ["medium", "Acme now prices Pro per user ($20/month each)"],
    ]);
    expect(pricingEvents(events(seats, flat)).map((event) => event.title)).toEqual([
      "Acme no longer prices Basic per user ($10/month)",
      "Acme no longer prices Pro per user ($20/month)",
    ]);
  });

  it("bills a price by the words after it: 'Billed annually or $18 month-to-month' is $18 billed monthly", () => {
    const { pricing } = read(
      `<h1>Pricing</h1><div class="plans"><div><h3>Starter</h3><div class="amount">$15<small>/user/month</small></div>` +
        `<p>Billed annually or $18 month-to-month</p></div><div><h3>Pro</h3><div class="amount">$25<small>/user/month</small>` +
        `</div><p>Billed annually or $30 month-to-month</p></div></div>`,
    );
    expect(pricing.map((plan) => plan.prices?.map((o) => [o.amount, o.billing]))).toEqual([
      [
        [15, null],
        [18, "month"],
      ],
      [
        [25, null],
        [30, "month"],
      ],
    ]);
  });

  it("raises no event when a comparison table restating the cards' prices is added (headed 'PRO' over 'Get Started')", () => {
    const card = (name: string, shown: string, hidden: string) =>
      `<div class="plan"><h3>${name}</h3><div class="pricing"><h4 class="price-value">${shown}</h4>` +
      `<h4 class="price-value hidden">${hidden}</h4></div><p>Per user / month</p><ul><li>Cloud storage</li><li>Support</li></ul></div>`;
    const cards = `<h1>Pricing</h1><div class="plans">${card("COMMUNITY", "FREE", "FREE")}${card("PRO", "$4", "$6")}${card("TEAM", "$10", "$12")}</div>`;
    const head = (name: string) => `<th><h4>${name}</h4><a href="/start">Get Started</a></th>`;
    const table =
      `<h2>Compare our plans</h2><table><thead><tr><th></th>${head("COMMUNITY")}${head("PRO")}${head("TEAM")}</tr></thead>` +
      `<tbody><tr><td><span class="feature-name">Subscription Price</span><span class="tooltip">Cost per Member</span></td>` +
      `<td>$0</td><td>$6</td><td>$12</td></tr></tbody></table>`;
    expect(read(cards).pricing.map((plan) => plan.name)).toEqual(["COMMUNITY", "PRO", "TEAM"]);
    expect(pricingEvents(events(cards, cards + table))).toEqual([]);
  });

  it("tells a billing option added beside the price that stayed as one low event", () => {
    const more = cards.replace("<p>$29/month</p>", "<p>$29/month</p><p>or $290/year</p>");
    const [event, ...rest] = pricingEvents(events(cards, more));
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ severity: "low", title: "Acme added a price option to Pro: $290/year" });
  });

  it("raises no event when an add-on's line is relabelled at the same price", () => {
    const labels = (user: string) => `<div class="labels"><ul><li>Projects</li><li>${user}</li></ul></div>`;
    const plan = (name: string, price: number) =>
      `<div class="product"><h2>${name}</h2><h3>$${price} per month</h3><ul><li>Unlimited</li><li><span class="price">$12</span> per month</li></ul></div>`;
    const page = (user: string) =>
      `<div class="table">${labels(user)}${plan("Team", 74)}${plan("Business", 225)}</div>`;
    expect(pricingEvents(events(page("Licensees"), page("Licensees/Customers")))).toEqual([]);
  });

  it("still reports a real price change through a redesign", () => {
    const raised = table.replace("$29/month", "$39/month");
    expect(pricingEvents(events(cards, raised)).map((event) => event.title)).toEqual([
      "Acme raised Pro from $29 to $39/month",
    ]);
  });
});

describe("price places that hold no amount of money", () => {
  const card = (name: string, price: string, line = "Installs in minutes") =>
    `<div class="col-4"><div class="plan"><h5>${name}</h5><div class="price"><h5>${price}</h5></div>` +
    `<ul><li>${line}</li><li>Pre-built binaries</li></ul><a class="btn" href="/go">Install</a></div></div>`;

  it("reads 'FREE up to $1000 monthly savings' as free with a limit, and a card's savings limit as no price", () => {
    const plans = read(
      `<h2>Pricing Plans</h2><div class="row">${card("Open Source", "FREE")}` +
        `${card("Evaluation binaries", "FREE up to $1000 monthly savings", "Restricted to $1000 monthly savings per installation")}` +
        `${card("Stable", "$20 monthly")}</div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.currency])).toEqual([
      ["Open Source", 0, null],
      ["Evaluation binaries", 0, null],
      ["Stable", 20, "USD"],
    ]);
  });

  it("reads 'FREE for 14 days' in a card's price place as that offer's price, beside the paid cards", () => {
    const plans = read(
      `<div class="row">${card("Open Source", "FREE")}${card("Evaluation", "FREE for 14 days")}${card("Single AWS Region", "$10 monthly")}</div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Open Source", 0],
      ["Evaluation", 0],
      ["Single AWS Region", 10],
    ]);
  });

  it("reads a share of something in the price place ('Up to 5% of savings') as an offer without an amount", () => {
    const plans = read(
      `<div class="row">${card("Stable and supported", "Up to 5% of savings")}${card("Open Source Trunk", "Free")}</div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Stable and supported", null],
      ["Open Source Trunk", 0],
    ]);
  });

  it("names a card 'Beta (Evaluation)' by its heading: a badge word opening a name with a remark is the name", () => {
    const plans = read(
      `<div class="row">${card("Beta (Evaluation)", "FREE")}${card("Stable", "$29/AWS account")}</div>`,
    ).pricing;
    expect(plans.map((plan) => plan.name)).toEqual(["Beta (Evaluation)", "Stable"]);
  });
});

describe("one offer's price in several currencies or cycles", () => {
  it("reads 'CNY ¥19.90' in yuan, and lines labelled by their currency's code as one offer's prices", () => {
    const plans = read(
      `<h2>Subscription</h2><p>7 days free trial, then you will be charged monthly at one of the following rates:</p>` +
        `<ul><li>USD US$2.66 / month,</li><li>CNY ¥19.90 / month,</li><li>EUR €2.36 / month,</li><li>HKD HK$21.80 / month</li></ul>`,
    ).pricing;
    expect(plans).toHaveLength(1);
    expect(plans[0]!.prices!.map((option) => [option.amount, option.currency, option.period])).toEqual([
      [2.66, "USD", "month"],
      [19.9, "CNY", "month"],
      [2.36, "EUR", "month"],
      [21.8, "HKD", "month"],
    ]);
  });

  it("reads a price per half year, per two years or per hour with no period, never as a yearly or monthly price", () => {
    const plans = read(
      `<h2>Subscribe</h2><p><button>Start now, then USD $4.99 / half year (6 months)</button></p>` +
        `<h2>Licence</h2><p><button>Buy for $129 for 2 years</button></p>` +
        `<h2>Training</h2><table><tr><td><span>Additional training: £50 per hour</span></td></tr>` +
        `<tr><td>200 <span>pages per month</span></td></tr></table>`,
    ).pricing;
    expect(plans.map((plan) => [plan.amount, plan.period])).toEqual([
      [4.99, null],
      [129, null],
      [50, null],
    ]);
  });

  it("reads no period for a price in a row's last cell from the row below it ('Setup fee | £99' over 'Monthly cost | Free')", () => {
    const plans = read(
      `<table><tr><th>Recruit</th><th></th></tr><tr><td>Reports</td><td>✓</td></tr>` +
        `<tr><td>Setup fee</td><td>£99</td></tr><tr><td>Monthly cost</td><td>Free</td></tr></table>`,
    ).pricing;
    expect(plans.find((plan) => plan.amount === 99)).toMatchObject({ currency: "GBP", period: null });
  });

  it("reads '$25,000+/month' in a card's price place as a starting price, and 'orders over $49+' as none", () => {
    const card = (name: string, price: string) =>
      `<div class="card"><h3>${name}</h3><p class="price">${price}</p><ul><li>Guardrails</li><li>Audit log</li></ul></div>`;
    const plans = read(
      `<div class="plans">${card("Professional", "$10,000/month")}${card("Enterprise", "$25,000+/month")}</div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.period])).toEqual([
      ["Professional", 10000, "month"],
      ["Enterprise", 25000, "month"],
    ]);
    expect(read(`<p>Free shipping on orders over $49+ in the US.</p>`).pricing).toEqual([]);
  });

  it("reads no period from a year of upgrades a licence includes ('$595' over '1 Year of Upgrades & Support')", () => {
    const card = (name: string, price: number) =>
      `<li class="studio"><h2>${name}</h2><figure>$${price}</figure><p><small>Includes the IDE, 1 Year of Upgrades & Support.</small></p></li>`;
    const plans = read(`<ul class="pricing-block">${card("Pro Studio", 595)}${card("Komodo IDE", 295)}</ul>`).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.period])).toEqual([
      ["Pro Studio", 595, null],
      ["Komodo IDE", 295, null],
    ]);
  });

  it("reads '$14.99 -> $7.99 with a promotion code' as the $14.99 price, and the promotion's end as no change", () => {
    const page = (price: string) =>
      `<h3>Purchase Now</h3><p>Order Now at ${price} (excluding tax) for lifetime use (bound to one device). Use a promotion code to enjoy the discount.</p>`;
    const plans = read(page("$14.99 -&gt; $7.99")).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.period])).toEqual([["Purchase Now", 14.99, "one_time"]]);
    expect(pricingEvents(events(page("$14.99 -&gt; $7.99"), page("$14.99")))).toEqual([]);
  });
});

describe("a heading that holds its price", () => {
  it("names each plan by the words its heading says before the price ('<h3>Organization<span>$24/month</span></h3>')", () => {
    const plan = (name: string, price: number) =>
      `<div class="span6"><div class="plan"><h2>${name}<span class="price">$${price}/month</span></h2>` +
      `<ul><li><strong>unlimited</strong> private repositories</li><li><strong>unlimited</strong> teams</li></ul>` +
      `<a class="button">Subscribe</a></div></div>`;
    const plans = read(
      `<div class="plans"><div class="row">${plan("Organization", 24)}${plan("User", 7)}</div></div>`,
    ).pricing;
    expect(plans.map((p) => [p.name, p.amount])).toEqual([
      ["Organization", 24],
      ["User", 7],
    ]);
  });
});

describe("add-ons listed with a bold name and 'Add $X'", () => {
  it("names each by its bold lead without its full stop, and reads two at one amount as two", () => {
    const item = (name: string, what: string) => `<li><b>${name}.</b> ${what}</li>`;
    const plans = read(
      `<div class="plans"><div class="item"><h3>Starter</h3><p>$50 /month</p></div><div class="item"><h3>Standard</h3><p>$100 /month</p></div></div>` +
        `<h4>Add-Ons</h4><ul>${item("Complete server backup", "Made once a week. Add 10% to the base plan.")}` +
        `${item("Export module", "Access 50+ export templates. Add $75/month.")}` +
        `${item("Satellite Site module", "Run several sites from one database. Add $25/month per satellite.")}` +
        `${item("Previews module", "Limited-time access to hosted ebooks. Add $25/month.")}</ul>`,
    ).pricing;
    expect(plans.filter((plan) => !isPlanRecord(plan)).map((plan) => [plan.name, plan.amount, plan.kind])).toEqual([
      ["Export module", 75, "addon"],
      ["Satellite Site module", 25, "addon"],
      ["Previews module", 25, "addon"],
    ]);
  });
});

describe("words about a price that price nothing", () => {
  const grid = (third: string) =>
    `<div class="grid"><div class="col"><h3>Pro</h3><p class="price">$10/month</p><ul><li>Reports</li><li>Exports</li></ul></div>` +
    `<div class="col"><h3>Team</h3><p class="price">$20/month</p><ul><li>Reports</li><li>Exports</li></ul></div>${third}</div>`;

  it("reads no offer from an answer's 'contact us for a quote' link beside the cards, nor its going as an event", () => {
    const before = grid(
      `<div class="col"><h4>Is there a setup fee?</h4><p>Yes. The <a href="/setup">setup fee</a> depends on your needs. ` +
        `Please <a href="/contact">contact us for a quote</a>.</p></div>`,
    );
    expect(read(before).pricing.map((plan) => plan.name)).toEqual(["Pro", "Team"]);
    expect(pricingEvents(events(before, grid("")))).toEqual([]);
  });

  it("reads no free offer from a 'Start your <span>FREE</span> trial' button", () => {
    const plans = read(
      grid(
        `<div class="col"><h3>Trial</h3><a href="/signup"><span>Start your <span>FREE</span> trial</span></a><ul><li>Reports</li><li>Exports</li></ul></div>`,
      ),
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Pro", 10],
      ["Team", 20],
    ]);
  });

  it("reads a card of the plans' template that says its offer is free to use as free, though it asks to be contacted", () => {
    const card = (name: string, body: string) =>
      `<div class="col-md-4"><div class="card"><div class="card-header"><h2 class="mb-0">${name}</h2></div><div class="card-body">${body}</div></div></div>`;
    const plans = read(
      `<div class="row">${card("Open Source", `<p>Built on <b>open-source</b> and is free to use for public repositories.</p><p><a href="/c">Get in touch</a> to discuss a custom solution.</p>`)}` +
        `${card("Essentials", "<h4>$69 per month</h4><p>Startups.</p>")}${card("Pro", "<h4>$279 per month</h4><p>Larger teams.</p>")}</div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Open Source", 0],
      ["Essentials", 69],
      ["Pro", 279],
    ]);
  });
});

describe("a card's price for more of something, said after its element", () => {
  it("reads '+<strong>USD $150 / year</strong> per additional device' as the card's add-on, not a second price", () => {
    const plans = read(
      `<div class="pricing"><div class="box"><p class="name">Free</p><p class="dollars">USD $0</p><button>Get it</button><ul><li>Uploads</li><li>Maps</li></ul></div>` +
        `<div class="box"><p class="name">Pro</p><div class="formula"><strong>USD $400 / year</strong> for 1st device<br>` +
        `+<strong>USD $150 / year</strong> per additional device</div><button>Buy</button><ul><li>Uploads</li><li>Everything</li></ul></div></div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.period, plan.kind ?? "plan"])).toEqual([
      ["Free", 0, null, "plan"],
      ["Pro", 400, "year", "plan"],
      ["Additional device (Pro)", 150, "year", "addon"],
    ]);
  });
});

describe("a comparison table whose head cells price the plans", () => {
  it("reads a body row of prices under them as each plan's other price, never named by a row of values", () => {
    const head = (name: string, price: number) =>
      `<th scope="col"><h2>${name}</h2><p><span>$${price}</span><span>/mo</span></p></th>`;
    const plans = read(
      `<h2>What do subscriptions include?</h2><p>Each plan comes with a storage pool.</p>` +
        `<table><caption>Pricing plan comparison</caption><thead><tr><th></th>${head("Collaborator", 0)}${head("Solo", 8)}</tr></thead>` +
        `<tbody><tr><th scope="row"><h3>Storage Pool</h3></th><td><span>1 GB</span></td><td><span>100 GB</span></td></tr>` +
        `<tr><th scope="row"><h3>Pre-Paid Yearly Price (2 months free)</h3></th><td>$0/yr</td><td>$80/yr</td></tr></tbody></table>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, priceOptionsOf(plan)])).toEqual([
      ["Collaborator", [0, 0]],
      ["Solo", [8, 80]],
    ]);
  });
});

describe("plans written as tables of one column", () => {
  it("reads each table as a card: its name and price in the head, a price per hour in its rows as its own", () => {
    const table = (name: string, price: string, message: string) =>
      `<table class="table-hover"><thead><tr><th scope="col"><p class="plan">${name}</p><p class="price">${price}</p>` +
      `<p class="message">${message}</p></th></tr></thead><tbody><tr><td>200 <span>pages per month</span></td></tr>` +
      `<tr><td>Unlimited <span>projects</span></td></tr>` +
      (name === "Enterprise" ? "" : `<tr><td><span>Additional training: £50 per hour</span></td></tr>`) +
      `</tbody></table>`;
    const plans = read(
      `<h2>Choose your plan</h2><div id="pricing-table">${table("Intro", "£149", "per month")}` +
        `${table("Pro", "£309", "per month (paid annually)")}${table("Enterprise", "&nbsp;", "Contact us for pricing")}</div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.period, plan.kind ?? "plan"])).toEqual([
      ["Intro", 149, "month", "plan"],
      ["Additional training (Intro)", 50, null, "usage"],
      ["Pro", 309, "month", "plan"],
      ["Additional training (Pro)", 50, null, "usage"],
      ["Enterprise", null, null, "plan"],
    ]);
  });
});

describe("an offer on request from one person", () => {
  it("reads a heading 'Studios - Contact Me' beside the plans as an offer on request", () => {
    const card = (name: string, price: number) =>
      `<div class="plan"><h3>${name}</h3><p class="price">$${price}/mo</p><ul><li>Storage</li><li>Sharing</li></ul></div>`;
    const plans = read(
      `<div class="plans">${card("Solo", 8)}${card("Band", 24)}</div><h2>Studios - Contact Me</h2>` +
        `<p>If you need more than 2 TB of storage then I'd love to hear from you.</p>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Solo", 8],
      ["Band", 24],
      ["Studios", null],
    ]);
  });
});

describe("tiers that bear one label", () => {
  const tier = (price: string, limit: string) =>
    `<li><span class="price">${price}</span><ul><li><span class="number">${limit}</span> <span class="label">Customers</span></li>` +
    `<li><span class="number">2</span> <span class="label">Teammates</span></li></ul><a href="/signup">Sign up</a></li>`;

  it("names differently priced blocks that share a limit's label by the limit's whole line", () => {
    const plans = read(
      `<ul id="pricing_list">${tier("$100/mo.", "1,000")}${tier("$50/mo.", "500")}${tier("FREE", "25")}</ul>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.period])).toEqual([
      ["1,000 Customers", 100, "month"],
      ["500 Customers", 50, "month"],
      ["25 Customers", 0, null],
    ]);
  });

  it("takes blocks of one limit at two prices (a monthly/yearly switch's copies) for copies, not tiers", () => {
    const plans = read(`<ul id="pricing_list">${tier("$10/mo.", "1,000")}${tier("$100/yr", "1,000")}</ul>`).pricing;
    expect(plans.map((plan) => plan.name)).not.toContain("1,000 Customers");
  });
});

describe("a plan named by a badge's word", () => {
  it("names a priced table row by its first cell 'Beta', not by the quota beside it", () => {
    const row = (name: string, quota: string, cost: string) =>
      `<tr><td>${name}</td><td>${quota}</td><td>${cost}</td></tr>`;
    const plans = read(
      `<table><thead><tr><th>Plan</th><th>Monthly quota</th><th>Monthly cost</th></tr></thead><tbody>` +
        `${row("Production", "30 hours", "$30,000")}${row("Beta", "10 hours", "$15,000")}${row("Prototype", "3 hours", "$5,000")}` +
        `</tbody></table>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Production", 30000],
      ["Beta", 15000],
      ["Prototype", 5000],
    ]);
  });
});

describe("a deck of one priced card and one free in words", () => {
  const deck = (free: string) =>
    `<div class="card-deck"><div class="card shadow-lg"><div class="card-header"><h4>GitHub App</h4></div>` +
    `<div class="card-body"><div><h4>$49 per month</h4><span>VAT not included</span></div><p>Unlimited builds</p></div></div>` +
    `<div class="card shadow-sm"><div class="card-header"><h4>Open Source</h4></div><div class="card-body">${free}</div></div></div>`;

  it("reads the priced card as a plan and the card that says its offer is free at 0", () => {
    const plans = read(deck(`<p>The project is <b>entirely open-source and free to use</b> in your CI.</p>`)).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.period])).toEqual([
      ["GitHub App", 49, "month"],
      ["Open Source", 0, null],
    ]);
  });

  it("reads no offer from a card of the deck that says nothing of its price", () => {
    const plans = read(deck(`<p>The project's source lives on GitHub.</p>`)).pricing;
    expect(plans.map((plan) => plan.name)).not.toContain("Open Source");
  });

  it("takes no link in a paragraph beside a priced paragraph for a free card", () => {
    const plans = read(
      `<p>Connect <a href="/services">compute services</a> to it: <a href="/pro">$10/seat/month</a> for private ` +
        `repositories.</p><p>Builds skip the <a href="/faq">free usage limits</a>: it is free to use for public repositories.</p>`,
    ).pricing;
    expect(plans.map((plan) => plan.name)).not.toContain("free usage limits");
  });
});

describe("a price on one labelled line of a card's feature list", () => {
  it("reads it as that line's feature, not as the price of a card named by the first line", () => {
    const line = (label: string, value: string) =>
      `<div class="flex justify-between"><span class="label">${label}</span>${value}</div>`;
    const plans = read(
      `<div class="cards"><div class="card"><div class="head"><h3>Ours</h3><p>$0</p></div><div class="body">` +
        `${line("Online Booking", "<span>✓</span>")}${line("Reminders", "<span>Included</span>")}</div></div>` +
        `<div class="card"><div class="head"><h3>Competitors</h3><p>$9.99 - $130</p></div><div class="body">` +
        `${line("Online Booking", "<span>✗</span>")}${line("Email & SMS Reminders", "<span>$20/mo Extra</span>")}</div></div></div>`,
    ).pricing;
    expect(plans.map((plan) => plan.name)).not.toContain("Online Booking");
    expect(plans.find((plan) => plan.amount === 20)?.name).toMatch(/^Email & SMS Reminders/);
    expect(plans.find((plan) => plan.name === "Competitors")?.amount).toBe(9.99);
  });
});

describe("a name-classed wrapper of a heading", () => {
  it("names each card by its title's heading, not by the feature group heading nearest the price", () => {
    const card = (name: string, price: string) =>
      `<div class="col"><div class="plan"><div class="plan-title"><h2>${name}</h2></div><div class="plan-body">` +
      `<h4>Licensing</h4><ul><li>Commercial use</li></ul><h4>Storages</h4><ul><li>SQL Server</li><li>Redis</li></ul>` +
      `<div class="plan-price"><h3>${price}</h3><h4>per organization / year</h4></div><a class="btn">Buy Now</a></div></div></div>`;
    const plans = read(
      `<h1>Plans &amp; Pricing</h1><div class="row">${card("Open", "free")}${card("Startup", "$500")}${card("Business", "$1500")}</div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Open", 0],
      ["Startup", 500],
      ["Business", 1500],
    ]);
  });

  it("does not take a title line that is the price itself ('<li class=\"title\"><h3>FREE</h3></li>') for the name", () => {
    const card = (name: string, price: string) =>
      `<div class="col"><ul class="pricing"><li class="title"><big>${name}</big></li><li>Core API</li><li>Trackers</li>` +
      `<li class="title"><h3>${price}</h3></li><li class="title"><a href="/deploy">Deploy</a></li></ul></div>`;
    const plans = read(`<div class="row">${card("Open-source", "FREE")}${card("Managed", "$49")}</div>`).pricing;
    expect(plans.map((plan) => plan.name)).toEqual(["Open-source", "Managed"]);
  });
});

describe("a card priced 'Free' over its own priced upgrades", () => {
  it("reads the card as a free plan beside the deck's other cards, its upgrades as add-ons", () => {
    const upgrade = (name: string, price: string) =>
      `<a href="/buy" class="btn flex justify-between"><span>${name}</span><span class="font-bold">${price}</span></a>`;
    const plans = read(
      `<section class="grid"><div class="white-box"><h3>Individual</h3><p>Encrypt your files.</p><p class="font-bold">Free</p>` +
        `<a href="/download">Download</a><div class="upgrades">${upgrade("Dark Mode on Desktop", "from €29.99")}` +
        `${upgrade("Full access on Android", "€29.99")}</div></div>` +
        `<div class="white-box"><h3>Standard</h3><p>For teams.</p><p class="font-bold"><span x-text="price"></span></p></div>` +
        `<div class="white-box"><h3>Enterprise</h3><p>For large teams.</p><p class="font-bold">Custom</p><a href="/sales">Contact Us</a></div></section>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.kind ?? "plan"])).toEqual([
      ["Individual", 0, "plan"],
      ["Dark Mode on Desktop (Individual)", 29.99, "addon"],
      ["Full access on Android (Individual)", 29.99, "addon"],
      ["Enterprise", null, "plan"],
    ]);
  });
});

describe("a lone card priced 'Free' in bold", () => {
  const page = (community: string) =>
    `<div class="plans"><div class="plan"><h3>Team</h3><p class="price">$10/month</p></div>` +
    `<div class="plan"><h3>Business</h3><p class="price">$30/month</p></div></div>` +
    `<section class="community"><div class="box"><h3>Community</h3><p>Free and open source for small teams.</p>${community}</div></section>`;

  it("reads it as its card's offer at no price", () => {
    const plans = read(page(`<p class="font-bold">Free</p><a href="/deploy">Deploy now</a>`)).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Team", 10],
      ["Business", 30],
      ["Community", 0],
    ]);
  });

  it("reads no offer from a bold 'Free' that is a link's word, nor from 'Free' set plainly", () => {
    for (const community of [`<a class="font-bold" href="/try">Free</a>`, `<p>Free</p>`])
      expect(read(page(community)).pricing.map((plan) => plan.name)).toEqual(["Team", "Business"]);
  });
});

describe("a column of button links, each priced", () => {
  it("reads every button, however many words its title has, since no running text stands around them", () => {
    const button = (name: string, price: string) =>
      `<a href="/buy" class="btn flex justify-between"><span>${name}</span><span class="font-bold">${price}</span></a>`;
    const plans = read(
      `<div class="upgrades">${button("Dark Mode on Desktop", "from €29.99")}${button("Full access on Android", "€29.99")}` +
        `${button("Full access on iOS", "€29.99")}${button("Full access on the web", "€29.99")}</div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Dark Mode on Desktop", 29.99],
      ["Full access on Android", 29.99],
      ["Full access on iOS", 29.99],
      ["Full access on the web", 29.99],
    ]);
  });
});

describe("tables of volume prices side by side, each under its caption", () => {
  it("reads each table's rows apart, never a row's name in both tables as one row with two prices", () => {
    const table = (caption: string, prices: string[]) =>
      `<table class="matrix"><caption>${caption}</caption><thead><th>Seats</th><th>Seat/Month</th></thead><tbody>` +
      ["1-25", "26-50", "51-75"].map((seats, k) => `<tr><td>${seats}</td><td>${prices[k]}</td></tr>`).join("") +
      `</tbody></table>`;
    const plans = read(
      `<h2>Do you provide a volume discount?</h2><div class="grid"><div class="half">` +
        `${table("Pro Volume Pricing", ["$40.00", "$38.50", "$37.00"])}</div><div class="half">` +
        `${table("Enterprise Volume Pricing", ["$60.00", "$57.75", "$55.50"])}</div></div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.amount, plan.prices?.length ?? 1])).toEqual([
      [40, 1],
      [38.5, 1],
      [37, 1],
      [60, 1],
      [57.75, 1],
      [55.5, 1],
    ]);
    expect(plans[3]!.name).toBe("Enterprise Volume Pricing – 1-25");
  });
});

describe("counts in a price's place", () => {
  it("reads no price from a number followed by what it counts ('<span>3,600</span> instance hours/month')", () => {
    const plans = read(
      `<div class="prices"><div class="price-block"><h2>FREE</h2><div class="price-cost"><span class="pro-cost-value">` +
        `<span>3,600</span> instance hours/month</span></div></div><div class="price-block"><h2>EXTRA</h2>` +
        `<div class="point-costs"><span class="pro-cost-value"><span>$0.01<i>/</i></span>instance hour</span></div></div></div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["FREE", 0],
      ["EXTRA", 0.01],
    ]);
  });

  it("still reads a bare number in a price's place followed by its period ('<span class=\"amount\">49</span> / mo')", () => {
    const card = (name: string, amount: number) =>
      `<div class="plan"><h3>${name}</h3><p class="price"><span class="amount">${amount}</span> per month</p></div>`;
    expect(read(`<div class="plans">${card("Basic", 9)}${card("Pro", 49)}</div>`).pricing.map((p) => p.amount)).toEqual(
      [9, 49],
    );
  });
});

describe("two named blocks side by side, the price under the second", () => {
  it("gives the price to the second block's name, never to the first's", () => {
    const header = (kind: string, name: string, line: string, note: string) =>
      `<header class="${kind}"><h4>${name}</h4><div><p>${line}</p><p>${note}</p></div></header>`;
    const plans = read(
      `<section class="pricing"><div class="price-table">` +
        header(
          "personal",
          "Personal Workspace",
          "<b>3,600 Free</b> Instance Hours/Month",
          "(runs 5 instances a month)",
        ) +
        header(
          "team",
          "Team Workspace",
          '<b class="pricing-em">$0.01</b> / Instance Hour',
          "(It is just that simple)",
        ) +
        `<div class="footnote">*Additional usage beyond the free allocation will cost $0.01/ Instance Hour</div>` +
        `<div class="footnote">*Up to 10 members</div></div><div class="price-line-wrap"><div class="price-line">` +
        `<div class="def">An instance hour is counted when the agent runs.</div><a class="btn" href="/register">Get ` +
        `Started Free <span>No Credit Card Required Upfront</span></a></div></div><div class="enterprise-package"><h4>` +
        `Want More? <a href="mailto:x@example.com">Contact Us</a></h4><ul><li>Deploy on your server</li>` +
        `<li>Collaborate</li></ul></div></section>`,
    ).pricing;
    expect(plans.find((plan) => plan.amount === 0.01)?.name).toBe("Team Workspace");
    expect(plans.map((plan) => plan.name)).not.toContain("Personal Workspace");
  });
});

describe("a heading that opens by naming a free plan", () => {
  const page = (box: string) =>
    `<h1>Pricing</h1>${box}<table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>$25/mo</td></tr>` +
    `<tr><td>Super</td><td>$100/mo</td></tr></table>`;

  it("reads 'Free Plan: Unlimited public workstreams' beside its Sign Up button as a free plan", () => {
    const plans = read(
      page(
        `<table><tr><td><h3><strong>Free Plan:</strong> Unlimited public workstreams and public users</h3></td>` +
          `<td><a href="/register?plan=volunteer">Sign Up</a></td></tr></table>`,
      ),
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount])).toEqual([
      ["Free Plan", 0],
      ["Basic", 25],
      ["Super", 100],
    ]);
  });

  it("reads no offer from such a heading without a button to take it", () => {
    const plans = read(
      page(`<h3>Free plan: what happens when you run out of storage</h3><p>We ask you to upgrade.</p>`),
    );
    expect(plans.pricing.map((plan) => plan.name)).toEqual(["Basic", "Super"]);
  });
});

describe("a price with a note of its own", () => {
  const card = (name: string, price: string) =>
    `<div class="unit"><h1>${name}</h1><div class="price">${price}</div><ul><li>Workspaces</li><li>Backups</li></ul></div>`;

  it("keeps a price whose next line discounts the first few seats ('Your first 3 seats are 50% off')", () => {
    const plans = read(
      `<div class="grid">${card("Pro", "$40/month per seat<br/>Your first 3 seats are 50% off<br/>")}` +
        `${card("Enterprise", "$60/month per seat<br/>(minimum of 10 seats)")}</div>`,
    ).pricing;
    expect(plans.map((plan) => [plan.name, plan.amount, plan.period])).toEqual([
      ["Pro", 40, "month"],
      ["Enterprise", 60, "month"],
    ]);
  });

  it("reads a footnote's linked marker after a price as no price and no part of its words", () => {
    const marker = `<a href="#seats"><sup>1</sup></a>`;
    const page = (pro: string, enterprise: string) =>
      `<div class="grid">${card("Pro", pro)}${card("Enterprise", enterprise)}</div>`;
    const plain = page("$40/month per seat<br/>", "$60/month per seat<br/>(minimum of 10 seats)");
    const marked = page(`$40/month per seat${marker}<br/>`, `$60/month per seat${marker}<br/>(minimum of 10 seats)`);
    expect(read(marked).pricing.map((plan) => plan.prices?.length ?? 1)).toEqual([1, 1]);
    expect(pricingEvents(events(plain, marked))).toEqual([]);
  });

  it("still voids a price a discount line stands beside when the discount is no first-few offer", () => {
    const plans = read(
      `<div class="grid">${card("Pro", "50% off<br/>$15/year instead of $30/year")}${card("Team", "$99/year")}</div>`,
    );
    expect(plans.pricing.find((plan) => plan.name === "Pro")?.amount).not.toBe(15);
  });
});

describe("narrative only from real narrative", () => {
  it("takes the hero from the headline's lead, never a payment note elsewhere on a pricing page", () => {
    const { narrative } = read(`<section><h1>Simple pricing</h1><p>Start free, upgrade as your team grows.</p></section>
      <div class="plans"><div><h3>Basic</h3><p>$9/month</p></div><div><h3>Pro</h3><p>$29/month</p></div></div>
      <section><h2>Billing questions</h2><p>Payment via Paddle: all major cards and PayPal are accepted, invoices on request.</p></section>`);
    expect(narrative.h1).toEqual(["Simple pricing"]);
    expect(narrative.hero).toBe("Start free, upgrade as your team grows.");
  });

  it("takes no hero from plan cards that are list items right under the headline", () => {
    const card = (badge: string, name: string, price: number) =>
      `<li class="plan">${badge}<span class="badge">${name}</span><div class="amount">$${price}<small>/user/month</small>` +
      `</div><a href="/signup">Try free</a></li>`;
    const { narrative } = read(
      `<h1>Pricing</h1><ul class="pricing">${card("", "Starter", 15)}${card('<span class="ribbon">Most popular</span>', "Pro", 25)}</ul>`,
    );
    expect(narrative.hero).toBeNull();
  });

  it("has no headline when the page's first h1 stands below its prices (an h1 per plan card)", () => {
    const { narrative } =
      read(`<div class="plans"><div><h1>Basic</h1><p>$9/month</p></div><div><h1>Pro</h1><p>$29/month</p></div></div>
      <h1>Billing questions</h1><p>Payment via Paddle: all major cards are accepted.</p>`);
    expect(narrative.h1).toEqual([]);
    expect(narrative.hero).toBeNull();
  });
});
