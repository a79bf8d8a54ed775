/**
 * discover-sources, profile and add-enriched-sources end to end: a competitor's website served on 127.0.0.1 (the
 * competitor's tracked `homepage` source points at it), driven through the public API with every response checked
 * against the contract.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixtureSite } from "../fakes/fixture-site.js";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let site: FixtureSite;
const sitemapXml = (name: string) => FixtureSite.fixture(name).replaceAll("{{BASE}}", site.baseUrl);

beforeAll(async () => {
  [app, site] = await Promise.all([startTestApp(), new FixtureSite().start()]);
  // /press is linked from the footer but answers 404: a candidate that is found but not verified.
  site
    .serveFixture("/", "discovery-home.html")
    .set("/sitemap.xml", { contentType: "application/xml", body: sitemapXml("discovery-sitemap-index.xml") })
    .set("/sitemap-pages.xml", { contentType: "application/xml", body: sitemapXml("discovery-sitemap-pages.xml") })
    .set("/pricing", "<title>Pricing — Acme Radar</title><h1>Plans</h1><p>Pro: $49 per seat per month</p>")
    .set("/company/careers", "<title>Careers at Acme Radar</title><h1>Open roles</h1>")
    .set("/changelog", "<title>Changelog</title><h1>What's new</h1>")
    .set("/blog", "<title>The Acme Radar blog</title>")
    .set("/news", "<title>Acme Radar in the news</title>")
    .set("/docs", "<title>Acme Radar docs</title>")
    .serveFixture("/blog/feed.xml", "feed-v1.xml");
});
afterAll(async () => {
  await app?.stop();
  await site?.stop();
});

/** A competitor whose homepage source points at `homepage` (a path of `on`, the main fixture site by default). */
async function competitorAt(homepage: string, on: FixtureSite = site) {
  const member = await createWorkspace(app, { plan: "starter" });
  const competitor = await createCompetitor(app, member, { name: "Acme Radar", domain: "acme.test" });
  await addSource(member, competitor.id, "homepage", on.url(homepage));
  return { member, competitor };
}

async function addSource(member: TestMember, competitorId: string, sourceType: string, url: string) {
  const res = await app.http
    .post(`/competitors/${competitorId}/sources`)
    .set("Authorization", member.bearer)
    .send({ source_type: sourceType, url })
    .expect(201);
  return res.body as { id: string };
}

async function sourceCount(competitorId: string): Promise<number> {
  const row = await app.service.services
    .knex("sources")
    .where({ competitor_id: competitorId })
    .count({ n: "*" })
    .first();
  return Number(row?.n);
}

const post = (member: TestMember, path: string, body?: unknown) =>
  app.http
    .post(path)
    .set("Authorization", member.bearer)
    .send(body as object);

describe("discover-sources", () => {
  it("creates one source per kind found in the navigation, footer, feed autodiscovery and sitemap.xml", async () => {
    const { member, competitor } = await competitorAt("/");
    // Already tracked under another spelling of the same URL: not created again.
    await addSource(member, competitor.id, "pricing", `${site.url("/pricing")}/?utm_source=newsletter`);

    const res = await post(member, `/competitors/${competitor.id}/discover-sources`).expect(200);
    expect(res.body.map((s: Record<string, unknown>) => [s.source_type, s.url, s.fetch_method])).toEqual([
      ["careers", site.url("/company/careers"), "http"],
      ["changelog", site.url("/changelog"), "http"],
      ["blog", site.url("/blog"), "http"],
      ["news", site.url("/news"), "http"],
      ["press", site.url("/press"), "http"],
      ["docs", site.url("/docs"), "http"],
      ["rss", site.url("/blog/feed.xml"), "rss"],
    ]);
    expect(res.body[0]).toMatchObject({
      competitor_id: competitor.id,
      fetch_frequency_minutes: 1440,
      is_active: true,
      last_fetched_at: null,
    });

    const listed = await app.http
      .get(`/competitors/${competitor.id}/sources`)
      .set("Authorization", member.bearer)
      .expect(200);
    expect(listed.body).toHaveLength(9);
    // One level of sitemap index followed, gzipped children skipped (the other host's child is out of scope).
    expect(site.requestsTo("/sitemap-pages.xml")).toBeGreaterThanOrEqual(1);
    expect(site.requestsTo("/sitemap-posts.xml.gz")).toBe(0);
  });

  it("creates nothing the second time: every candidate is already tracked", async () => {
    const { member, competitor } = await competitorAt("/");
    expect((await post(member, `/competitors/${competitor.id}/discover-sources`).expect(200)).body).toHaveLength(8);
    expect((await post(member, `/competitors/${competitor.id}/discover-sources`).expect(200)).body).toEqual([]);
  });

  it("answers 422 naming the homepage and the reason when the homepage cannot be fetched", async () => {
    site.set("/down", { status: 503, body: "maintenance" });
    const { member, competitor } = await competitorAt("/down");
    const res = await post(member, `/competitors/${competitor.id}/discover-sources`).expect(422);
    expect(res.body.detail).toEqual([
      {
        loc: ["path", "competitor_id"],
        msg: `Could not fetch ${site.url("/down")}: HTTP 503 from 127.0.0.1`,
        type: "value_error",
      },
    ]);
    expect(await sourceCount(competitor.id)).toBe(1);
  });
});

