import { describe, expect, it } from "vitest";
import { extract } from "../../src/detection/read/index.js";
import type { PricingPlan } from "../../src/detection/types.js";
import { readPage, scoreStructuredData, STRUCTURED_DATA_PAGES } from "./structured-data-corpus.js";

const html = (body: string) =>
  extract(body, { url: "https://acme.example/pricing", contentType: "text/html", fetchMethod: "http" });
const plans = (body: string) =>
  html(body)
    .pricing.filter((plan) => plan.origin === "jsonld")
    .map(({ name, amount, currency, period, is_free }: PricingPlan) => ({ name, amount, currency, period, is_free }));
const ld = (...documents: unknown[]) =>
  documents.map((doc) => `<script type="application/ld+json">${JSON.stringify(doc)}</script>`).join("\n");

/**
 * Saved real pages (test/fixtures/real-pages/structured-data/README.md): what each page's own JSON-LD, microdata and
 * product meta tags state, written out by reading the markup (expected.json), against what extract() gives.
 */
describe("structured data on saved real pages", () => {
  for (const page of STRUCTURED_DATA_PAGES) {
    it(`${page.file.replace(/^pages\//, "")}: ${page.note}`, () => {
      const found = readPage(page);
      expect(found.plans).toEqual(page.plans);
      if (page.meta) expect(found.meta).toEqual(page.meta);
      if (page.jobs) expect(found.jobs).toEqual(page.jobs);
    });
  }

  it("scores every class without a wrong or missed record", () => {
    const scores = scoreStructuredData();
    expect(scores.map((score) => score.class).sort()).toEqual(
      ["jobs", "jsonld", "microdata", "mixed", "none", "opengraph"].sort(),
    );
    for (const score of scores)
      expect({ class: score.class, failures: score.failures }).toEqual({
        class: score.class,
        failures: [],
      });
  });
});

/**
 * Shapes SaaS and shop sites publish that no saved page of the corpus has (found in public site sources while
 * building it): written here as the smallest markup that has them.
 */
