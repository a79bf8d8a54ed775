import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFIRMATION_THRESHOLD, resolveDrafts, type Pending } from "../../src/detection/classify/flap-damping.js";
import type { EventDraft } from "../../src/detection/types.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { createCompetitor, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

function draft(subject: string, before: string, after: string, confidence: number): EventDraft {
  return {
    event_type: "narrative_change",
    severity: "low",
    title: `${subject}: ${before} → ${after}`,
    summary: "",
    impact_summary: "",
    confidence_score: confidence,
    confidence_reasoning: "",
    is_inferred: true,
    tags: [],
    evidence: [],
    subject,
    before_state: before,
    after_state: after,
  };
}

const waiting = (d: EventDraft): Pending<string> => ({
  subject: d.subject,
  before_state: d.before_state,
  after_state: d.after_state,
  draft: d,
  origin: "diff-1",
});

describe("resolveDrafts", () => {
  it("emits confident drafts at once and holds uncertain ones", () => {
    const sure = draft("pricing:plan:pro", "A", "B", 0.85);
    const unsure = draft("narrative:text", "A", "B", CONFIRMATION_THRESHOLD - 0.1);
    expect(resolveDrafts([], [sure, unsure])).toEqual({ confirmed: [], emit: [sure], wait: [unsure], settled: [] });
  });

  it("confirms a held change that the next fetch did not contradict", () => {
    const held = waiting(draft("narrative:text", "A", "B", 0.6));
    expect(resolveDrafts([held], [])).toEqual({ confirmed: [held], emit: [], wait: [], settled: ["narrative:text"] });
  });

  it("drops both halves of a flap A→B→A", () => {
    const held = waiting(draft("narrative:text", "A", "B", 0.6));
    const back = draft("narrative:text", "B", "A", 0.6);
    expect(resolveDrafts([held], [back])).toEqual({ confirmed: [], emit: [], wait: [], settled: ["narrative:text"] });
  });

  it("replaces a held change by a newer one A→B→C", () => {
    const held = waiting(draft("narrative:text", "A", "B", 0.6));
    const newer = draft("narrative:text", "B", "C", 0.6);
    expect(resolveDrafts([held], [newer])).toEqual({
      confirmed: [],
      emit: [],
      wait: [newer],
      settled: ["narrative:text"],
    });
  });
});

describe("flap damping in the pipeline", () => {
  let app: TestApp;
  let site: FixtureSite;
  beforeAll(async () => {
    [app, site] = await Promise.all([startTestApp(), new FixtureSite().start()]);
  });
  afterAll(async () => {
    await app?.stop();
    await site?.stop();
  });

  const page = (variant: "a" | "b") => `<!doctype html><html><head><title>Acme</title></head><body><main>
    <h1>Acme analytics</h1>
    <p>Acme helps product teams understand their users with fast, private analytics for every release.</p>
    ${
      variant === "a"
        ? "<p>Our customers include retailers, banks and hospitals across Europe and North America.</p><p>Book a demo with our team to see funnels, retention and cohorts in action today.</p><p>Trusted by over two thousand companies of every size since the very beginning.</p>"
        : "<p>Spring offer: every new workspace gets onboarding sessions with a solutions engineer.</p><p>Join our webinar series on experimentation, feature flags and warehouse-native metrics.</p><p>Read how a fintech scale-up cut churn by a fifth with lifecycle dashboards this year.</p>"
    }</main></body></html>`;

  async function trackHomepage() {
    const member = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, member);
    const path = `/flap-${Math.random().toString(36).slice(2)}`;
    site.set(path, page("a"));
    const res = await app.http
      .post(`/competitors/${competitor.id}/sources`)
      .set("Authorization", member.bearer)
      .send({ source_type: "homepage", url: site.url(path) })
      .expect(201);
    await app.service.pipeline.fetchSource(res.body.id);
    return { member, path, sourceId: res.body.id as string };
  }

  const eventTitles = async (bearer: string) =>
    (await app.http.get("/events").set("Authorization", bearer).expect(200)).body.map(
      (e: { title: string }) => e.title,
    );

  it("makes a low-confidence rewrite an event only once the next fetch confirms it", async () => {
    const t = await trackHomepage();
    site.set(t.path, page("b"));
    expect(await app.service.pipeline.fetchSource(t.sourceId)).toMatchObject({ kind: "changed", events: 0 });
    expect(await eventTitles(t.member.bearer)).toEqual([]);
    expect(await app.service.pipeline.fetchSource(t.sourceId)).toMatchObject({ kind: "unchanged", events: 1 });
    const titles = await eventTitles(t.member.bearer);
    expect(titles).toHaveLength(1);
    expect(titles[0]).toMatch(/^Acme rewrote \d+% of its homepage/);
  });

  it("makes nothing of a page that flips back and forth (an A/B test)", async () => {
    const t = await trackHomepage();
    for (const variant of ["b", "a", "b", "a"] as const) {
      site.set(t.path, page(variant));
      await app.service.pipeline.fetchSource(t.sourceId);
    }
    expect(await eventTitles(t.member.bearer)).toEqual([]);
  });
});
