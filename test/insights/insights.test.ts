import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixtureSite } from "../fakes/fixture-site.js";
import { createCompetitor, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let site: FixtureSite;
beforeAll(async () => {
  [app, site] = await Promise.all([startTestApp(), new FixtureSite().start()]);
});
afterAll(async () => {
  await app?.stop();
  await site?.stop();
});

describe("insights", () => {
  it("aggregates pricing, hiring, product and recent events per competitor", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const acme = await createCompetitor(app, member);
    const quiet = await createCompetitor(app, member, { name: "Quiet", domain: "quiet.test" });
    const sources: Record<string, string> = {};
    for (const [type, fixture] of [
      ["pricing", "pricing-v1.html"],
      ["careers", "careers-v1.html"],
      ["changelog", "changelog-v1.html"],
    ] as const) {
      site.serveFixture(`/insights/${type}`, fixture);
      const res = await app.http
        .post(`/competitors/${acme.id}/sources`)
        .set("Authorization", member.bearer)
        .send({ source_type: type, url: site.url(`/insights/${type}`) })
        .expect(201);
      sources[type] = res.body.id;
      await app.service.pipeline.fetchSource(res.body.id);
    }
    site.serveFixture("/insights/pricing", "pricing-v2.html");
    await app.service.pipeline.fetchSource(sources.pricing!);

    const list = await app.http.get("/insights").set("Authorization", member.bearer).expect(200);
    expect(list.body.competitors.map((c: { id: string }) => c.id)).toEqual([acme.id, quiet.id]);
    const insight = list.body.competitors[0];
    expect(insight).toMatchObject({ name: "Acme", total_sources: 3, scanned_sources: 3, event_count: 4 });
    expect(insight.pricing.plans.map((p: { name: string; amount: number | null }) => [p.name, p.amount])).toEqual([
      ["Pro", 59],
      ["Business", 99],
      ["Enterprise", null],
    ]);
    expect(insight.pricing.has_free_plan).toBe(false);
    expect(insight.pricing.recent_moves.length).toBe(3);
    expect(insight.hiring.open_roles).toBeGreaterThan(0);
    expect(insight.product.latest_items.length).toBeGreaterThan(0);
    expect(insight.recent_events).toHaveLength(4);
    expect(Object.keys(insight.recent_events[0]).sort()).toEqual(
      ["confidence_score", "detected_at", "event_type", "id", "severity", "summary", "title"].sort(),
    );
    expect(list.body.competitors[1]).toMatchObject({
      event_count: 0,
      total_sources: 0,
      pricing: {},
      hiring: {},
      product: {},
      profile: {},
    });

    const one = await app.http.get(`/insights/${acme.id}`).set("Authorization", member.bearer).expect(200);
    expect(one.body).toEqual(insight);
  });

  it("answers 200 with the not-found shape for an unknown or foreign competitor", async () => {
    const owner = await createWorkspace(app);
    const stranger = await createWorkspace(app);
    const competitor = await createCompetitor(app, owner);
    const res = await app.http.get(`/insights/${competitor.id}`).set("Authorization", stranger.bearer).expect(200);
    expect(res.body).toEqual({ detail: "Competitor not found", competitor_id: competitor.id });
    await app.http.get("/insights/not-a-uuid").set("Authorization", stranger.bearer).expect(422);
  });
});
