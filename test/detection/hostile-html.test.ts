import { describe, expect, it } from "vitest";
import { canonicalText } from "../../src/detection/diff/diff.js";
import { bodyOf, limitNesting, loadHtml } from "../../src/detection/parse/html.js";
import { extract } from "../../src/detection/read/index.js";
import { jobsFromList } from "../../src/detection/read/jobs.js";
import { extractPricing, MAX_PRICE_MARKS } from "../../src/detection/read/pricing/index.js";

const NO_LD = { nodes: [], byId: new Map() };

describe("hostile HTML", () => {
  // Each unclosed `<div` used to scan the rest of the body for its `>`: 40 KB took about a second, 1 MB would take
  // about ten minutes (the test's timeout fails it). Now each tag attempt stops at the next `<`.
  it("cuts nesting in one pass over a megabyte of unclosed tags", () => {
    const body = "<div".repeat(250_000);
    expect(limitNesting(body)).toBe(body);
    const page = `<html><body><p>Before</p>${body}</body></html>`;
    const extraction = extract(page, { url: "https://acme.com/", contentType: "text/html", fetchMethod: "http" });
    expect(extraction.text).toContain("Before");
    expect(extraction.pricing).toEqual([]);
  });

  it("still cuts a body where real nesting passes the limit", () => {
    const deep = `${"<div>".repeat(5000)}text${"</div>".repeat(5000)}`;
    const cut = limitNesting(deep, 100);
    expect(cut).toBe("<div>".repeat(100));
    expect(limitNesting('<p title="a<b">x</p>', 100)).toBe('<p title="a<b">x</p>');
  });
});

/**
 * Shapes that made one step of extraction quadratic (docs/product-rules.md#extraction). Each finishes in a second or
 * two; before its fix each ran past the test's timeout (the comment above each gives the time measured then).
 */
describe("hostile shapes, in linear time", () => {
  const page = (body: string) => `<html><head><title>t</title></head><body>${body}</body></html>`;
  const extractPage = (body: string, fetchMethod: "http" | "rss" = "http") =>
    extract(body, { url: "https://acme.com/", contentType: null, fetchMethod });

  // Any end tag lowered the count while parse5 ignores an end tag with nothing to close: 20,000 levels took 24 s.
  it("does not let stray end tags hide nesting from the limit", () => {
    const body = page("<div></span>".repeat(40_000));
    expect(limitNesting(body).length).toBeLessThan(10_000);
    expect(extractPage(body).text).toBe("");
  });

  it("skips comments and script text when counting nesting, as the parser does", () => {
    expect(limitNesting(`<!-- <div> --!>${"<div>".repeat(200)}`, 100)).toBe(`<!-- <div> --!>${"<div>".repeat(100)}`);
    expect(limitNesting(`<!-->${"<div>".repeat(200)}`, 100)).toBe(`<!-->${"<div>".repeat(100)}`);
    const comments = `${"<!-- c -->".repeat(100_000)}${"<!--".repeat(100_000)}`;
    expect(limitNesting(comments)).toBe(comments);
    // 3,000 `<div>` inside a script string are not elements: the page after the script is kept.
    const scripted = page(`<script>var t = "${"<div>".repeat(3000)}";</script><p>After the script</p>`);
    expect(extractPage(scripted).text).toBe("After the script");
  });

  // htmlparser2 keeps its open elements with Array#unshift: 50,000 nested items took 16 s.
  it("limits the nesting of feeds too", () => {
    const feed = `<rss><channel>${"<item><title>t</title>".repeat(100_000)}${"</item>".repeat(100_000)}</channel></rss>`;
    expect(extractPage(feed, "rss").items.map((item) => item.title)).toEqual(["t"]);
  });

  // cheerio's remove() splices each node out of its parent's children: 100k scripts took 38 s.
  it("removes 100k sibling scripts in one pass", () => {
    expect(extractPage(page(`<h1>Pricing</h1>${"<script>var a;</script>".repeat(100_000)}<p>after</p>`)).text).toBe(
      "Pricing\nafter",
    );
  });

  // Every card was checked against every other for nesting: 20,000 cards took 34 s. No pricing page states 20,000
  // prices: the first MAX_PRICE_MARKS are read, in page order.
  it("reads the first 5,000 of 20,000 plan cards", () => {
    const cards = Array.from(
      { length: 20_000 },
      (_, i) => `<div class="plan"><h3>Plan ${i}</h3><p class="price">$${i + 1}/mo</p></div>`,
    );
    const $ = loadHtml(page(`<div>${cards.join("")}</div>`));
    const plans = extractPricing(bodyOf($).get(0)!, NO_LD);
    expect(plans).toHaveLength(MAX_PRICE_MARKS);
    expect(plans.at(-1)).toMatchObject({ name: `Plan ${MAX_PRICE_MARKS - 1}`, amount: MAX_PRICE_MARKS });
  });

  // Each price asked its parent's 40,000 children how many looked like it: 20,000 pairs in one block took 3 minutes.
  it("reads 20,000 names and prices in one block", () => {
    const pairs = '<h3 class="plan-name">Pro</h3><span class="price">$9/mo</span>'.repeat(20_000);
    const $ = loadHtml(page(`<div class="plans">${pairs}</div>`));
    const plans = extractPricing(bodyOf($).get(0)!, NO_LD);
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.every((plan) => plan.amount === 9)).toBe(true);
  });

  // Each heading's price was checked against every changelog entry: 30,000 took 36 s.
  it("reads no price inside 30,000 changelog entries", () => {
    const $ = loadHtml(page("<article><h3>Pro</h3><p>$49 per month</p></article>".repeat(30_000)));
    expect(extractPricing(bodyOf($).get(0)!, NO_LD, $("article").toArray())).toEqual([]);
  });

  // Each list item under "Open positions" was looked up in the list of those found: 30,000 took 45 s.
  it("reads 30,000 list items under an 'Open positions' heading", () => {
    const $ = loadHtml(
      page(`<h2>Open positions</h2><ul>${'<li><a href="/jobs/x">Engineer</a></li>'.repeat(30_000)}</ul>`),
    );
    expect(jobsFromList(bodyOf($).get(0)!, "https://acme.com/")).toHaveLength(500);
  });

  // Each nested entry's summary masked the whole text below it: 300 levels around 300 KB took 41 s.
  it("summarises entries nested 300 deep around 300 KB of text", () => {
    const body = page(`${"<article><h2>Entry 2026-01-02</h2>".repeat(300)}<p>${"word ".repeat(60_000)}</p>`);
    expect(extractPage(body).text.length).toBeGreaterThan(300_000);
  });

  // A row's cells were joined at every level of nesting: 400 tables around 500 KB took 23 s.
  it("reads text inside tables nested 400 deep", () => {
    const body = page(`${"<table><tr><td>".repeat(400)}${"word ".repeat(200_000)}${"</td></tr></table>".repeat(400)}`);
    expect(extractPage(body).text.length).toBeGreaterThan(999_000);
  });

  // A placeholder pattern scanned from every `‹` to the end of the line: 100,000 of them took 78 s.
  it("canonicalises a line of 100,000 '‹' for the diff", () => {
    expect(canonicalText("‹".repeat(100_000))).toHaveLength(100_000);
  });
});
