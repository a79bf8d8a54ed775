/**
 * Detection end to end: fixture sites on 127.0.0.1 change between fetches; the exact events produced (and the ones
 * not produced) are asserted through the public API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXTRACTOR_VERSION } from "../../src/detection/types.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
let site: FixtureSite;
beforeAll(async () => {
  [app, site] = await Promise.all([startTestApp(), new FixtureSite().start()]);
});
afterAll(async () => {
  await app?.stop();
  await site?.stop();
});

interface Tracked {
  member: TestMember;
  competitorId: string;
  sourceId: string;
  path: string;
}

let pathCounter = 0;
/** A workspace tracking one page of the fixture site (each test gets its own path, so tests do not interfere). */
async function track(sourceType: string, fixture: string, options: { fetchMethod?: string } = {}): Promise<Tracked> {
  const member = await createWorkspace(app, { plan: "growth" });
  const competitor = await createCompetitor(app, member, { name: "Acme", domain: "acme.test" });
  const path = `/t${++pathCounter}/${fixture.replace(/-v\d+/, "").replace(/\.\w+$/, "")}`;
  site.serveFixture(path, fixture);
  const res = await app.http
    .post(`/competitors/${competitor.id}/sources`)
    .set("Authorization", member.bearer)
    .send({ source_type: sourceType, url: site.url(path), fetch_method: options.fetchMethod ?? "http" })
    .expect(201);
  return { member, competitorId: competitor.id, sourceId: res.body.id, path };
}

const fetchNow = (sourceId: string) => app.service.pipeline.fetchSource(sourceId);

async function events(member: TestMember, query = "") {
  const res = await app.http.get(`/events${query}`).set("Authorization", member.bearer).expect(200);
  return res.body as { id: string; title: string; severity: string; event_type: string; confidence_score: number }[];
}

describe("pricing page", () => {
  it("turns a price rise, a removed free tier, a new plan and the new hero copy into exactly those events", async () => {
    const t = await track("pricing", "pricing-v1.html");
    expect((await fetchNow(t.sourceId)).kind).toBe("changed");
    expect(await events(t.member)).toEqual([]); // the first snapshot is the baseline

    site.serveFixture(t.path, "pricing-v2.html");
    const outcome = await fetchNow(t.sourceId);
    expect(outcome).toMatchObject({ kind: "changed", events: 4 });
    const found = await events(t.member);
    // v2 also swaps "Start for free" for a 14-day trial in the hero copy: a real positioning change.
    expect(found.map((e) => [e.title, e.severity, e.event_type]).sort()).toEqual(
      [
        ["Acme added an Enterprise plan", "medium", "pricing_change"],
        ["Acme raised Pro from $49 to $59/month", "high", "pricing_change"],
        ["Acme removed its Free plan", "high", "pricing_change"],
        [
          'Acme changed its pricing page hero copy to "Start a 14-day trial and upgrade as your product grows. Every plan includes unlimited dashboards an…"',
          "medium",
          "narrative_change",
        ],
      ].sort(),
    );
    // Nothing for the page's timestamp or CSRF token, which also changed.
    expect(found.filter((e) => /updated|token|csrf/i.test(e.title))).toEqual([]);

    const raise = found.find((e) => e.title.startsWith("Acme raised"))!;
    const detail = await app.http.get(`/events/${raise.id}`).set("Authorization", t.member.bearer).expect(200);
    expect(detail.body.competitor_name).toBe("Acme");
    expect(detail.body.source_url).toBe(site.url(t.path));
    expect(detail.body.diff_json.pricing.length).toBeGreaterThanOrEqual(3);
    expect(detail.body.evidence[0]).toMatchObject({ evidence_type: "before_after", source_url: site.url(t.path) });
    expect(detail.body.evidence[0].excerpt).toContain("$49");
    expect(detail.body.evidence[0].excerpt).toContain("$59");
  });

  it("makes no new snapshot, diff or event for an identical body, and no event for a timestamp-only change", async () => {
    const t = await track("homepage", "timestamp-v1.html");
    await fetchNow(t.sourceId);
    expect((await fetchNow(t.sourceId)).kind).toBe("unchanged");
    site.serveFixture(t.path, "timestamp-v2.html");
    expect(await fetchNow(t.sourceId)).toMatchObject({ events: 0 });
    const knex = app.service.services.knex;
    expect(await knex("diffs").where({ source_id: t.sourceId })).toEqual([]);
    expect(await events(t.member)).toEqual([]);
  });
});

