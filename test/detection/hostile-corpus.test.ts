/**
 * No fetched page can stall the service (docs/product-rules.md#detection): a corpus of hostile bodies
 * (test/detection/hostile-bodies.ts) through every entry point that parses a page: extract() (pages and feeds), the
 * discovery readers (homepage, sitemap), the profile operation, and the full source-fetch path from a fixture site.
 * Each finishes within a bound with a clear result: an extraction, or a failure message recorded or answered.
 *
 * The corpus runs at a twentieth of its size here (0.25 MB bodies; the shapes the product must survive by count, 100k
 * levels of nesting and 100k comments, keep their counts) to keep the file near a minute on two busy cores; the fetch
 * path and the budget tests use full 5 MB bodies, and `npm run bench -- extraction` runs the whole corpus at 5 MB.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ParseBudgetError, ParsePool } from "../../src/detection/parse/parse-pool.js";
import { DetectionPipeline } from "../../src/detection/pipeline.js";
import type { Extraction } from "../../src/detection/types.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { hostileBodies, type HostileBody } from "./hostile-bodies.js";

/**
 * The parse budget of this file's service and pool. The budget is wall time (Node 20 has no per-thread CPU clock), and
 * beside the suite's heaviest files a body that parses in 1–2 s alone can take several times that: these tests ask
 * that every body finishes with a clear result, which the service's default 5 s would turn into a test of the
 * machine's load. The budget's own behaviour is tested below with a pipeline whose budget is 0.2 s.
 */
const BUDGET_MS = 30_000;
const BUDGET_MESSAGE = "page too complex to parse within 30 s";
/** A thread killed at its budget is replaced before the next task runs: allowed on top of the budget. */
const RESTART_ALLOWANCE_MS = 20_000;
const BOUND_MS = BUDGET_MS + RESTART_ALLOWANCE_MS;
/**
 * What a whole 5 MB fetch may take: the fetch, the parse and the recording of the outcome, on a busy machine. The
 * defects this file guards against took minutes to hours on such pages; the same pages take seconds now.
 */
const FETCH_BOUND_MS = 120_000;

let app: TestApp;
let site: FixtureSite;
let pool: ParsePool;
beforeAll(async () => {
  [app, site] = await Promise.all([startTestApp({ PARSE_BUDGET_MS: String(BUDGET_MS) }), new FixtureSite().start()]);
  pool = new ParsePool({ budgetMs: BUDGET_MS });
});
afterAll(async () => {
  await pool?.close();
  await app?.stop();
  await site?.stop();
});

interface Outcome<T> {
  body: HostileBody;
  ms: number;
  result: T | null;
  failure: string | null;
}

/** Runs `task` for each body, two at a time (one per pool thread), timing each from its start. */
async function each<T>(bodies: HostileBody[], task: (body: string, hostile: HostileBody) => Promise<T>) {
  const outcomes: Outcome<T>[] = [];
  const queue = [...bodies];
  const lane = async () => {
    for (let hostile = queue.shift(); hostile; hostile = queue.shift()) {
      const body = hostile.make();
      const started = performance.now();
      try {
        const result = await task(body, hostile);
        outcomes.push({ body: hostile, ms: performance.now() - started, result, failure: null });
      } catch (error) {
        // The only failure a parse may end in: the budget, with the message the source records.
        expect(error).toBeInstanceOf(ParseBudgetError);
        expect((error as Error).message).toBe(BUDGET_MESSAGE);
        outcomes.push({
          body: hostile,
          ms: performance.now() - started,
          result: null,
          failure: (error as Error).message,
        });
      }
    }
  };
  await Promise.all([lane(), lane()]);
  for (const outcome of outcomes) expect(outcome.ms, outcome.body.name).toBeLessThan(BOUND_MS);
  return outcomes;
}

function expectStorable(value: unknown): void {
  const json = JSON.stringify(value);
  expect(json).not.toContain("\\u0000");
  expect(json).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/);
}

const corpus = hostileBodies(250_000);
const pages = corpus.filter((body) => body.kind !== "sitemap");

