/**
 * What one tenant can make the service store: at most 50 sources per competitor, and snapshots only for the plan's
 * history (docs/product-rules.md#competitors-and-sources).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SOURCES_PER_COMPETITOR } from "../../src/sources/service.js";
import { pruneExpiredSnapshots } from "../../src/sources/retention.js";
import {
  createCompetitor,
  createDiff,
  createSnapshot,
  createSource,
  createWorkspace,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

const DAY_MS = 24 * 3600 * 1000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

describe("sources per competitor", () => {
  let app: TestApp;
  let owner: TestMember;

  beforeAll(async () => {
    app = await startTestApp();
    owner = await createWorkspace(app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers 403 for the source beyond the 50th of a competitor, and adds it once one is deleted", async () => {
    const competitor = await createCompetitor(app, owner);
    const existing = [];
    for (let i = 0; i < MAX_SOURCES_PER_COMPETITOR; i++) {
      existing.push(await createSource(app, owner, { competitorId: competitor.id, url: `https://acme.com/page-${i}` }));
    }
    const refused = await app.http
      .post(`/competitors/${competitor.id}/sources`)
      .set("authorization", owner.bearer)
      .send({ url: "https://acme.com/one-more", source_type: "blog" });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain(`at most ${MAX_SOURCES_PER_COMPETITOR} sources`);

    await app.http.delete(`/sources/${existing[0]!.id}`).set("authorization", owner.bearer).expect(204);
    await app.http
      .post(`/competitors/${competitor.id}/sources`)
      .set("authorization", owner.bearer)
      .send({ url: "https://acme.com/one-more", source_type: "blog" })
      .expect(201);
  });

  it("lets concurrent additions together reach the limit but not pass it", async () => {
    const competitor = await createCompetitor(app, owner);
    for (let i = 0; i < MAX_SOURCES_PER_COMPETITOR - 2; i++) {
      await createSource(app, owner, { competitorId: competitor.id, url: `https://acme.com/p-${i}` });
    }
    const statuses = await Promise.all(
      [1, 2, 3, 4, 5].map(async (i) => {
        const res = await app.http
          .post(`/competitors/${competitor.id}/sources`)
          .set("authorization", owner.bearer)
          .send({ url: `https://acme.com/racing-${i}`, source_type: "blog" });
        return res.status;
      }),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(2);
    expect(statuses.filter((s) => s === 403)).toHaveLength(3);
    const list = await app.http.get(`/competitors/${competitor.id}/sources`).set("authorization", owner.bearer);
    expect(list.body).toHaveLength(MAX_SOURCES_PER_COMPETITOR);
  });
});

describe("snapshot retention", () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("deletes snapshots older than the plan's history but keeps each source's newest", async () => {
    const knex = app.service.services.knex;
    const free = await createWorkspace(app, { plan: "free" }); // history_days 30
    const growth = await createWorkspace(app, { plan: "growth" }); // history_days 365
    const freeSource = await createSource(app, free, { competitorId: (await createCompetitor(app, free)).id });
    const growthSource = await createSource(app, growth, { competitorId: (await createCompetitor(app, growth)).id });
    const quietSource = await createSource(app, free, { competitorId: (await createCompetitor(app, free)).id });

    const freeOld = await createSnapshot(app, free, {
      sourceId: freeSource.id,
      fetched_at: daysAgo(40),
      body: "<p>a</p>",
    });
    const freeMiddle = await createSnapshot(app, free, {
      sourceId: freeSource.id,
      fetched_at: daysAgo(35),
      body: "<p>b</p>",
    });
    const freeRecent = await createSnapshot(app, free, {
      sourceId: freeSource.id,
      fetched_at: daysAgo(5),
      body: "<p>c</p>",
    });
    const oldDiff = await createDiff(app, free, { sourceId: freeSource.id, before: freeOld, after: freeMiddle });
    const growthOld = await createSnapshot(app, growth, { sourceId: growthSource.id, fetched_at: daysAgo(40) });
    await createSnapshot(app, growth, { sourceId: growthSource.id, fetched_at: daysAgo(1), body: "<p>new</p>" });
    // A page that has not changed for a year: its only snapshot is what the next fetch compares with.
    const quietOnly = await createSnapshot(app, free, { sourceId: quietSource.id, fetched_at: daysAgo(400) });

    expect(await pruneExpiredSnapshots(knex)).toBe(2);
    const left = new Set((await knex("snapshots").select("id")).map((r: { id: string }) => r.id));
    expect(left.has(freeOld.id)).toBe(false);
    expect(left.has(freeMiddle.id)).toBe(false);
    expect(left.has(freeRecent.id)).toBe(true);
    expect(left.has(growthOld.id)).toBe(true);
    expect(left.has(quietOnly.id)).toBe(true);
    expect(await knex("diffs").where({ id: oldDiff.id }).first()).toBeUndefined();
    // Idempotent: a second run finds nothing more.
    expect(await pruneExpiredSnapshots(knex)).toBe(0);
  });
});
