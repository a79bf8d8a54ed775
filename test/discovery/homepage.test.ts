import { describe, expect, it } from "vitest";
import { pickCandidates } from "../../src/discovery/candidates.js";
import { SiteScope } from "../../src/discovery/classify.js";
import { readHomepage, socialProfiles } from "../../src/discovery/homepage.js";
import { parseSitemap } from "../../src/discovery/sitemap.js";
import { FixtureSite } from "../fakes/fixture-site.js";

const BASE = "http://127.0.0.1:4000";
const home = readHomepage(FixtureSite.fixture("discovery-home.html"), `${BASE}/`);
const fixtureXml = (name: string) => FixtureSite.fixture(name).replaceAll("{{BASE}}", BASE);

describe("readHomepage", () => {
  it("reads the page's metadata, first h1 and language", () => {
    expect(home).toMatchObject({
      title: "Acme Radar — Competitive intelligence for B2B teams",
      description: "Acme Radar watches your competitors' pricing, hiring and launches so you don't have to.",
      og_image: `${BASE}/static/og/home.png`,
      site_name: "Acme Radar",
      language: "en-GB",
      tagline: "Know every move your competitors make",
    });
  });

  it("reads the JSON-LD Organization from an @graph, with relative URLs resolved", () => {
    expect(home.organization).toEqual({
      name: "Acme Radar",
      legal_name: "Acme Radar Ltd",
      url: `${BASE}/`,
      logo: `${BASE}/static/logo.png`,
      founding_date: "2019-03-01",
      employees: "51-200",
      address: "1 Market Street, London, EC1A 1AA, GB",
      same_as: [
        "https://twitter.com/acmeradar",
        "https://www.linkedin.com/company/acme-radar",
        "https://github.com/acme-radar",
      ],
      industry: "Competitive intelligence, Market research",
    });
  });

  it("takes social profiles from sameAs and page links, skipping share buttons", () => {
    expect(home.social).toEqual({
      twitter: "https://twitter.com/acmeradar",
      linkedin: "https://www.linkedin.com/company/acme-radar",
      github: "https://github.com/acme-radar",
      youtube: "https://www.youtube.com/@acmeradar",
      facebook: null,
      instagram: null,
    });
  });

  it("finds RSS autodiscovery links and tells navigation, body and footer links apart", () => {
    expect(home.feeds).toEqual([{ url: `${BASE}/blog/feed.xml`, format: "rss", title: "Acme Radar blog" }]);
    const area = (path: string) => home.links.find((link) => link.url === `${BASE}${path}`)?.area;
    expect(area("/pricing")).toBe("nav");
    expect(area("/blog/2026/launch-week")).toBe("body");
    expect(area("/company/careers")).toBe("footer");
    expect(home.links.find((link) => link.url === `${BASE}/`)?.text).toBe("Acme Radar");
  });

  it("returns null fields and no organization for a bare page", () => {
    const bare = readHomepage("<p>Hello</p>", "https://acme.com/");
    expect(bare).toMatchObject({ title: null, description: null, language: null, tagline: null, organization: null });
  });
});

describe("socialProfiles", () => {
  it("keeps company pages and ignores people, posts and intents", () => {
    expect(
      socialProfiles([
        "https://www.linkedin.com/in/jane-doe",
        "https://x.com/acme/status/123",
        "https://twitter.com/intent/tweet?text=hi",
        "https://www.instagram.com/p/abc/",
        "https://x.com/acme",
        "https://www.linkedin.com/company/acme/",
        "https://www.instagram.com/acme/",
      ]),
    ).toEqual({
      twitter: "https://x.com/acme",
      linkedin: "https://www.linkedin.com/company/acme/",
      github: null,
      youtube: null,
      facebook: null,
      instagram: "https://www.instagram.com/acme/",
    });
  });
});

describe("parseSitemap", () => {
  it("reads an index and a urlset, ignoring image locations", () => {
    expect(parseSitemap(fixtureXml("discovery-sitemap-index.xml"), 500)).toEqual({
      kind: "index",
      locs: [`${BASE}/sitemap-pages.xml`, `${BASE}/sitemap-posts.xml.gz`, "https://cdn.example.net/sitemap-other.xml"],
    });
    const pages = parseSitemap(fixtureXml("discovery-sitemap-pages.xml"), 500);
    expect(pages?.kind).toBe("urlset");
    expect(pages?.locs).toHaveLength(7);
    expect(pages?.locs).not.toContain(`${BASE}/static/team.jpg`);
  });

  it("caps the URLs read and rejects a body that is not a sitemap", () => {
    expect(parseSitemap(fixtureXml("discovery-sitemap-pages.xml"), 2)?.locs).toEqual([
      `${BASE}/`,
      `${BASE}/en/pricing`,
    ]);
    expect(parseSitemap("<!doctype html><html><body>App</body></html>", 500)).toBeNull();
  });
});

describe("pickCandidates", () => {
  const sitemap = parseSitemap(fixtureXml("discovery-sitemap-pages.xml"), 500)!.locs;
  const scope = new SiteScope(["127.0.0.1", "acme.test"]);

  it("keeps one candidate per kind: navigation first, then the shortest path, sitemap entries last", () => {
    const picked = pickCandidates({ links: home.links, feeds: home.feeds, sitemap, scope, homepages: [`${BASE}/`] });
    expect(picked.map((c) => [c.source_type, c.url, c.origin, c.text])).toEqual([
      ["pricing", `${BASE}/pricing`, "nav", "Pricing"],
      ["careers", `${BASE}/company/careers`, "footer", "Careers"],
      ["changelog", `${BASE}/changelog`, "nav", "What’s new"],
      ["blog", `${BASE}/blog`, "nav", "Blog"],
      ["news", `${BASE}/news`, "sitemap", ""],
      ["press", `${BASE}/press`, "footer", "Press"],
      ["docs", `${BASE}/docs`, "nav", "Docs"],
      ["rss", `${BASE}/blog/feed.xml`, "feed", "Acme Radar blog"],
    ]);
  });

  it("prefers the shorter path among links of the same area, and never offers the homepage", () => {
    const links = [
      { url: `${BASE}/en/pricing`, text: "Pricing", area: "body" as const },
      { url: `${BASE}/pricing`, text: "See plans", area: "body" as const },
      { url: `${BASE}/`, text: "Blog", area: "nav" as const },
    ];
    const picked = pickCandidates({ links, feeds: [], sitemap: [], scope, homepages: [`${BASE}`] });
    expect(picked.map((c) => c.url)).toEqual([`${BASE}/pricing`]);
  });
});