describe("the parse pool", () => {
  it("extracts every hostile page and feed within the budget, or fails it with the budget's message", async () => {
    const outcomes = await each(pages, (body, hostile) =>
      pool.run("extract", {
        body,
        options: {
          url: "https://acme.test/page",
          contentType: hostile.contentType,
          fetchMethod: hostile.kind === "feed" ? "rss" : "http",
        },
      }),
    );
    for (const { body, result } of outcomes) {
      if (!result) continue;
      expect(typeof result.text, body.name).toBe("string");
      expectStorable(result);
    }
    // The structures that used to be quadratic now finish well inside the budget.
    expect(outcomes.filter((outcome) => outcome.failure).map((outcome) => outcome.body.name)).toEqual([]);
    const feed = outcomes.find((outcome) => /^feed: \w+ items$/.test(outcome.body.name))!.result as Extraction;
    expect(feed.items).toHaveLength(500);
  }, 300_000);

  it("reads hostile homepages and sitemaps as discovery does", async () => {
    const homepages = await each(
      corpus.filter((body) =>
        /^(?:deep nesting: 100k divs|unclosed tags: \w+ '<div' |huge attribute: \S+ MB href|links:|100k comments$)/.test(
          body.name,
        ),
      ),
      (body) => pool.run("homepage", { body, url: "https://acme.test/" }),
    );
    expect(homepages.every((outcome) => outcome.result === null || Array.isArray(outcome.result.links))).toBe(true);
    const sitemaps = await each(
      corpus.filter((body) => body.kind === "sitemap"),
      (body) => pool.run("sitemap", { body, limit: 500 }),
    );
    const urls = sitemaps.find((outcome) => outcome.body.name.endsWith("of URLs"))!.result!;
    expect(urls.locs).toHaveLength(500);
    for (const outcome of sitemaps) expectStorable(outcome.result);
  }, 120_000);
});

/** Full-size bodies through the service itself. */
const full = hostileBodies(5_000_000);
const named = (name: string): HostileBody => full.find((body) => body.name === name)!;

let sourceCounter = 0;
async function trackHostile(member: TestMember, competitorId: string, hostile: HostileBody): Promise<string> {
  const path = `/hostile/${++sourceCounter}`;
  // Binary bodies are bytes on the wire (as text, each byte past 0x7f would take two).
  const body = hostile.make();
  const bytes = hostile.name.startsWith("binary") ? { bytes: Buffer.from(body, "latin1") } : { body };
  site.set(path, { ...bytes, contentType: hostile.contentType });
  const res = await app.http
    .post(`/competitors/${competitorId}/sources`)
    .set("Authorization", member.bearer)
    .send({ source_type: "pricing", url: site.url(path), fetch_method: hostile.kind === "feed" ? "rss" : "http" })
    .expect(201);
  return res.body.id as string;
}

/** The longest the event loop went without running a timer while `work` ran, in milliseconds. */
async function worstLag<T>(work: Promise<T>): Promise<{ result: T; lagMs: number }> {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 20);
    last = now;
  }, 20);
  try {
    return { result: await work, lagMs: worst };
  } finally {
    clearInterval(timer);
  }
}