describe("profile", () => {
  it("profiles the homepage, verifies each candidate and stores the profile", async () => {
    const { member, competitor } = await competitorAt("/");
    const blog = await addSource(member, competitor.id, "blog", site.url("/blog"));

    const res = await post(member, `/competitors/${competitor.id}/profile`).expect(200);
    expect(res.body).toMatchObject({ competitor_id: competitor.id, name: "Acme Radar", domain: "acme.test" });
    expect(res.body.vendor_data).toBeNull();
    expect(res.body.profile).toEqual({
      url: site.url("/"),
      title: "Acme Radar — Competitive intelligence for B2B teams",
      description: "Acme Radar watches your competitors' pricing, hiring and launches so you don't have to.",
      og_image: site.url("/static/og/home.png"),
      site_name: "Acme Radar",
      language: "en-GB",
      tagline: "Know every move your competitors make",
      organization: {
        name: "Acme Radar",
        legal_name: "Acme Radar Ltd",
        url: site.url("/"),
        logo: site.url("/static/logo.png"),
        founding_date: "2019-03-01",
        employees: "51-200",
        address: "1 Market Street, London, EC1A 1AA, GB",
        same_as: [
          "https://twitter.com/acmeradar",
          "https://www.linkedin.com/company/acme-radar",
          "https://github.com/acme-radar",
        ],
      },
      social: {
        twitter: "https://twitter.com/acmeradar",
        linkedin: "https://www.linkedin.com/company/acme-radar",
        github: "https://github.com/acme-radar",
        youtube: "https://www.youtube.com/@acmeradar",
        facebook: null,
        instagram: null,
      },
      industry: "Competitive intelligence, Market research",
      business_model: "B2B SaaS, subscription",
    });

    expect(res.body.enriched_sources).toEqual([
      {
        url: site.url("/pricing"),
        source_type: "pricing",
        title: "Pricing",
        description: "Linked from the homepage navigation as 'Pricing'",
        relevance: "high",
        verified: true,
      },
      {
        url: site.url("/company/careers"),
        source_type: "careers",
        title: "Careers",
        description: "Linked from the homepage footer as 'Careers'",
        relevance: "high",
        verified: true,
      },
      {
        url: site.url("/changelog"),
        source_type: "changelog",
        title: "What’s new",
        description: "Linked from the homepage navigation as 'What’s new'",
        relevance: "high",
        verified: true,
      },
      {
        url: site.url("/blog"),
        source_type: "blog",
        title: "Blog",
        description: "Linked from the homepage navigation as 'Blog'",
        relevance: "medium",
        verified: true,
      },
      {
        url: site.url("/news"),
        source_type: "news",
        title: "Acme Radar in the news",
        description: "Listed in the site's sitemap.xml",
        relevance: "medium",
        verified: true,
      },
      {
        url: site.url("/press"),
        source_type: "press",
        title: "Press",
        description: "Linked from the homepage footer as 'Press'",
        relevance: "medium",
        verified: false,
      },
      {
        url: site.url("/docs"),
        source_type: "docs",
        title: "Docs",
        description: "Linked from the homepage navigation as 'Docs'",
        relevance: "low",
        verified: true,
      },
      {
        url: site.url("/blog/feed.xml"),
        source_type: "rss",
        title: "Acme Radar blog",
        description: "Announced by the homepage as its RSS feed 'Acme Radar blog'",
        relevance: "medium",
        verified: true,
      },
    ]);

    // Verified and untracked only: not the tracked blog, not the unreachable press page; no kind is missing.
    expect(res.body.recommendations.map((r: Record<string, unknown>) => [r.type, r.source_type, r.url])).toEqual([
      ["track_source", "pricing", site.url("/pricing")],
      ["track_source", "careers", site.url("/company/careers")],
      ["track_source", "changelog", site.url("/changelog")],
      ["track_source", "news", site.url("/news")],
      ["track_source", "docs", site.url("/docs")],
      ["track_source", "rss", site.url("/blog/feed.xml")],
    ]);
    expect(res.body.recommendations[0].reason).toBe(
      "Linked from the homepage navigation as 'Pricing'; reachable and not tracked yet",
    );

    expect(res.body.website_sources.map((s: Record<string, unknown>) => [s.source_type, s.url])).toEqual([
      ["homepage", site.url("/")],
      ["blog", site.url("/blog")],
    ]);
    expect(res.body.website_sources[1]).toEqual({
      id: blog.id,
      url: site.url("/blog"),
      source_type: "blog",
      is_active: true,
      last_success_at: null,
    });

    const stored = await app.service.services
      .knex("competitor_profiles")
      .where({ competitor_id: competitor.id })
      .first();
    expect(stored).toMatchObject({
      industry: "Competitive intelligence, Market research",
      business_model: "B2B SaaS, subscription",
      vendor_data: null,
      profile: res.body.profile,
      enriched_sources: res.body.enriched_sources,
    });
    expect(stored.profiled_at).toBeInstanceOf(Date);

    // Profiling again replaces the stored row.
    await post(member, `/competitors/${competitor.id}/profile`).expect(200);
    const rows = await app.service.services.knex("competitor_profiles").where({ competitor_id: competitor.id });
    expect(rows).toHaveLength(1);
    expect(rows[0].profiled_at.getTime()).toBeGreaterThan(stored.profiled_at.getTime());
  });

  it("recommends the key kinds a bare site lacks, with no industry or business model guessed", async () => {
    const bare = await new FixtureSite().start();
    try {
      bare.set(
        "/",
        "<html><head><title>Globex</title></head><body><h1>Globex</h1><a href='/about'>About</a></body></html>",
      );
      const { member, competitor } = await competitorAt("/", bare);
      const res = await post(member, `/competitors/${competitor.id}/profile`).expect(200);
      expect(res.body.enriched_sources).toEqual([]);
      expect(res.body.recommendations).toEqual([
        {
          type: "missing_source_type",
          source_type: "pricing",
          reason: "No pricing page found on the homepage or in sitemap.xml, and none is tracked",
        },
        {
          type: "missing_source_type",
          source_type: "careers",
          reason: "No careers page or job board found on the homepage or in sitemap.xml, and none is tracked",
        },
        {
          type: "missing_source_type",
          source_type: "changelog",
          reason: "No changelog, blog or feed found on the homepage or in sitemap.xml, and none is tracked",
        },
      ]);
      expect(res.body.profile).toMatchObject({
        title: "Globex",
        tagline: "Globex",
        organization: null,
        industry: null,
        business_model: null,
      });
      expect(bare.requestsTo("/sitemap.xml")).toBe(1);
    } finally {
      await bare.stop();
    }
  });

  it("answers 422 when the homepage cannot be fetched, and stores nothing", async () => {
    const { member, competitor } = await competitorAt("/gone");
    const res = await post(member, `/competitors/${competitor.id}/profile`).expect(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ["path", "competitor_id"],
      msg: `Could not fetch ${site.url("/gone")}: HTTP 404 from 127.0.0.1`,
    });
    expect(await app.service.services.knex("competitor_profiles").where({ competitor_id: competitor.id })).toEqual([]);
  });
});

