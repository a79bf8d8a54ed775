import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { extract } from "../../src/detection/read/index.js";
import { EXTRACTOR_VERSION } from "../../src/detection/types.js";

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/sites/${name}`, import.meta.url), "utf8");
const html = (body: string, url = "https://www.heliolytics.io/") =>
  extract(body, { url, contentType: "text/html; charset=utf-8", fetchMethod: "http" });

const HTML_FIXTURES = [
  "pricing-v1.html",
  "pricing-v2.html",
  "pricing-jsonld.html",
  "careers-v1.html",
  "careers-v2.html",
  "careers-list.html",
  "changelog-v1.html",
  "changelog-v2.html",
  "timestamp-v1.html",
  "timestamp-v2.html",
  "homepage.html",
];

describe("volatile content", () => {
  it("gives identical extractions for two renderings that differ only in timestamps, counters, tokens and years", () => {
    const first = fixture("timestamp-v1.html");
    const second = fixture("timestamp-v2.html");
    expect(first).not.toBe(second);
    expect(html(second, "https://www.heliolytics.io/integrations")).toEqual(
      html(first, "https://www.heliolytics.io/integrations"),
    );
  });

  it("keeps the masked placeholders in the text where the volatile tokens were", () => {
    const { text } = html(fixture("timestamp-v1.html"));
    expect(text.split("\n")).toEqual([
      "Integrations",
      "Connect Heliolytics to the tools your team already uses. Send events in from your CDP and push insights out to your warehouse, CRM and chat.",
      "‹n› people viewing this page ‹n› users online ‹date› · ‹time›",
      "Popular integrations",
      "Catalog updated ‹time› · Updated ‹date›",
      "Segment",
      "Stream events from your Segment sources without code.",
      "Snowflake",
      "Sync raw events and computed cohorts every hour.",
      "BigQuery",
      "Query your product data next to the rest of your business.",
      "Slack",
      "Get alerts when a funnel step drops or a metric spikes.",
      "HubSpot",
      "Push product-qualified leads to HubSpot as contact properties.",
      "Missing an integration? Request one — most are built within 2 weeks.",
      "Build your own",
      "Use our REST API and webhooks to connect anything else. Your workspace token looks like ‹token›; keep it secret.",
      "Request ID ‹token› · Rendered ‹date› · Server time ‹time›",
      "Copyright © ‹year› Heliolytics, Inc. All rights reserved. Build ‹token› · Page views: ‹n› · Status",
    ]);
  });

  it("does not mask prices or plan names in the text", () => {
    const lines = html(fixture("pricing-v1.html")).text.split("\n");
    expect(lines).toContain("$49 /month");
    expect(lines).toContain("$0 /month");
    expect(lines).toContain("Monthly price | $0 | $49 | $99");
    expect(lines).toContain("Pro");
    expect(lines).toContain("Prices in US dollars. Taxes may apply. Last updated: ‹date› at ‹time›.");
  });

  it("yields the same text for pricing-v1 and v2 only where the page did not change", () => {
    const before = new Set(html(fixture("pricing-v1.html")).text.split("\n"));
    const after = html(fixture("pricing-v2.html")).text.split("\n");
    // The footnote's "Last updated" date and the CSRF tokens changed too, but they are masked.
    expect(after.filter((line) => !before.has(line))).toEqual([
      "Start a 14-day trial and upgrade as your product grows. Every plan includes unlimited dashboards and SSO-ready user management.",
      "$59 /month",
      "Enterprise",
      "For organisations with advanced security needs.",
      "Custom pricing",
      "Contact sales",
      "Unlimited events",
      "Everything in Business",
      "Dedicated infrastructure and EU data residency",
      "99.99% uptime SLA",
      "Named customer success manager",
      "Feature | Pro | Business | Enterprise",
      "Monthly price | $59 | $99 | Custom",
      "Events per month | 1M | 10M | Unlimited",
      "Data retention | 12 months | 24 months | Custom",
      "SAML SSO | — | ✓ | ✓",
    ]);
  });
});

describe("main text", () => {
  it("removes navigation, header nav, footer, cookie banner, forms, skip links and scripts", () => {
    const { text } = html(fixture("pricing-v1.html"));
    for (const boilerplate of [
      "Skip to content",
      "Log in",
      "Solutions",
      "All rights reserved",
      "We use cookies",
      "Accept all",
      "Get product updates",
      "Subscribe",
      "gtm.js",
      "kV8xQ2mZp7Lr4Tw9Yb3Nc6Hd1Fg5Js0Ue2Ai8Oo4Xq",
      "visually-hidden",
    ]) {
      expect(text).not.toContain(boilerplate);
    }
  });

  it("prefers <main> and writes one block per line", () => {
    const { text } = html(fixture("homepage.html"));
    const lines = text.split("\n");
    expect(lines.slice(0, 5)).toEqual([
      "Product analytics",
      "Understand every step of your customer journey",
      "Heliolytics shows product teams how people really use their product — funnels, retention, session replay and experiments in one place, set up in minutes.",
      "Start free Book a demo",
      "Trusted by 4,000+ product teams at companies like Northwind, Contoso and Fabrikam.",
    ]);
    // The announcement bar and the OneTrust banner sit outside <main> or are consent banners.
    expect(text).not.toContain("Cookies");
    expect(text).not.toContain("Careers");
  });

  it("removes consent banners, aria-hidden and [hidden] elements but keeps an app root that a modal hid", () => {
    const { text } = html(`<body>
      <div id="__next" aria-hidden="true"><main><h1>Product</h1><p>Real content.</p>
        <span aria-hidden="true">★</span><div hidden>Secret</div>
        <div class="gdpr-notice">We value your privacy</div>
        <div class="promo-banner">Use cookies? Accept tracking</div>
        <div class="hero-banner">Hero copy stays</div></main></div>
      <div class="cookie-modal" role="dialog">Accept cookies</div></body>`);
    expect(text).toBe("Product\nReal content.\nHero copy stays");
  });

  it("joins table cells with ' | ' and splits on <br>", () => {
    const { text } = html(
      "<main><table><tr><th>Plan</th><th>Price</th></tr><tr><td>Pro</td><td>$49</td></tr></table><p>one<br>two</p></main>",
    );
    expect(text).toBe("Plan | Price\nPro | $49\none\ntwo");
  });

  // Documentation themes mark every page og:type article; Readability then keeps the densest block of a pricing page.
  it("keeps a pricing page's plans in its text even when the page declares itself an article", () => {
    const intro = "Our pricing is simple and fair for teams of every size, with no hidden fees. ".repeat(6);
    const card = (name: string, price: string) =>
      `<div class="plan"><h3>${name}</h3><p class="price">${price}/month</p><ul><li>${name} support</li></ul></div>`;
    const page = `<html><head><meta property="og:type" content="article"></head><body><main>
      <h1>Pricing</h1><div class="intro"><p>${intro}</p><p>${intro}</p></div>
      <div class="plans">${card("Starter", "$9")}${card("Team", "$29")}${card("Scale", "$99")}</div></main></body></html>`;
    const { text, pricing } = html(page);
    expect(pricing.map((plan) => plan.name)).toEqual(["Starter", "Team", "Scale"]);
    expect(text).toContain("Team\n$29/month");
    expect(text).toContain("Scale support");
  });
});

describe("narrative", () => {
  it("reads title, meta description, h1, h2 and hero copy of the homepage", () => {
    expect(html(fixture("homepage.html")).narrative).toEqual({
      title: "Heliolytics — Product analytics for growing teams",
      meta_description:
        "Heliolytics shows product teams how people really use their product: funnels, retention, session replay and experiments in one place.",
      h1: ["Understand every step of your customer journey"],
      h2: [
        "Everything you need to build what users want",
        "Loved by product teams",
        "From the blog",
        "Start understanding your users today",
      ],
      hero: "Heliolytics shows product teams how people really use their product — funnels, retention, session replay and experiments in one place, set up in minutes.",
    });
  });

  it("falls back to og:description and masks dates in the title", () => {
    const { narrative } = html(`<html><head><title>Status — updated Nov 22, 2026</title>
      <meta property="og:description" content="All systems operational as of 10:42 UTC."></head>
      <body><svg><title>icon</title></svg><h1>Status</h1></body></html>`);
    expect(narrative.title).toBe("Status — updated ‹date›");
    expect(narrative.meta_description).toBe("All systems operational as of ‹time›.");
    expect(narrative.hero).toBeNull();
  });

  it("keeps only the first ten h2", () => {
    const body = Array.from({ length: 14 }, (_, i) => `<h2>Section ${i + 1}</h2>`).join("");
    expect(html(`<main>${body}</main>`).narrative.h2).toHaveLength(10);
  });
});

describe("bot challenges", () => {
  it("flags the Cloudflare 'Just a moment...' interstitial", () => {
    const extraction = html(fixture("bot-challenge.html"));
    expect(extraction.signals.bot_challenge).toBe(true);
    expect(extraction.pricing).toEqual([]);
  });

  it("flags 'Attention Required! | Cloudflare', a bare CAPTCHA page and a short 'Access denied' page", () => {
    expect(
      html(
        "<html><head><title>Attention Required! | Cloudflare</title></head><body><h1>Sorry, you have been blocked</h1></body></html>",
      ).signals.bot_challenge,
    ).toBe(true);
    expect(
      html(`<html><head><title>Security check</title></head><body><p>Please confirm you are not a robot.</p>
        <form><div class="g-recaptcha" data-sitekey="6Lc_aCMTAAAAABx7u2W0WPXnVbI_v6ZdbM6rYf16"></div></form></body></html>`)
        .signals.bot_challenge,
    ).toBe(true);
    expect(
      html(
        `<html><head><title>Verify</title></head><body><div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div></body></html>`,
      ).signals.bot_challenge,
    ).toBe(true);
    expect(
      html(`<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1>
        <p>You don't have permission to access "http://www.heliolytics.io/pricing" on this server.</p>
        <p>Reference #18.4f2c1002.1732273927.1a2b3c4d</p></body></html>`).signals.bot_challenge,
    ).toBe(true);
  });

  it("does not flag real pages, including a long contact page with a reCAPTCHA on its form", () => {
    for (const name of HTML_FIXTURES) expect(html(fixture(name)).signals.bot_challenge).toBe(false);
    const paragraphs = Array.from(
      { length: 12 },
      () => "<p>Our sales team answers within one business day and can help you pick the right plan for your team.</p>",
    ).join("");
    expect(
      html(`<main><h1>Contact sales</h1>${paragraphs}<form><div class="g-recaptcha"></div></form></main>`).signals
        .bot_challenge,
    ).toBe(false);
  });
});

