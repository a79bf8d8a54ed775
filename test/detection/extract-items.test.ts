import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { extract } from "../../src/detection/read/index.js";

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/sites/${name}`, import.meta.url), "utf8");
const html = (body: string, url = "https://www.heliolytics.io/changelog") =>
  extract(body, { url, contentType: "text/html", fetchMethod: "http" });
const rss = (body: string, url: string, contentType: string | null = "application/rss+xml; charset=utf-8") =>
  extract(body, { url, contentType, fetchMethod: "rss" });

const CHANGELOG_V1 = [
  {
    key: "https://www.heliolytics.io/changelog/session-replay-public-beta",
    title: "Session replay is in public beta",
    date: "2026-11-18",
    url: "https://www.heliolytics.io/changelog/session-replay-public-beta",
    summary:
      "Watch real user sessions next to your funnels. Replays are sampled at 10% by default and respect your existing privacy masking rules. Jump from any funnel step to the matching replays · Console errors and network failures on the timeline",
  },
  {
    key: "https://www.heliolytics.io/changelog/warehouse-sync-bigquery",
    title: "Warehouse sync for BigQuery",
    date: "2026-11-04",
    url: "https://www.heliolytics.io/changelog/warehouse-sync-bigquery",
    summary:
      "Business customers can now sync events to BigQuery every hour. Extra sync frequency is available as an add-on for $8/month per destination, billed with your subscription at the end of each month.",
  },
  {
    key: "https://www.heliolytics.io/changelog/faster-dashboards",
    title: "Dashboards load up to 3× faster",
    date: "2026-10-21",
    url: "https://www.heliolytics.io/changelog/faster-dashboards",
    summary:
      "We rewrote the query planner behind dashboards. Large dashboards with more than 20 charts now load in under two seconds. Charts render progressively · Cached results are shared across your team",
  },
  {
    key: "https://www.heliolytics.io/changelog/retention-fixes",
    title: "Retention chart fixes",
    date: "2026-10-07",
    url: "https://www.heliolytics.io/changelog/retention-fixes",
    summary:
      "Fixed cohorts that started on the last day of a month being shifted by one day in weekly retention charts.",
  },
];

const FEED_V1 = [
  {
    key: "heliolytics-blog-how-we-cut-dashboard-load-times",
    title: "How we cut dashboard load times by 70%",
    date: "2026-11-17T15:00:00.000Z",
    url: "https://www.heliolytics.io/blog/how-we-cut-dashboard-load-times?utm_source=rss",
    summary:
      "Our dashboards used to fan out one query per chart. Here is how we batched them into a single query plan and what we learned about caching along the way. The short version: share work across charts, cache aggressively, and measure everything.",
  },
  {
    key: "heliolytics-blog-product-analytics-for-b2b-field-guide",
    title: "Product analytics for B2B: a field guide",
    date: "2026-11-05T09:30:00.000Z",
    url: "https://www.heliolytics.io/blog/product-analytics-for-b2b-field-guide?utm_source=rss",
    summary:
      "Account-level metrics, seat activation and expansion signals: the metrics that matter when your customers are companies, not consumers.",
  },
  {
    key: "heliolytics-blog-series-b",
    title: "Heliolytics raises $40M Series B",
    date: "2026-10-21T13:00:00.000Z",
    url: "https://www.heliolytics.io/blog/series-b?utm_source=rss",
    summary:
      "We raised a $40M Series B led by Northstar Ventures to build the analytics platform for product teams. Read the letter from our founders.",
  },
];

describe("content items on HTML pages", () => {
  it("reads the changelog entries of changelog-v1 with dates from <time datetime>, links and summaries", () => {
    expect(html(fixture("changelog-v1.html")).items).toEqual(CHANGELOG_V1);
  });

  it("sees exactly one new release on top in changelog-v2, the others unchanged", () => {
    const { items } = html(fixture("changelog-v2.html"));
    expect(items[0]).toEqual({
      key: "https://www.heliolytics.io/changelog/audit-log-export",
      title: "Audit log export",
      date: "2026-12-02",
      url: "https://www.heliolytics.io/changelog/audit-log-export",
      summary:
        "Admins on Business and Enterprise can export the full audit log as CSV or stream it to Splunk and Datadog. Filter by user, action and date range · Exports include IP address and user agent",
    });
    expect(items.slice(1)).toEqual(CHANGELOG_V1);
  });

  it("reads the blog cards of the homepage with absolute URLs", () => {
    expect(html(fixture("homepage.html"), "https://www.heliolytics.io/").items).toEqual([
      {
        key: "https://www.heliolytics.io/blog/introducing-session-replay",
        title: "Introducing session replay",
        date: "2026-11-30",
        url: "https://www.heliolytics.io/blog/introducing-session-replay",
        summary: "Session replay is now available in public beta for every Pro and Business workspace.",
      },
      {
        key: "https://www.heliolytics.io/blog/how-we-cut-dashboard-load-times",
        title: "How we cut dashboard load times by 70%",
        date: "2026-11-17",
        url: "https://www.heliolytics.io/blog/how-we-cut-dashboard-load-times",
        summary: "Our dashboards used to fan out one query per chart. Here is how we batched them.",
      },
      {
        key: "https://www.heliolytics.io/press/series-b",
        title: "Heliolytics raises $40M Series B",
        date: "2026-10-21",
        url: "https://www.heliolytics.io/press/series-b",
        summary: "We raised a $40M Series B led by Northstar Ventures.",
      },
    ]);
  });

  it("reads a changelog written as headings followed by a date line", () => {
    const { items } = html(`
      <main><h1>Release notes</h1>
        <h2>v2.4.0</h2><p class="muted">Released 18 November 2026</p><p>Audit log export.</p><ul><li>CSV</li><li>Splunk</li></ul>
        <h2>v2.3.1</h2><p>Nov 3, 2026</p><p>Bug fixes for the retention chart.</p>
      </main>`);
    expect(items).toEqual([
      { key: "v2.4.0", title: "v2.4.0", date: "2026-11-18", url: null, summary: "Audit log export. CSV · Splunk" },
      { key: "v2.3.1", title: "v2.3.1", date: "2026-11-03", url: null, summary: "Bug fixes for the retention chart." },
    ]);
  });

  it("reads list items with a link and a written date (press page)", () => {
    const { items } = html(
      `<main><h1>Press</h1><ul class="press-list">
        <li><a href="/press/series-b">Heliolytics raises $40M Series B</a> <span>21/10/2026</span></li>
        <li><a href="https://news.example.com/heliolytics-profile">Profile in News Example</a> <span>2026-09-02</span></li>
      </ul></main>`,
      "https://www.heliolytics.io/press",
    );
    expect(items.map(({ title, date, url }) => ({ title, date, url }))).toEqual([
      {
        title: "Heliolytics raises $40M Series B",
        date: "2026-10-21",
        url: "https://www.heliolytics.io/press/series-b",
      },
      {
        title: "Profile in News Example",
        date: "2026-09-02",
        url: "https://news.example.com/heliolytics-profile",
      },
    ]);
  });

  it("does not turn a single article page, a features grid or a careers page into items", () => {
    expect(
      html(
        `<main><article><h1>Why we built session replay</h1><time datetime="2026-11-30">Nov 30</time><p>Long story.</p></article></main>`,
      ).items,
    ).toEqual([]);
    expect(html(fixture("pricing-v1.html")).items).toEqual([]);
    expect(html(fixture("careers-v2.html")).items).toEqual([]);
  });
});

describe("content items from feeds", () => {
  it("reads every RSS 2.0 item of feed-v1 with guid keys, ISO dates and tag-free summaries", () => {
    const extraction = rss(fixture("feed-v1.xml"), "https://www.heliolytics.io/blog/feed.xml");
    expect(extraction.items).toEqual(FEED_V1);
    expect(extraction.narrative).toEqual({
      title: "Heliolytics Blog",
      meta_description: "Product analytics, engineering and company news from the Heliolytics team.",
      h1: [],
      h2: [],
      hero: null,
    });
    expect(extraction.text).toBe(
      "How we cut dashboard load times by 70%\nProduct analytics for B2B: a field guide\nHeliolytics raises $40M Series B",
    );
    expect(extraction.pricing).toEqual([]);
  });

  it("sees one new item in feed-v2, the others unchanged", () => {
    const { items } = rss(fixture("feed-v2.xml"), "https://www.heliolytics.io/blog/feed.xml");
    expect(items[0]).toEqual({
      key: "heliolytics-blog-introducing-session-replay",
      title: "Introducing session replay",
      date: "2026-11-30T16:00:00.000Z",
      url: "https://www.heliolytics.io/blog/introducing-session-replay?utm_source=rss",
      summary:
        "Session replay is now available in public beta for every Pro and Business workspace. Watch real sessions next to your funnels & retention charts.",
    });
    expect(items.slice(1)).toEqual(FEED_V1);
  });

  it("reads Atom entries: id keys, relative links, published before updated, escaped HTML summaries", () => {
    const extraction = rss(fixture("atom.xml"), "https://relaywise.com/changelog/atom.xml", "application/atom+xml");
    expect(extraction.items).toEqual([
      {
        key: "tag:relaywise.com,2026-11-25:/changelog/inbound-parsing",
        title: "Inbound email parsing & webhooks",
        date: "2026-11-25T09:00:00.000Z",
        url: "https://relaywise.com/changelog/inbound-parsing",
        summary: "Receive email at any address on your domain and get it as JSON on a webhook, attachments included.",
      },
      {
        key: "tag:relaywise.com,2026-11-10:/changelog/dedicated-ip-warmup",
        title: "Dedicated IP warm-up",
        date: "2026-11-10T08:30:00.000Z",
        url: "https://relaywise.com/changelog/dedicated-ip-warmup",
        summary:
          "New dedicated IPs now warm up automatically over 30 days, raising daily volume as your reputation grows.",
      },
      {
        key: "tag:relaywise.com,2026-10-29:/changelog/suppression-list-api",
        title: "Suppression list API",
        date: "2026-10-29T14:15:00.000Z",
        url: "https://relaywise.com/changelog/suppression-list-api",
        summary: "List, add and remove suppressed addresses through the API.",
      },
    ]);
    expect(extraction.narrative.title).toBe("Relaywise Changelog");
    expect(extraction.narrative.meta_description).toBe("New features & fixes in the Relaywise email API");
  });

  it("reads a feed fetched over http when the body or the content type says it is one", () => {
    const byBody = extract(fixture("feed-v1.xml"), {
      url: "https://www.heliolytics.io/blog/feed.xml",
      contentType: "text/html",
      fetchMethod: "http",
    });
    expect(byBody.items).toEqual(FEED_V1);
    const byType = extract(fixture("atom.xml").replace(/^<\?xml[^>]*>\s*/, ""), {
      url: "https://relaywise.com/changelog/atom.xml",
      contentType: "application/atom+xml",
      fetchMethod: "http",
    });
    expect(byType.items).toHaveLength(3);
  });

  it("falls back to HTML when an rss source answers with a page", () => {
    const extraction = rss(fixture("changelog-v1.html"), "https://www.heliolytics.io/changelog", "text/html");
    expect(extraction.items).toEqual(CHANGELOG_V1);
    expect(extraction.narrative.h1).toEqual(["Changelog"]);
  });

  it("keys RSS items without guid by link, and without link by title", () => {
    const { items } = rss(
      `<rss version="2.0"><channel><title>T</title>
        <item><title>With link</title><link>/posts/1</link></item>
        <item><title>Only a Title</title><pubDate>not a date</pubDate></item>
      </channel></rss>`,
      "https://example.com/feed",
    );
    expect(items).toEqual([
      {
        key: "https://example.com/posts/1",
        title: "With link",
        date: null,
        url: "https://example.com/posts/1",
        summary: null,
      },
      { key: "only a title", title: "Only a Title", date: null, url: null, summary: null },
    ]);
  });
});