describe("add-enriched-sources", () => {
  it("creates the candidates, mapping unknown kinds to other and skipping tracked URLs and repeats", async () => {
    const { member, competitor } = await competitorAt("/");
    const res = await post(member, `/competitors/${competitor.id}/add-enriched-sources`, {
      sources: [
        { url: site.url("/pricing"), source_type: "pricing", title: "Pricing", description: "Linked from the nav" },
        { url: site.url("/integrations"), source_type: "marketplace" },
        { url: `${site.url("/pricing")}/#plans`, source_type: "pricing" },
        { url: site.url("/status") },
        { url: site.url("/"), source_type: "homepage" },
        { url: site.url("/blog/feed.xml"), source_type: "rss", relevance: "medium", verified: true },
      ],
    }).expect(200);
    expect(res.body.added).toBe(4);
    expect(res.body.sources.map((s: Record<string, unknown>) => [s.source_type, s.url])).toEqual([
      ["pricing", site.url("/pricing")],
      ["other", site.url("/integrations")],
      ["other", site.url("/status")],
      ["rss", site.url("/blog/feed.xml")],
    ]);
    const stored = await app.service.services
      .knex("sources")
      .where({ competitor_id: competitor.id })
      .orderBy("created_at")
      .select("source_type", "fetch_method", "fetch_frequency_minutes");
    expect(stored.map((s) => [s.source_type, s.fetch_method, s.fetch_frequency_minutes])).toEqual([
      ["homepage", "http", 1440],
      ["pricing", "http", 1440],
      ["other", "http", 1440],
      ["other", "http", 1440],
      ["rss", "rss", 1440],
    ]);

    const again = await post(member, `/competitors/${competitor.id}/add-enriched-sources`, {
      sources: [{ url: site.url("/integrations"), source_type: "other" }],
    }).expect(200);
    expect(again.body).toEqual({ added: 0, sources: [] });
  });

  it("answers 422 for each candidate without an http(s) URL, and creates none of them", async () => {
    const { member, competitor } = await competitorAt("/");
    const res = await post(member, `/competitors/${competitor.id}/add-enriched-sources`, {
      sources: [{ url: "ftp://acme.test/pricing" }, { title: "No URL" }, { url: site.url("/pricing") }, { url: 7 }],
    }).expect(422);
    expect(res.body.detail).toEqual([
      {
        loc: ["body", "sources", 0, "url"],
        msg: "Input should be an http(s) URL of at most 2048 characters",
        type: "url_parsing",
      },
      { loc: ["body", "sources", 1, "url"], msg: "Field required", type: "missing" },
      {
        loc: ["body", "sources", 3, "url"],
        msg: "Input should be an http(s) URL of at most 2048 characters",
        type: "url_parsing",
      },
    ]);
    expect(await sourceCount(competitor.id)).toBe(1);
  });

  it("answers 422 from the contract for more than 50 candidates", async () => {
    const { member, competitor } = await competitorAt("/");
    const sources = Array.from({ length: 51 }, (_, i) => ({ url: site.url(`/p${i}`) }));
    const res = await post(member, `/competitors/${competitor.id}/add-enriched-sources`, { sources }).expect(422);
    expect(res.body.detail[0].loc).toEqual(["body", "sources"]);
  });
});

describe("access", () => {
  it("answers 404 for another workspace's competitor on all three operations, and 401 without a token", async () => {
    const { competitor } = await competitorAt("/");
    const stranger = await createWorkspace(app);
    await post(stranger, `/competitors/${competitor.id}/discover-sources`).expect(404);
    await post(stranger, `/competitors/${competitor.id}/profile`).expect(404);
    await post(stranger, `/competitors/${competitor.id}/add-enriched-sources`, {
      sources: [{ url: site.url("/pricing") }],
    }).expect(404);
    await app.http.post(`/competitors/${competitor.id}/profile`).expect(401);
    expect(await sourceCount(competitor.id)).toBe(1);
  });
});