describe("robustness", () => {
  const options = { url: "https://www.heliolytics.io/", contentType: "text/html", fetchMethod: "http" } as const;
  const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)).toString("latin1");

  it.each([
    ["an empty body", ""],
    ["whitespace", "   \n  "],
    ["binary junk", binary],
    ["NUL bytes", "\u0000\u0001\u0002\uffff"],
    ["broken HTML", "<html><body><div><p>unclosed <b>bold <table><tr><td>cell</div></span></body>"],
    ["invalid JSON-LD", '<script type="application/ld+json">{"@type": "Product", "offers": [</script><p>Hi</p>'],
    [
      "JSON-LD with odd values",
      '<script type="application/ld+json">[null, 1, "x", {"@type": ["JobPosting"], "title": {"a": 1}}, {"@type":"Product","offers":[null,{"@type":"Offer","price":{}}]}]</script>',
    ],
    ["a truncated feed", "<?xml version='1.0'?><rss><channel><item><title>"],
    ["JSON", '{"plans": [{"name": "Pro", "price": 49}]}'],
    ["very deep nesting", `${"<div>".repeat(50_000)}deep${"</div>".repeat(50_000)}`],
  ])("returns an Extraction for %s without throwing", (_label, body) => {
    const extraction = extract(body, options);
    expect(extraction.version).toBe(EXTRACTOR_VERSION);
    expect(typeof extraction.text).toBe("string");
    // eslint-disable-next-line no-control-regex -- binary junk must not reach the stored text
    expect(extraction.text).not.toMatch(/[\u0000-\u0008]/);
    expect(Array.isArray(extraction.pricing) && Array.isArray(extraction.jobs) && Array.isArray(extraction.items)).toBe(
      true,
    );
    expect(extraction.signals.bot_challenge).toBe(false);
  });

  it("returns the empty Extraction for an empty body", () => {
    expect(extract("", options)).toEqual({
      version: EXTRACTOR_VERSION,
      text: "",
      pricing: [],
      jobs: [],
      items: [],
      narrative: { title: null, meta_description: null, h1: [], h2: [], hero: null },
      signals: { bot_challenge: false },
    });
  });

  it("survives a missing or invalid page URL and still resolves absolute links", () => {
    const body = `<main><article><h2><a href="https://x.example/a">A</a></h2><time datetime="2026-01-02"></time></article>
      <article><h2><a href="/b">B</a></h2><time datetime="2026-01-03"></time></article></main>`;
    const { items } = extract(body, { url: "not a url", contentType: null, fetchMethod: "http" });
    expect(items.map((item) => item.url)).toEqual(["https://x.example/a", null]);
  });

  it("reads an XHTML page that starts with an XML declaration as HTML", () => {
    const extraction = extract(
      "<?xml version='1.0' encoding='utf-8'?><html xmlns='http://www.w3.org/1999/xhtml'><head><title>XHTML</title></head><body><h1>Hi</h1></body></html>",
      { ...options, contentType: "application/xhtml+xml" },
    );
    expect(extraction.narrative.title).toBe("XHTML");
    expect(extraction.text).toBe("Hi");
  });
});
