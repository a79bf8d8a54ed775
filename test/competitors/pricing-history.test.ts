/**
 * GET /competitors/{competitor_id}/pricing-history (getCompetitorPricingHistory): step series read from stored
 * snapshots (extracted by the real extractor, diffed by the real differ), linked to the events that reported them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createCompetitor,
  createDiff,
  createEvent,
  createSnapshot,
  createSource,
  createWorkspace,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);
const page = (cards: string) =>
  `<!doctype html><html><head><title>Pricing — Acme</title></head><body><main><h1>Pricing</h1><div class="plans">${cards}</div></main></body></html>`;
const card = (name: string, price: string) =>
  `<div class="plan-card"><h3>${name}</h3><p class="price">${price}</p><ul><li>Feature A</li></ul></div>`;
const PAGES = {
  v1: page(card("Basic", "$10/month") + card("Pro", "$49/month")),
  raised: page(card("Basic", "$10/month") + card("Pro", "$59/month")),
  renamed: page(card("Starter", "$10/month") + card("Pro", "$59/month")),
  promotion: page(card("Starter", "$10/month") + card("Pro", "<s>$59/month</s> $39/month")),
};

/** Stores the pages as successive fetches of one source, with their diffs and the events detection would report. */
async function history(
  member: TestMember,
  sourceId: string,
  steps: { body: string; daysAgo: number; events?: string[] }[],
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  let before: Awaited<ReturnType<typeof createSnapshot>> | null = null;
  for (const step of steps) {
    const after = await createSnapshot(app, member, { sourceId, body: step.body, fetched_at: ago(step.daysAgo) });
    if (before) {
      const diff = await createDiff(app, member, { sourceId, before, after });
      for (const subject of step.events ?? []) {
        const event = await createEvent(app, member, {
          competitorId: (await app.service.services.knex("sources").where({ id: sourceId }).first()).competitor_id,
          source_id: sourceId,
          diff_id: diff.id,
          subject,
          detected_at: ago(step.daysAgo),
        });
        ids[subject] = event.id;
      }
    }
    before = after;
  }
  return ids;
}