describe("the source-fetch path", () => {
  it("fetches 5 MB hostile pages to a recorded result: an extraction or a clear failure", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, member, { name: "Hostile", domain: "hostile.test" });
    const expected: [string, RegExp][] = [
      ["huge attribute: 5 MB title", new RegExp(`^(?:changed|${BUDGET_MESSAGE})$`)],
      ["one character: 5 MB of 'a'", new RegExp(`^(?:changed|${BUDGET_MESSAGE})$`)],
      // Three bytes each in UTF-8: past the outbound client's 5 MB cap.
      ["one character: 5 MB of '‹'", /^response larger than 5 MB$/],
      ["NUL bytes: 5 MB", /^not a text page: binary content sent as text\/html$/],
      ["binary bytes: 5 MB", /^not a text page: binary content sent as text\/html$/],
      ["100k comments", /^changed$/],
      ["feed: billion laughs", /^changed$/],
    ];
    for (const [name, result] of expected) {
      const sourceId = await trackHostile(member, competitor.id, named(name));
      const started = performance.now();
      const outcome = await app.service.pipeline.fetchSource(sourceId);
      expect(performance.now() - started, name).toBeLessThan(FETCH_BOUND_MS);
      const source = await app.service.services.knex("sources").where({ id: sourceId }).first();
      if (outcome.kind === "failed") {
        expect(outcome.message, name).toMatch(result);
        expect(source.error_message, name).toBe(outcome.message);
      } else {
        expect(outcome.kind, name).toMatch(result);
        expect(source.error_message, name).toBeNull();
      }
      expect(source.last_fetched_at, name).not.toBeNull();
    }
  }, 180_000);

  it("fails a page past the parse budget with a clear error while the service keeps answering", async () => {
    const { knex, jobs, http, log } = app.service.services;
    const strict = new DetectionPipeline({ knex, jobs, http, log, parseBudgetMs: 200 });
    try {
      const member = await createWorkspace(app, { plan: "growth" });
      const competitor = await createCompetitor(app, member, { name: "Slow", domain: "slow.test" });
      const sourceId = await trackHostile(member, competitor.id, named("items: 4 MB of dated headings"));
      let healthMs = 0;
      const { result, lagMs } = await worstLag(
        (async () => {
          const fetching = strict.fetchSource(sourceId);
          // Requests are served while the page is parsed.
          const started = performance.now();
          await app.http.get("/health").expect(200);
          healthMs = performance.now() - started;
          return fetching;
        })(),
      );
      expect(result).toEqual({ kind: "failed", message: "page too complex to parse within 0.2 s", retryable: false });
      // The slowest page of the corpus: parsing it on the event loop takes over 25 s on a quiet machine. What remains
      // on the event loop is fetching it and, on a busy machine, the garbage collector of a test process holding the
      // corpus, which has taken up to 3 s beside the suite's heaviest files.
      expect(lagMs).toBeLessThan(10_000);
      expect(healthMs).toBeLessThan(10_000);
      const source = await knex("sources").where({ id: sourceId }).first();
      expect(source.error_message).toBe("page too complex to parse within 0.2 s");
    } finally {
      await strict.close();
    }
  }, 60_000);
});

describe("discovery and profile", () => {
  it("profiles a competitor whose homepage, sitemap and candidate pages are hostile", async () => {
    const hostileSite = await new FixtureSite().start();
    try {
      const nav = '<nav><a href="/pricing">Pricing</a><a href="/careers">Careers</a><a href="/blog">Blog</a></nav>';
      hostileSite
        .set("/", `<html><body>${nav}${named("100k comments").make()}${"<div>".repeat(50_000)}</body></html>`)
        .set("/sitemap.xml", { contentType: "application/xml", body: named("sitemap: 100k nested urlsets").make() })
        .set("/pricing", named("one character: 5 MB of 'a'").make())
        .set("/careers", {
          bytes: Buffer.from(named("binary bytes: 5 MB").make().slice(0, 1_000_000), "latin1"),
          contentType: "application/octet-stream",
        })
        .set("/blog", { body: named("feed: billion laughs").make(), contentType: "application/rss+xml" });
      const member = await createWorkspace(app, { plan: "starter" });
      const competitor = await createCompetitor(app, member, { name: "Hostile Site", domain: "hostile-site.test" });
      await app.http
        .post(`/competitors/${competitor.id}/sources`)
        .set("Authorization", member.bearer)
        .send({ source_type: "homepage", url: hostileSite.url("/") })
        .expect(201);
      const started = performance.now();
      const res = await app.http
        .post(`/competitors/${competitor.id}/profile`)
        .set("Authorization", member.bearer)
        .expect(200);
      expect(performance.now() - started).toBeLessThan(BOUND_MS);
      const found = Object.fromEntries(
        res.body.enriched_sources.map((s: { source_type: string; verified: boolean }) => [s.source_type, s.verified]),
      );
      // Pricing and careers answered (too large for a profile's fetch, not text: still reachable). The blog was never
      // fetched: the homepage (about 1.9 MB), the oversized sitemap and pricing page (2 MB each, the most a profile's
      // fetch reads) and the careers page (1 MB) spent most of the request's 8 MB, and no fetch starts without room
      // for a whole page (src/discovery/budget.ts).
      expect(found).toEqual({ pricing: true, careers: true, blog: false });

      hostileSite.set("/", { bytes: Buffer.alloc(4096, 1), contentType: "image/png" });
      const refused = await app.http
        .post(`/competitors/${competitor.id}/profile`)
        .set("Authorization", member.bearer)
        .expect(422);
      expect(refused.body.detail[0].msg).toBe(`Could not fetch ${hostileSite.url("/")}: not a text page: image/png`);
    } finally {
      await hostileSite.stop();
    }
  }, 120_000);
});