describe("structured data shapes without a saved page", () => {
  it("reads capitalised keys and types in any case", () => {
    const page = ld({
      "@context": "https://schema.org",
      "@Type": "softwareapplication",
      Name: "Acme",
      Offers: [
        { "@Type": "Offer", Name: "Starter", Price: "29", PriceCurrency: "usd" },
        { "@type": "offer", name: "Team", PRICE: 99, priceCurrency: "EUR" },
      ],
    });
    expect(plans(page)).toEqual([
      { name: "Starter", amount: 29, currency: "USD", period: null, is_free: false },
      { name: "Team", amount: 99, currency: "EUR", period: null, is_free: false },
    ]);
  });

  it("reads billingDuration P1M and P1Y, a period from the unit before the billing term, and per-seat units", () => {
    const page = ld({
      "@context": "https://schema.org",
      "@graph": [
        {
          "@type": "SoftwareApplication",
          name: "Acme",
          offers: [
            {
              "@type": "Offer",
              name: "Pro",
              priceSpecification: [
                { "@type": "UnitPriceSpecification", price: 49, priceCurrency: "USD", billingDuration: "P1M" },
                { "@type": "UnitPriceSpecification", price: 490, priceCurrency: "USD", billingDuration: "P1Y" },
              ],
            },
            {
              "@type": "Offer",
              name: "Growth",
              priceCurrency: "USD",
              priceSpecification: [
                // $279 a month billed monthly, $233 a month billed for a year: the price billed per period.
                { "@type": "UnitPriceSpecification", price: 279, unitCode: "MON", billingDuration: "P1M" },
                { "@type": "UnitPriceSpecification", price: 233, unitCode: "MON", billingDuration: "P1Y" },
              ],
            },
            {
              "@type": "Offer",
              name: "Solo",
              price: "980",
              priceCurrency: "EUR",
              priceSpecification: { "@type": "UnitPriceSpecification", billingDuration: "P1Y" },
            },
            {
              "@type": "Offer",
              name: "Seat",
              priceSpecification: {
                "@type": "UnitPriceSpecification",
                price: "12",
                priceCurrency: "USD",
                referenceQuantity: { "@type": "QuantitativeValue", value: 1, unitText: "user" },
                billingDuration: "P1M",
              },
            },
            {
              "@type": "Offer",
              name: "Starter Plan",
              price: "20",
              priceCurrency: "USD",
              priceSpecification: {
                "@type": "UnitPriceSpecification",
                price: "20",
                priceCurrency: "USD",
                unitText: "per user per month",
                billingDuration: "P1Y",
              },
            },
            { "@type": "Offer", name: "Quarterly", price: 597, priceCurrency: "CZK", billingDuration: "P3M" },
          ],
        },
      ],
    });
    expect(plans(page)).toEqual([
      { name: "Pro", amount: 49, currency: "USD", period: "month", is_free: false },
      { name: "Growth", amount: 279, currency: "USD", period: "month", is_free: false },
      { name: "Solo", amount: 980, currency: "EUR", period: "year", is_free: false },
      { name: "Seat", amount: 12, currency: "USD", period: "month", is_free: false },
      { name: "Starter Plan", amount: 20, currency: "USD", period: "month", is_free: false },
      // Three months is no period a plan is tracked by.
      { name: "Quarterly", amount: 597, currency: "CZK", period: null, is_free: false },
    ]);
  });

  it("takes the price paid, not a StrikethroughPrice, ListPrice or SRP spec", () => {
    const page = ld(
      {
        "@type": "Product",
        name: "Kitadol",
        offers: {
          "@type": "Offer",
          price: 1004,
          priceCurrency: "CLP",
          priceSpecification: [
            { "@type": "UnitPriceSpecification", priceType: "https://schema.org/StrikethroughPrice", price: 1499 },
          ],
        },
      },
      {
        "@type": "Product",
        name: "LactoBif 30 Probiotics",
        offers: {
          "@type": "Offer",
          price: null,
          priceSpecification: [
            { priceType: "https://schema.org/StrikethroughPrice", price: "22.35", priceCurrency: "USD" },
            { price: "15.64", priceCurrency: "USD" },
          ],
        },
      },
      {
        "@type": "Product",
        name: "Sale spec",
        offers: {
          "@type": "Offer",
          priceSpecification: [
            {
              "@type": "UnitPriceSpecification",
              priceType: "https://schema.org/ListPrice",
              price: 80,
              priceCurrency: "EUR",
            },
            {
              "@type": "UnitPriceSpecification",
              priceType: "https://schema.org/SalePrice",
              price: 60,
              priceCurrency: "EUR",
            },
          ],
        },
      },
      {
        "@type": "Product",
        name: "Only a list price",
        offers: {
          "@type": "Offer",
          priceSpecification: { "@type": "UnitPriceSpecification", priceType: "SRP", price: 99, priceCurrency: "EUR" },
        },
      },
    );
    expect(plans(page)).toEqual([
      { name: "Kitadol", amount: 1004, currency: "CLP", period: null, is_free: false },
      { name: "LactoBif 30 Probiotics", amount: 15.64, currency: "USD", period: null, is_free: false },
      { name: "Sale spec", amount: 60, currency: "EUR", period: null, is_free: false },
      { name: "Only a list price", amount: null, currency: null, period: null, is_free: false },
    ]);
  });

  it("keeps a JSON number exact and reads only the first of two offers for one name when their periods differ", () => {
    const page = ld({
      "@type": "WebAPI",
      name: "Acme API",
      offers: [
        { "@type": "Offer", name: "Requests", price: 0.0004, priceCurrency: "USD" },
        { "@type": "Offer", name: "Pro", price: 49, priceCurrency: "USD", billingDuration: "P1M" },
        { "@type": "Offer", name: "Pro", price: 490, priceCurrency: "USD", billingDuration: "P1Y" },
        { "@type": "Offer", name: "Scale", price: 99, priceCurrency: "USD" },
        { "@type": "Offer", name: "Scale", price: 129, priceCurrency: "USD" },
        { "@type": "Offer", name: "Free", price: "0", priceCurrency: "USD" },
      ],
    });
    expect(plans(page)).toEqual([
      { name: "Requests", amount: 0.0004, currency: "USD", period: null, is_free: false },
      { name: "Pro", amount: 49, currency: "USD", period: "month", is_free: false },
      // Two prices for one plan and one period: which one is not said.
      { name: "Scale", amount: null, currency: null, period: null, is_free: false },
      { name: "Free", amount: 0, currency: "USD", period: null, is_free: true },
    ]);
  });

  it("reads the product price meta tags only when no JSON-LD or microdata offer exists", () => {
    const meta = `
      <meta property="og:title" content="OG Linen Tee">
      <meta property="product:price:amount" content="33.00">
      <meta property="product:price:currency" content="CAD">`;
    expect(plans(`<html><head><title>Tee – Shop</title>${meta}</head><body><h1>Tee</h1></body></html>`)).toEqual([
      { name: "OG Linen Tee", amount: 33, currency: "CAD", period: null, is_free: false },
    ]);
    const sale = `<meta name="og:price:amount" content="20"><meta name="og:price:currency" content="EUR">
      <meta property="product:sale_price:amount" content="15"><title>Mug</title>`;
    expect(plans(`<html><head>${sale}</head><body></body></html>`)).toEqual([
      { name: "Mug", amount: 15, currency: "EUR", period: null, is_free: false },
    ]);
    const withJsonLd = `<html><head>${meta}${ld({ "@type": "Product", name: "Linen Tee", offers: { price: 30, priceCurrency: "CAD" } })}</head></html>`;
    expect(plans(withJsonLd)).toEqual([
      { name: "Linen Tee", amount: 30, currency: "CAD", period: null, is_free: false },
    ]);
  });

  it("reads microdata meta and link properties in the body that the boilerplate pass removes", () => {
    const page = `<html><body><footer><div itemscope itemtype="https://schema.org/Product">
      <meta itemprop="name" content="Footer plan"><div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
      <meta itemprop="price" content="9"><meta itemprop="priceCurrency" content="GBP">
      <link itemprop="availability" href="https://schema.org/InStock"></div></div></footer></body></html>`;
    expect(plans(page)).toEqual([{ name: "Footer plan", amount: 9, currency: "GBP", period: null, is_free: false }]);
  });
});

