import { describe, expect, it } from "vitest";
import { SiteScope, classifyUrl, registrableDomain, toSourceType } from "../../src/discovery/classify.js";

const scope = new SiteScope(["www.acme.com"]);
const classify = (url: string, text: string | null = null) => classifyUrl(new URL(url), text, scope);

describe("registrableDomain", () => {
  it("keeps the name under the public suffix, including common country second levels", () => {
    expect(registrableDomain("www.blog.acme.com")).toBe("acme.com");
    expect(registrableDomain("acme.com")).toBe("acme.com");
    expect(registrableDomain("careers.acme.co.uk")).toBe("acme.co.uk");
    expect(registrableDomain("docs.acme.io")).toBe("acme.io");
    expect(registrableDomain("127.0.0.1")).toBe("127.0.0.1");
  });
});

describe("classifyUrl", () => {
  it("reads the kind of page from the last path segment", () => {
    expect(classify("https://acme.com/pricing")).toBe("pricing");
    expect(classify("https://www.acme.com/plans/")).toBe("pricing");
    expect(classify("https://acme.com/en/pricing.html")).toBe("pricing");
    expect(classify("https://acme.com/company/careers")).toBe("careers");
    expect(classify("https://acme.com/jobs")).toBe("careers");
    expect(classify("https://acme.com/join-us")).toBe("careers");
    expect(classify("https://acme.com/blog")).toBe("blog");
    expect(classify("https://acme.com/news")).toBe("news");
    expect(classify("https://acme.com/changelog")).toBe("changelog");
    expect(classify("https://acme.com/releases")).toBe("changelog");
    expect(classify("https://acme.com/whats-new")).toBe("changelog");
    expect(classify("https://acme.com/product/updates")).toBe("changelog");
    expect(classify("https://acme.com/docs")).toBe("docs");
    expect(classify("https://acme.com/documentation")).toBe("docs");
    expect(classify("https://acme.com/press")).toBe("press");
    expect(classify("https://acme.com/newsroom")).toBe("press");
    expect(classify("https://acme.com/media")).toBe("press");
  });

  it("does not take an article, a posting or a deep page for the index it sits under", () => {
    expect(classify("https://acme.com/blog/our-new-pricing")).toBeNull();
    expect(classify("https://acme.com/careers/senior-engineer")).toBeNull();
    expect(classify("https://acme.com/a/b/c/pricing")).toBeNull();
    expect(classify("https://acme.com/about")).toBeNull();
  });

  it("recognises dedicated subdomains at their root", () => {
    expect(classify("https://blog.acme.com/")).toBe("blog");
    expect(classify("https://careers.acme.com")).toBe("careers");
    expect(classify("https://docs.acme.com/")).toBe("docs");
    expect(classify("https://developer.acme.com/")).toBe("docs");
    expect(classify("https://blog.acme.com/2026/launch")).toBeNull();
  });

  it("falls back to the link text when the path says nothing, but never for the homepage itself", () => {
    expect(classify("https://acme.com/company/open-roles", "We’re hiring")).toBe("careers");
    expect(classify("https://acme.com/resources/product", "What's new →")).toBe("changelog");
    expect(classify("https://acme.com/", "Pricing")).toBeNull();
    expect(classify("https://acme.com/product", "Product")).toBeNull();
  });

  it("finds feeds linked as plain anchors", () => {
    expect(classify("https://acme.com/feed.xml")).toBe("rss");
    expect(classify("https://acme.com/blog/rss")).toBe("rss");
    expect(classify("https://acme.com/feed/")).toBe("rss");
  });

  it("ignores other sites, except a company board on a hosted job board", () => {
    expect(classify("https://example.org/pricing", "Pricing")).toBeNull();
    expect(classify("https://acme.com.evil.example/pricing")).toBeNull();
    expect(classify("https://boards.greenhouse.io/acme")).toBe("careers");
    expect(classify("https://jobs.lever.co/acme")).toBe("careers");
    expect(classify("https://jobs.lever.co/acme/5f1c-senior-engineer")).toBeNull();
    expect(classify("https://acme.recruitee.com/")).toBe("careers");
  });

  it("accepts any host under the competitor's registrable domain, and an IP-addressed site by its address", () => {
    const local = new SiteScope(["127.0.0.1", "acme.test"]);
    expect(classifyUrl(new URL("http://127.0.0.1:4000/pricing"), null, local)).toBe("pricing");
    expect(classifyUrl(new URL("https://docs.acme.test/"), null, local)).toBe("docs");
    expect(classifyUrl(new URL("http://127.0.0.2/pricing"), null, local)).toBeNull();
  });
});

describe("toSourceType", () => {
  it("keeps contract source types and maps unknown or missing kinds to other", () => {
    expect(toSourceType("pricing")).toBe("pricing");
    expect(toSourceType(" RSS ")).toBe("rss");
    expect(toSourceType("marketplace")).toBe("other");
    expect(toSourceType(undefined)).toBe("other");
    expect(toSourceType(42)).toBe("other");
  });
});