describe("GET /competitors/{competitor_id}/pricing-history", () => {
  it("gives each plan a step series, following a rename and showing a promotion, each step linked to its event", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, member);
    const source = await createSource(app, member, { competitorId: competitor.id, source_type: "pricing" });
    // A blog mentioning prices is not a pricing source (docs/product-rules.md#classification).
    const blog = await createSource(app, member, { competitorId: competitor.id, source_type: "blog" });
    await createSnapshot(app, member, { sourceId: blog.id, body: PAGES.v1, fetched_at: ago(3) });
    const events = await history(member, source.id, [
      { body: PAGES.v1, daysAgo: 10 },
      { body: PAGES.raised, daysAgo: 8, events: ["pricing:plan:pro"] },
      { body: PAGES.renamed, daysAgo: 6, events: ["pricing:renamed:basic"] },
      { body: PAGES.promotion, daysAgo: 4, events: ["pricing:plan:pro#promo"] },
    ]);
    // The promotion's event has the same subject as the raise, on another diff: store it as detection does.
    await app.service.services
      .knex("events")
      .where({ id: events["pricing:plan:pro#promo"] })
      .update({ subject: "pricing:plan:pro" });

    const res = await app.http
      .get(`/competitors/${competitor.id}/pricing-history`)
      .set("Authorization", member.bearer)
      .expect(200);
    expect(res.body.competitor_id).toBe(competitor.id);
    expect(new Date(res.body.since).getTime()).toBeCloseTo(ago(365).getTime(), -5);
    const series = res.body.series as any[];
    expect(series.map((s) => [s.key, s.name, s.kind, s.currency, s.source_id])).toEqual([
      ["starter", "Starter", "plan", "USD", source.id],
      ["pro", "Pro", "plan", "USD", source.id],
    ]);
    const [starter, pro] = series;
    expect(starter.id).toBe(`${source.id}:starter`);
    expect(starter.points.map((p: any) => [p.name, p.amount, p.period, p.event_id])).toEqual([
      ["Basic", 10, "month", null],
      ["Starter", 10, "month", events["pricing:renamed:basic"]],
    ]);
    expect(pro.points.map((p: any) => [p.amount, p.promo_amount, p.period, p.listed, p.event_id])).toEqual([
      [49, null, "month", true, null],
      [59, null, "month", true, events["pricing:plan:pro"]],
      [59, 39, "month", true, events["pricing:plan:pro#promo"]],
    ]);
    expect(pro.points.map((p: any) => new Date(p.observed_at).getTime())).toEqual(
      [10, 8, 4].map((d) => expect.closeTo(ago(d).getTime(), -4)),
    );
  });

  it("reads only the plan's history: the state in force when the window opened starts the series, older events are not linked", async () => {
    const member = await createWorkspace(app, { plan: "free" }); // history_days 30
    const competitor = await createCompetitor(app, member);
    const source = await createSource(app, member, { competitorId: competitor.id, source_type: "pricing" });
    const events = await history(member, source.id, [
      { body: PAGES.v1, daysAgo: 60 },
      { body: PAGES.raised, daysAgo: 40, events: ["pricing:plan:pro"] },
      { body: PAGES.renamed, daysAgo: 5, events: ["pricing:renamed:basic"] },
    ]);
    const res = await app.http
      .get(`/competitors/${competitor.id}/pricing-history`)
      .set("Authorization", member.bearer)
      .expect(200);
    const since = res.body.since as string;
    expect(new Date(since).getTime()).toBeCloseTo(ago(30).getTime(), -5);
    const byKey = Object.fromEntries((res.body.series as any[]).map((s) => [s.key, s]));
    // $49 (60 days ago) is gone; $59, raised 40 days ago, is the opening state, without its (unlisted) event.
    expect(byKey.pro.points).toEqual([
      {
        observed_at: since,
        listed: true,
        name: "Pro",
        amount: 59,
        period: "month",
        promo_amount: null,
        is_free: false,
        event_id: null,
      },
    ]);
    expect(byKey.starter.points.map((p: any) => [p.name, p.event_id])).toEqual([
      ["Basic", null],
      ["Starter", events["pricing:renamed:basic"]],
    ]);
    expect(JSON.stringify(res.body)).not.toContain(events["pricing:plan:pro"]);
  });

  it("marks a plan that left the page, and leaves out prices the engine could not name", async () => {
    const member = await createWorkspace(app, { plan: "starter" });
    const competitor = await createCompetitor(app, member);
    const source = await createSource(app, member, { competitorId: competitor.id, source_type: "pricing" });
    const events = await history(member, source.id, [
      { body: PAGES.v1, daysAgo: 3 },
      { body: page(card("Pro", "$49/month") + card("Team", "$99/month")), daysAgo: 2, events: ["pricing:plan:basic"] },
    ]);
    // A price read by its context (origin "context") is stored beside the plans, as the engine stores one.
    await app.service.services.knex.raw(
      `UPDATE snapshots SET extraction = jsonb_set(extraction, '{pricing}', extraction->'pricing' || ?::jsonb)
       WHERE source_id = ?`,
      [
        JSON.stringify([
          {
            key: "context:extra-seats",
            name: "Extra seats",
            amount: 5,
            currency: "USD",
            period: "month",
            is_free: false,
            origin: "context",
            context: "Add-ons › Extra seats",
            features: [],
          },
        ]),
        source.id,
      ],
    );
    const res = await app.http
      .get(`/competitors/${competitor.id}/pricing-history`)
      .set("Authorization", member.bearer)
      .expect(200);
    expect((res.body.series as any[]).map((s) => s.key)).toEqual(["basic", "pro", "team"]);
    const basic = res.body.series[0];
    expect(basic.points.map((p: any) => [p.listed, p.amount, p.event_id])).toEqual([
      [true, 10, null],
      [false, null, events["pricing:plan:basic"]],
    ]);
  });

  it("answers 404 for another workspace's competitor and an empty history without pricing sources", async () => {
    const member = await createWorkspace(app);
    const other = await createWorkspace(app);
    const theirs = await createCompetitor(app, other);
    const source = await createSource(app, other, { competitorId: theirs.id, source_type: "pricing" });
    await history(other, source.id, [{ body: PAGES.v1, daysAgo: 1 }]);
    await app.http.get(`/competitors/${theirs.id}/pricing-history`).set("Authorization", member.bearer).expect(404);
    const mine = await createCompetitor(app, member);
    const res = await app.http
      .get(`/competitors/${mine.id}/pricing-history`)
      .set("Authorization", member.bearer)
      .expect(200);
    expect(res.body.series).toEqual([]);
  });
});