/** Microdata and JSON-LD shapes that would make the readers slow: each finishes in about a second. */
describe("hostile structured data, in linear time", () => {
  it("reads itemprop elements nested 500 deep around 2 MB of text", () => {
    const open = '<div itemprop="name">'.repeat(500);
    const page = `<html><body><div itemscope itemtype="https://schema.org/Product">${open}${"word ".repeat(400_000)}${"</div>".repeat(500)}</div></body></html>`;
    const started = Date.now();
    expect(html(page).pricing).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("follows 20,000 itemrefs to one large element within a budget", () => {
    const items = '<div itemscope itemtype="https://schema.org/Product" itemref="big"></div>'.repeat(20_000);
    const big = `<div id="big">${'<span itemprop="name">n</span>'.repeat(20_000)}</div>`;
    const started = Date.now();
    // Products that borrow a name and no offer state no plan.
    expect(html(`<html><body>${items}${big}</body></html>`).pricing).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("reads 50,000 offers with one name", () => {
    const offers = Array.from({ length: 50_000 }, (_, i) => ({ "@type": "Offer", price: i, priceCurrency: "USD" }));
    const started = Date.now();
    expect(plans(ld({ "@type": "Product", name: "Many", offers }))).toEqual([
      { name: "Many", amount: null, currency: null, period: null, is_free: false },
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