describe("careers, changelog and feeds", () => {
  it("reports opened and closed jobs from JSON-LD postings", async () => {
    const t = await track("careers", "careers-v1.html");
    await fetchNow(t.sourceId);
    site.serveFixture(t.path, "careers-v2.html");
    await fetchNow(t.sourceId);
    const found = await events(t.member);
    expect(found.every((e) => e.event_type === "hiring_change")).toBe(true);
    expect(found.map((e) => e.title).sort()).toEqual(
      ["Acme closed its Account Executive, Mid-Market role", "Acme opened 3 engineering roles"].sort(),
    );
  });

  it("reports a new changelog release as a product change", async () => {
    const t = await track("changelog", "changelog-v1.html");
    await fetchNow(t.sourceId);
    site.serveFixture(t.path, "changelog-v2.html");
    await fetchNow(t.sourceId);
    const found = await events(t.member);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ event_type: "product_change" });
    expect(found[0]!.title).toMatch(/^Acme shipped: /);
  });

  it("reads RSS items as records and reports a new one", async () => {
    const t = await track("rss", "feed-v1.xml", { fetchMethod: "rss" });
    await fetchNow(t.sourceId);
    site.serveFixture(t.path, "feed-v2.xml");
    await fetchNow(t.sourceId);
    const found = await events(t.member);
    expect(found).toHaveLength(1);
    expect(found[0]!.title).toMatch(/^Acme published: /);
  });
});

describe("failures", () => {
  it("records a clear error, and clears it after a success", async () => {
    const t = await track("pricing", "pricing-v1.html");
    site.set(t.path, { status: 503, body: "down" });
    await expect(fetchNow(t.sourceId)).rejects.toThrow(/HTTP 503/); // retryable: the job retries with backoff
    const host = new URL(site.baseUrl).hostname;
    const sources = await app.http
      .get(`/competitors/${t.competitorId}/sources`)
      .set("Authorization", t.member.bearer)
      .expect(200);
    expect(sources.body[0]).toMatchObject({ error_message: `HTTP 503 from ${host}` });
    expect(sources.body[0].last_error_at).not.toBeNull();

    site.serveFixture(t.path, "pricing-v1.html");
    await fetchNow(t.sourceId);
    const healed = await app.http
      .get(`/competitors/${t.competitorId}/sources`)
      .set("Authorization", t.member.bearer)
      .expect(200);
    expect(healed.body[0]).toMatchObject({ error_message: null });
    expect(healed.body[0].last_success_at).not.toBeNull();
  });

  it("recognises a bot challenge page instead of diffing it", async () => {
    const t = await track("pricing", "pricing-v1.html");
    await fetchNow(t.sourceId);
    site.serveFixture(t.path, "bot-challenge.html");
    expect(await fetchNow(t.sourceId)).toMatchObject({ kind: "failed", retryable: false });
    const source = await app.service.services.knex("sources").where({ id: t.sourceId }).first();
    expect(source.error_message).toMatch(/looks like a bot challenge page/);
    expect(await events(t.member)).toEqual([]);
  });
});

