/**
 * GET /events/{event_id}/screenshot (getEventScreenshot): the PNG of a rendered change's evidence, stored in an
 * S3-compatible bucket (a fake S3 on 127.0.0.1 checking every signature, test/fakes/s3.ts) by detection and served to
 * the event's workspace only; 404 without a screenshot or for another workspace, 401 without a token, 422 for a
 * malformed id. Every response is checked against the contract.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeS3 } from "../fakes/s3.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { serveJsPricing } from "../fakes/js-pricing-site.js";
import {
  createCompetitor,
  createDetectedEvent,
  createSource,
  createWorkspace,
  type TestMember,
} from "../setup/factories.js";
import { chromiumEnv } from "../setup/browser.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

const PNG_SIGNATURE = "89504e470d0a1a0a";

let app: TestApp;
let site: FixtureSite;
let s3: FakeS3;
let owner: TestMember;
let rise: { id: string };

beforeAll(async () => {
  [site, s3] = await Promise.all([
    new FixtureSite().start(),
    new FakeS3("evidence", "AKIAFAKE", "fake-secret", "eu-west-1").start(),
  ]);
  app = await startTestApp({
    ASSET_S3_ENDPOINT: s3.baseUrl,
    ASSET_S3_BUCKET: "evidence",
    ASSET_S3_REGION: "eu-west-1",
    ASSET_S3_ACCESS_KEY_ID: "AKIAFAKE",
    ASSET_S3_SECRET_ACCESS_KEY: "fake-secret",
    ...chromiumEnv(),
  });
  // A browser source whose Pro plan goes from $49 to $59 between two fetches.
  owner = await createWorkspace(app, { plan: "growth" });
  const competitor = await createCompetitor(app, owner, { name: "Acme", domain: "acme.test" });
  const page = serveJsPricing(site, "/acme", 1);
  const source = await app.http
    .post(`/competitors/${competitor.id}/sources`)
    .set("Authorization", owner.bearer)
    .send({ source_type: "pricing", url: site.url(page), fetch_method: "browser" })
    .expect(201);
  expect(await app.service.pipeline.fetchSource(source.body.id)).toMatchObject({ kind: "changed" });
  serveJsPricing(site, "/acme", 2);
  expect(await app.service.pipeline.fetchSource(source.body.id)).toMatchObject({ kind: "changed" });
  const events = await app.http.get("/events").set("Authorization", owner.bearer).expect(200);
  rise = events.body.find((e: { title: string }) => e.title === "Acme raised Pro from $49 to $59/month");
  expect(rise, JSON.stringify(events.body)).toBeDefined();
});

afterAll(async () => {
  await app?.stop();
  await site?.stop();
  await s3?.stop();
});

const screenshotOf = (eventId: string, member: TestMember) =>
  app.http.get(`/events/${eventId}/screenshot`).set("Authorization", member.bearer);

describe("getEventScreenshot", () => {
  it("serves the PNG of the changed region that detection stored in the bucket", async () => {
    const detail = await app.http.get(`/events/${rise.id}`).set("Authorization", owner.bearer).expect(200);
    const evidence = detail.body.evidence.find((e: { evidence_type: string }) => e.evidence_type === "screenshot");
    expect(evidence.asset_object_key).toMatch(/^screenshots\/.+\.png$/);

    const res = await screenshotOf(rise.id, owner).buffer(true).expect(200);
    expect(res.headers["content-type"]).toBe("image/png");
    const body = res.body as Buffer;
    expect(body.subarray(0, 8).toString("hex")).toBe(PNG_SIGNATURE);
    expect(body.equals(s3.objects.get(evidence.asset_object_key)!.body)).toBe(true);
    expect(evidence.metadata_json.bytes).toBe(body.length);
  });

  it("keeps in the bucket only the screenshots stored events use", async () => {
    const { rows } = await app.service.services.knex.raw(
      "SELECT DISTINCT asset_object_key FROM evidence WHERE asset_object_key IS NOT NULL",
    );
    expect([...s3.objects.keys()].sort()).toEqual(
      rows.map((r: { asset_object_key: string }) => r.asset_object_key).sort(),
    );
  });

  it("answers 404 for an event without a screenshot", async () => {
    const competitor = await createCompetitor(app, owner, { name: "Globex", domain: "globex.test" });
    const source = await createSource(app, owner, { competitorId: competitor.id, url: "https://globex.test/pricing" });
    const event = await createDetectedEvent(app, owner, { source_id: source.id, competitorId: competitor.id });
    const res = await screenshotOf(event.id, owner).expect(404);
    expect(res.body).toEqual({ detail: "Screenshot not found" });
  });

  it("answers 404 for another workspace's event, and 401 without a token", async () => {
    const stranger = await createWorkspace(app, { plan: "growth" });
    expect((await screenshotOf(rise.id, stranger).expect(404)).body).toEqual({ detail: "Screenshot not found" });
    await app.http.get(`/events/${rise.id}/screenshot`).expect(401);
  });

  it("answers 404 when the file is gone from the bucket, and 422 for a malformed id", async () => {
    const detail = await app.http.get(`/events/${rise.id}`).set("Authorization", owner.bearer).expect(200);
    const key = detail.body.evidence.find((e: { evidence_type: string }) => e.evidence_type === "screenshot")
      .asset_object_key as string;
    const saved = s3.objects.get(key)!;
    s3.objects.delete(key);
    try {
      await screenshotOf(rise.id, owner).expect(404);
    } finally {
      s3.objects.set(key, saved);
    }
    await app.http.get("/events/not-a-uuid/screenshot").set("Authorization", owner.bearer).expect(422);
  });
});
