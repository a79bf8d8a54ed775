import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCompetitor, createEvent, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const daysAgo = (days: number) => new Date(Date.now() - days * 86400_000);

describe("GET /events", () => {
  it("lists the workspace's events newest first with offset/limit pagination", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, member);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (await createEvent(app, member, { competitorId: competitor.id, detected_at: daysAgo(i), title: `Event ${i}` }))
          .id,
      );
    const all = await app.http.get("/events").set("Authorization", member.bearer).expect(200);
    expect(all.body.map((e: { id: string }) => e.id)).toEqual(ids);
    expect(all.body[0]).toMatchObject({
      competitor_id: competitor.id,
      status: "new",
      tags_json: ["pricing"],
      is_inferred: false,
    });
    const page = await app.http.get("/events?offset=1&limit=2").set("Authorization", member.bearer).expect(200);
    expect(page.body.map((e: { id: string }) => e.id)).toEqual(ids.slice(1, 3));
  });

  it("applies every filter, with inclusive thresholds and a literal case-insensitive search", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const acme = await createCompetitor(app, member);
    const globex = await createCompetitor(app, member, { name: "Globex", domain: "globex.com" });
    const a = await createEvent(app, member, {
      competitorId: acme.id,
      severity: "high",
      confidence_score: 0.9,
      title: "Acme raised Pro to $59",
    });
    const b = await createEvent(app, member, {
      competitorId: globex.id,
      event_type: "hiring_change",
      severity: "low",
      confidence_score: 0.5,
      title: "Globex opened 3 roles",
      summary: "100% remote",
    });
    await createEvent(app, member, {
      competitorId: acme.id,
      severity: "medium",
      confidence_score: 0.7,
      detected_at: daysAgo(10),
      title: "Old news",
    });
    const get = async (query: string) =>
      (await app.http.get(`/events?${query}`).set("Authorization", member.bearer).expect(200)).body.map(
        (e: { id: string }) => e.id,
      );
    expect(await get(`competitor_id=${globex.id}`)).toEqual([b.id]);
    expect(await get("event_type=hiring_change")).toEqual([b.id]);
    expect(await get("severity=high")).toEqual([a.id]);
    expect(await get("min_confidence=0.9")).toEqual([a.id]);
    expect(await get("search=RAISED")).toEqual([a.id]);
    expect(await get("search=100%25")).toEqual([b.id]);
    expect(await get("search=%25")).toEqual([b.id]); // `%` is matched literally, not as a wildcard
    expect(await get(`since=${encodeURIComponent(daysAgo(1).toISOString())}`)).toHaveLength(2);
    expect(await get(`competitor_id=${acme.id}&severity=high&min_confidence=0.5`)).toEqual([a.id]);
  });

  it("hides events older than the plan's history_days", async () => {
    const member = await createWorkspace(app, { plan: "free" }); // 30 days
    const competitor = await createCompetitor(app, member);
    const recent = await createEvent(app, member, { competitorId: competitor.id, detected_at: daysAgo(29) });
    const old = await createEvent(app, member, { competitorId: competitor.id, detected_at: daysAgo(31) });
    const res = await app.http.get("/events").set("Authorization", member.bearer).expect(200);
    expect(res.body.map((e: { id: string }) => e.id)).toEqual([recent.id]);
    await app.http.get(`/events/${old.id}`).set("Authorization", member.bearer).expect(404);
  });

  it("answers 422 for a limit above 200, a bad enum, a bad date and a non-UUID competitor", async () => {
    const member = await createWorkspace(app);
    for (const [query, loc] of [
      ["limit=201", "limit"],
      ["limit=0", "limit"],
      ["offset=-1", "offset"],
      ["severity=urgent", "severity"],
      ["since=yesterday", "since"],
      ["min_confidence=2", "min_confidence"],
      ["competitor_id=acme", "competitor_id"],
    ]) {
      const res = await app.http.get(`/events?${query}`).set("Authorization", member.bearer).expect(422);
      expect(res.body.detail[0].loc, query).toEqual(["query", loc]);
    }
  });

  it("never shows another workspace's events", async () => {
    const owner = await createWorkspace(app);
    const stranger = await createWorkspace(app);
    const competitor = await createCompetitor(app, owner);
    const event = await createEvent(app, owner, { competitorId: competitor.id });
    expect((await app.http.get("/events").set("Authorization", stranger.bearer).expect(200)).body).toEqual([]);
    await app.http.get(`/events/${event.id}`).set("Authorization", stranger.bearer).expect(404);
    await app.http
      .patch(`/events/${event.id}/status?status=dismissed`)
      .set("Authorization", stranger.bearer)
      .expect(404);
  });
});

describe("GET /events/{id} and PATCH /events/{id}/status", () => {
  it("shows null source_url and diff_json when the source and diff are gone", async () => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member);
    const event = await createEvent(app, member, { competitorId: competitor.id });
    const res = await app.http.get(`/events/${event.id}`).set("Authorization", member.bearer).expect(200);
    expect(res.body).toMatchObject({ competitor_name: "Acme", diff_json: null, evidence: [], source_url: null });
    expect(res.body.event.id).toBe(event.id);
  });

  it("sets any status from any other and rejects unknown ones", async () => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member);
    const event = await createEvent(app, member, { competitorId: competitor.id });
    for (const status of ["acknowledged", "dismissed", "dismissed", "new"]) {
      const res = await app.http
        .patch(`/events/${event.id}/status?status=${status}`)
        .set("Authorization", member.bearer)
        .expect(200);
      expect(res.body).toEqual({ id: event.id, status, learned_rule_ids: [] });
    }
    await app.http.patch(`/events/${event.id}/status?status=archived`).set("Authorization", member.bearer).expect(422);
    await app.http.patch(`/events/${event.id}/status`).set("Authorization", member.bearer).expect(422);
  });
});

describe("GET /events/activity", () => {
  it("keys every competitor by id, with markers of only detected_at and severity, oldest first", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const busy = await createCompetitor(app, member);
    const quiet = await createCompetitor(app, member, { name: "Quiet", domain: "quiet.com" });
    await createEvent(app, member, { competitorId: busy.id, detected_at: daysAgo(2), severity: "high" });
    await createEvent(app, member, { competitorId: busy.id, detected_at: daysAgo(1), severity: "low" });
    await createEvent(app, member, { competitorId: busy.id, detected_at: daysAgo(40), severity: "critical" });
    const res = await app.http.get("/events/activity").set("Authorization", member.bearer).expect(200);
    expect(res.body.days).toBe(30);
    expect(Object.keys(res.body.competitors).sort()).toEqual([busy.id, quiet.id].sort());
    expect(res.body.competitors[quiet.id]).toEqual([]);
    expect(res.body.competitors[busy.id].map((m: { severity: string }) => m.severity)).toEqual(["high", "low"]);
    expect(Object.keys(res.body.competitors[busy.id][0]).sort()).toEqual(["detected_at", "severity"]);
    const wide = await app.http.get("/events/activity?days=90").set("Authorization", member.bearer).expect(200);
    expect(wide.body.competitors[busy.id]).toHaveLength(3);
    await app.http.get("/events/activity?days=91").set("Authorization", member.bearer).expect(422);
  });
});