describe("run-now", () => {
  it("queues one fetch per source, answers 202 with the job, and the events become visible", async () => {
    const t = await track("pricing", "pricing-v1.html");
    const first = await app.http
      .post(`/sources/${t.sourceId}/run-now`)
      .set("Authorization", t.member.bearer)
      .expect(202);
    expect(first.body).toEqual({ job_id: expect.any(String), status: "queued" });
    const knex = app.service.services.knex;
    await waitFor(
      () => knex("sources").where({ id: t.sourceId }).whereNotNull("last_success_at").first(),
      15_000,
      "first fetch",
    );

    site.serveFixture(t.path, "pricing-v2.html");
    await app.http.post(`/sources/${t.sourceId}/run-now`).set("Authorization", t.member.bearer).expect(202);
    const found = await waitFor(
      async () => {
        const list = await events(t.member);
        return list.length === 4 && list;
      },
      15_000,
      "four events",
    );
    expect(found).toHaveLength(4);

    const stranger = await createWorkspace(app);
    await app.http.post(`/sources/${t.sourceId}/run-now`).set("Authorization", stranger.bearer).expect(404);
  });

  it("returns the waiting job instead of queueing a second one", async () => {
    const t = await track("pricing", "pricing-v1.html");
    // Mark a fetch as waiting, as the scheduler does, without a worker picking it up first.
    const knex = app.service.services.knex;
    const jobId = "00000000-0000-4000-8000-000000000001";
    await knex("sources").where({ id: t.sourceId }).update({ fetch_job_id: jobId, fetch_queued_at: knex.fn.now() });
    const res = await app.http.post(`/sources/${t.sourceId}/run-now`).set("Authorization", t.member.bearer).expect(202);
    expect(res.body).toEqual({ job_id: jobId, status: "already_queued" });
  });
});

describe("re-analysis", () => {
  it("re-derives events from stored snapshots without duplicating them", async () => {
    const t = await track("pricing", "pricing-v1.html");
    await fetchNow(t.sourceId);
    site.serveFixture(t.path, "pricing-v2.html");
    await fetchNow(t.sourceId);
    expect(await events(t.member)).toHaveLength(4);
    const run = await app.http
      .post(`/insights/reanalyze/${t.competitorId}`)
      .set("Authorization", t.member.bearer)
      .expect(200);
    expect(run.body).toEqual({ competitor: "Acme", error: null, events_generated: 0 });
    const again = await app.http
      .post(`/insights/reanalyze/${t.competitorId}`)
      .set("Authorization", t.member.bearer)
      .expect(200);
    expect(again.body.events_generated).toBe(0);
    expect(await events(t.member)).toHaveLength(4);

    // Events lost (deleted by hand) come back from the snapshots, once.
    await app.service.services.knex("events").where({ competitor_id: t.competitorId }).delete();
    const rebuilt = await app.http
      .post(`/insights/reanalyze/${t.competitorId}`)
      .set("Authorization", t.member.bearer)
      .expect(200);
    expect(rebuilt.body.events_generated).toBe(4);
    expect(await events(t.member)).toHaveLength(4);
  });

  it("re-extracts only each source's latest 10 snapshots in one request", async () => {
    const t = await track("pricing", "pricing-v1.html");
    await fetchNow(t.sourceId);
    const knex = app.service.services.knex;
    const first = await knex("snapshots").where({ source_id: t.sourceId }).first();
    // Eleven more snapshots of the same page, a minute apart, all made by an older extractor.
    const { id: _id, ...row } = first;
    await knex("snapshots").insert(
      Array.from({ length: 11 }, (_, i) => ({
        ...row,
        content_hash: `older-${i}`,
        fetched_at: new Date(first.fetched_at.getTime() + (i + 1) * 60_000),
      })),
    );
    await knex("snapshots").where({ source_id: t.sourceId }).update({ extractor_version: 0 });
    await app.http.post(`/insights/reanalyze/${t.competitorId}`).set("Authorization", t.member.bearer).expect(200);
    const versions = await knex("snapshots")
      .where({ source_id: t.sourceId })
      .orderBy("fetched_at")
      .pluck("extractor_version");
    expect(versions).toEqual([0, 0, ...Array(10).fill(EXTRACTOR_VERSION)]);
  });

  it("answers with an error for a competitor without snapshots, and 404 for another workspace's", async () => {
    const t = await track("pricing", "pricing-v1.html");
    const res = await app.http
      .post(`/insights/reanalyze/${t.competitorId}`)
      .set("Authorization", t.member.bearer)
      .expect(200);
    expect(res.body).toMatchObject({ competitor: "Acme", events_generated: null });
    expect(res.body.error).toMatch(/No snapshots/);
    const stranger = await createWorkspace(app);
    await app.http.post(`/insights/reanalyze/${t.competitorId}`).set("Authorization", stranger.bearer).expect(404);
  });
});
