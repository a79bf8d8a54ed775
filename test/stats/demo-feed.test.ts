/**
 * The public demo feed (docs/product-rules.md#public-stats): the flagged demo workspace's recent events and nothing of
 * any other workspace; the empty payload while none is flagged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createCompetitor,
  createEvent,
  createEvidence,
  createSource,
  createWorkspace,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let admin: TestMember;
let demo: TestMember;
let other: TestMember;
/** The demo workspace's events, newest first. */
let demoEvents: { id: string; title: string }[];
let otherEventTitle: string;

const EMPTY = { competitor_names: [], window_hours: 720, events: [] };
const HOUR = 3600_000;
const ago = (hours: number) => new Date(Date.now() - hours * HOUR);
const knex = () => app.service.services.knex;
const feed = (query = "") => app.http.get(`/stats/feed${query}`);
const grant = (workspaceId: string) =>
  app.http.post("/admin/demo-workspace").set("Authorization", admin.bearer).send({ workspace_id: workspaceId });

beforeAll(async () => {
  app = await startTestApp({ ROLE: "api" });
  admin = await createWorkspace(app, { isAdmin: true });
  demo = await createWorkspace(app, { name: "Demo" });
  other = await createWorkspace(app, { name: "Someone else" });

  const zenith = await createCompetitor(app, demo, { name: "Zenith", domain: "zenith.io" });
  const acme = await createCompetitor(app, demo, { name: "Acme", domain: "acme.com" });
  const pricing = await createSource(app, demo, {
    competitorId: acme.id,
    source_type: "pricing",
    url: "https://www.acme.com/pricing",
  });
  const blog = await createSource(app, demo, {
    competitorId: zenith.id,
    source_type: "rss",
    url: "https://zenith.io/feed.xml",
  });
  // Twelve events an hour apart, newest first: more than the maximum page of 10.
  const specs = Array.from({ length: 12 }, (_, i) => ({
    competitorId: i % 2 === 0 ? acme.id : zenith.id,
    source_id: i % 2 === 0 ? pricing.id : blog.id,
    event_type: i % 2 === 0 ? "pricing_change" : "product_change",
    title: `Demo event ${i}`,
    summary: `Summary of demo event ${i}`,
    detected_at: ago(i + 1),
  }));
  demoEvents = [];
  for (const spec of specs) demoEvents.push({ ...(await createEvent(app, demo, spec)), title: spec.title });

  // Left out: dismissed, and older than the 720-hour window.
  await createEvent(app, demo, {
    competitorId: acme.id,
    title: "Dismissed",
    status: "dismissed",
    detected_at: ago(0.5),
  });
  await createEvent(app, demo, { competitorId: acme.id, title: "Too old", detected_at: ago(721) });

  // Another workspace's events are newer than all of the demo's: none may appear.
  const rival = await createCompetitor(app, other, { name: "Secret Rival", domain: "secret.example" });
  otherEventTitle = "Secret Rival raised Pro to $99/month";
  await createEvent(app, other, { competitorId: rival.id, title: otherEventTitle, detected_at: ago(0.1) });
  await createEvent(app, other, { competitorId: rival.id, title: `${otherEventTitle} (2)`, detected_at: new Date() });
});
afterAll(async () => app?.stop());

describe("GET /stats/feed without a demo workspace", () => {
  it("answers the empty payload, without a token", async () => {
    expect((await feed().expect(200)).body).toEqual(EMPTY);
  });
});

describe("GET /stats/feed with a demo workspace", () => {
  beforeAll(async () => {
    await grant(demo.workspaceId).expect(200);
  });

  it("shows the demo's 4 most recent events by default, with the contract's display fields", async () => {
    const res = await feed().expect(200);
    expect(res.body.competitor_names).toEqual(["Acme", "Zenith"]);
    expect(res.body.window_hours).toBe(720);
    expect(res.body.events.map((e: { id: string }) => e.id)).toEqual(demoEvents.slice(0, 4).map((e) => e.id));
    expect(res.body.events[0]).toEqual({
      id: demoEvents[0]!.id,
      competitor_name: "Acme",
      event_type: "pricing_change",
      severity: "medium",
      confidence: 0.85,
      title: "Demo event 0",
      summary: "Summary of demo event 0",
      tag: "Pricing",
      source_label: "Pricing page · acme.com",
      source_url: "https://www.acme.com/pricing",
      detected_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(res.body.events[1]).toMatchObject({
      competitor_name: "Zenith",
      tag: "Product",
      source_label: "Feed · zenith.io",
      source_url: "https://zenith.io/feed.xml",
    });
  });

  it("takes limit 1 to 10 and never shows dismissed, too old or another workspace's events", async () => {
    expect((await feed("?limit=1").expect(200)).body.events).toHaveLength(1);
    const res = await feed("?limit=10").expect(200);
    expect(res.body.events.map((e: { title: string }) => e.title)).toEqual(demoEvents.slice(0, 10).map((e) => e.title));
    const text = JSON.stringify(res.body);
    for (const hidden of ["Dismissed", "Too old", "Secret Rival", "secret.example", otherEventTitle]) {
      expect(text).not.toContain(hidden);
    }
  });

  it("answers 422 for a limit outside 1–10 or not a number", async () => {
    for (const limit of ["0", "11", "-1", "abc", "2.5"]) {
      const res = await feed(`?limit=${limit}`).expect(422);
      expect(res.body.detail[0].loc).toEqual(["query", "limit"]);
    }
  });

  it("keeps showing an event whose source was deleted, with the evidence's URL", async () => {
    const competitor = await createCompetitor(app, demo, { name: "Beta", domain: "beta.dev" });
    const source = await createSource(app, demo, { competitorId: competitor.id, source_type: "changelog" });
    const event = await createEvent(app, demo, {
      competitorId: competitor.id,
      source_id: source.id,
      event_type: "hiring_change",
      detected_at: new Date(),
    });
    await createEvidence(app, { eventId: event.id, source_url: "https://beta.dev/changelog/v2" });
    await knex()("sources").where({ id: source.id }).delete();
    const res = await feed("?limit=1").expect(200);
    expect(res.body.events[0]).toMatchObject({
      id: event.id,
      tag: "Hiring",
      source_label: "Source · beta.dev",
      source_url: "https://beta.dev/changelog/v2",
    });
    expect(res.body.competitor_names).toEqual(["Acme", "Beta", "Zenith"]);
  });

  it("follows the flag to another workspace, and is empty again once it is cleared", async () => {
    await grant(other.workspaceId).expect(200);
    const moved = await feed().expect(200);
    expect(moved.body.competitor_names).toEqual(["Secret Rival"]);
    expect(moved.body.events.map((e: { title: string }) => e.title)).toEqual([
      `${otherEventTitle} (2)`,
      otherEventTitle,
    ]);
    await app.http.delete("/admin/demo-workspace").set("Authorization", admin.bearer).expect(200);
    expect((await feed().expect(200)).body).toEqual(EMPTY);
  });
});
