/**
 * The hero stat (docs/product-rules.md#public-stats): the median hours from a change's own publication to its
 * detection, over every workspace's events of the last 30 days that carry a publication date; no number below 20
 * samples. Also the detection side: the pipeline stores a feed item's own date as the event's `published_at`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publicationInstant } from "../../src/detection/classify/classify.js";
import { formatHours } from "../../src/stats/service.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { createCompetitor, createEvents, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let site: FixtureSite;
let a: TestMember;
let b: TestMember;
beforeAll(async () => {
  [app, site] = await Promise.all([startTestApp({ ROLE: "api" }), new FixtureSite().start()]);
  [a, b] = await Promise.all([createWorkspace(app), createWorkspace(app)]);
});
afterAll(async () => {
  await app?.stop();
  await site?.stop();
});

const HOUR = 3600_000;
const knex = () => app.service.services.knex;
const hero = () => app.http.get("/stats/hero");

/** Events detected `detectedHoursAgo` ago, each published `latencyHours` before its detection (null: no date). */
async function dated(member: TestMember, latencies: (number | null)[], detectedHoursAgo = 1): Promise<void> {
  const competitor = await createCompetitor(app, member);
  const detectedAt = new Date(Date.now() - detectedHoursAgo * HOUR);
  const rows = await createEvents(
    app,
    member,
    latencies.map(() => ({ competitorId: competitor.id, detected_at: detectedAt })),
  );
  await Promise.all(
    rows.map((row, i) =>
      knex()("events")
        .where({ id: row.id })
        .update({
          published_at: latencies[i] === null ? null : new Date(detectedAt.getTime() - latencies[i]! * HOUR),
        }),
    ),
  );
}

describe("GET /stats/hero", () => {
  it("publishes nothing below 20 samples, not even their number, without a token", async () => {
    await dated(a, [1, 2, 3]);
    const res = await hero().expect(200);
    const nothing = {
      label: "Median time from a competitor's publication to its detection",
      metric: "median_detection_hours",
      value: null,
      median_hours: null,
      sample_size: 0,
      window_days: 30,
    };
    expect(res.body).toEqual(nothing);
    // Another workspace's next event changes nothing a reader can see: its timing stays private.
    await dated(b, [5]);
    expect((await hero().expect(200)).body).toEqual(nothing);
    await knex()("events").where({ workspace_id: b.workspaceId }).delete();
  });

  it("computes the median over every workspace's dated events of the last 30 days", async () => {
    // With a's 1, 2, 3 h: 21 samples across two workspaces, median 4 h (the 11th of 1,2,3,4,4,4,4,4,4,4,4,…).
    await dated(b, [4, 4, 4, 4, 4, 4, 4, 4, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10]);
    // Not counted: undated events (prices, headlines), and events detected before the window.
    await dated(a, [null, null, null]);
    await dated(b, [500, 500, 500, 500, 500], 24 * 31);
    const res = await hero().expect(200);
    // The aggregate only: no workspace, competitor or event is named.
    expect(res.body).toEqual({
      label: "Median time from a competitor's publication to its detection",
      metric: "median_detection_hours",
      value: "4.0 h",
      median_hours: 4,
      sample_size: 21,
      window_days: 30,
    });
  });

  it("interpolates between the two middle samples and counts a publication after the detection as 0", async () => {
    // 22 samples: a's 1, 2, 3; b's eight 4s and ten 10s; and one dated 5 h after its own detection (counted as 0).
    await dated(a, [-5]);
    const res = await hero().expect(200);
    // Sorted: 0, 1, 2, 3, 4×8, 10×10 → the 11th and 12th are 4 and 4.
    expect(res.body).toMatchObject({ median_hours: 4, value: "4.0 h", sample_size: 22 });
    await dated(a, [10, 10]);
    // 24 samples: 0, 1, 2, 3, 4×8 (5th–12th), 10×12 → between the 12th (4) and the 13th (10).
    expect((await hero().expect(200)).body).toMatchObject({ median_hours: 7, value: "7.0 h", sample_size: 24 });
  });
});

describe("formatting the hero number", () => {
  it("writes minutes below an hour, one decimal below 10 hours, whole hours from there", () => {
    expect(formatHours(0)).toBe("1 min");
    expect(formatHours(0.41)).toBe("25 min");
    expect(formatHours(0.999)).toBe("1.0 h");
    expect(formatHours(3.24)).toBe("3.2 h");
    expect(formatHours(9.96)).toBe("10 h");
    expect(formatHours(14.4)).toBe("14 h");
    expect(formatHours(170.5)).toBe("171 h");
  });
});

describe("the publication date detection stores", () => {
  it("reads a feed's timestamp as stated and a page's calendar day as 00:00 UTC", () => {
    expect(publicationInstant("2026-11-30T16:00:00.000Z")).toBe("2026-11-30T16:00:00.000Z");
    expect(publicationInstant("2026-12-02")).toBe("2026-12-02T00:00:00.000Z");
    expect(publicationInstant(null)).toBeNull();
  });

  it("stores a new RSS item's pubDate as the event's published_at", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, member, { name: "Heliolytics", domain: "heliolytics.test" });
    site.serveFixture("/hero/feed.xml", "feed-v1.xml");
    const created = await app.http
      .post(`/competitors/${competitor.id}/sources`)
      .set("Authorization", member.bearer)
      .send({ url: site.url("/hero/feed.xml"), source_type: "rss", fetch_method: "rss" })
      .expect(201);
    const sourceId: string = created.body.id;
    await app.service.pipeline.fetchSource(sourceId);
    site.serveFixture("/hero/feed.xml", "feed-v2.xml");
    expect(await app.service.pipeline.fetchSource(sourceId)).toMatchObject({ kind: "changed", events: 1 });
    const stored = await knex()("events")
      .where({ workspace_id: member.workspaceId })
      .select("observed_at", "published_at");
    // feed-v2.xml's new item: <pubDate>Mon, 30 Nov 2026 16:00:00 GMT</pubDate>; observed_at stays the fetch.
    expect(stored).toHaveLength(1);
    expect(stored[0]!.published_at).toEqual(new Date("2026-11-30T16:00:00Z"));
    expect(stored[0]!.observed_at).not.toEqual(stored[0]!.published_at);
  });
});
