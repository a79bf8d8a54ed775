/**
 * Partner monitors, their health from real fetch outcomes, and the live digest (docs/product-rules.md#partner-api).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixtureSite } from "../fakes/fixture-site.js";
import {
  createCompetitor,
  createEvent,
  createSource,
  createWorkspace,
  type EventFields,
  type TestMember,
} from "../setup/factories.js";
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

const knex = () => app.service.services.knex;
let partner: TestMember;
let stranger: TestMember;
beforeAll(async () => {
  [partner, stranger] = await Promise.all([
    createWorkspace(app, { plan: "growth" }),
    createWorkspace(app, { plan: "growth" }),
  ]);
});

async function child(email: string): Promise<string> {
  const res = await app.http
    .post("/v1/workspaces")
    .set("Authorization", partner.bearer)
    .send({ company_name: email.split("@")[1], customer_email: email })
    .expect(201);
  return res.body.id;
}
const register = (workspaceId: string, body: Record<string, unknown>, caller = partner) =>
  app.http
    .post(`/v1/workspaces/${workspaceId}/monitors`)
    .set("Authorization", caller.bearer)
    .send({ workspace_id: workspaceId, ...body });
const health = (workspaceId: string, caller = partner) =>
  app.http.get(`/v1/workspaces/${workspaceId}/monitors/health`).set("Authorization", caller.bearer);
const digest = (workspaceId: string, period?: string, caller = partner) =>
  app.http
    .get(`/v1/workspaces/${workspaceId}/digest${period ? `?period=${period}` : ""}`)
    .set("Authorization", caller.bearer);

describe("POST /v1/workspaces/{id}/monitors", () => {
  it("creates a monitor with the defaults, then returns the same one updated field by field", async () => {
    const ws = await child("monitors@one.example");
    const created = await register(ws, { monitor_type: "social", config_json: { keywords: ["acme"] } }).expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      workspace_id: ws,
      monitor_type: "social",
      label: null,
      cadence: "daily",
      enabled: true,
      config_json: { keywords: ["acme"] },
      last_event_at: null,
      last_run_at: null,
    });
    const id = created.body.id;

    const labelled = await register(ws, { monitor_type: "social", label: "Mentions", cadence: "hourly" }).expect(201);
    expect(labelled.body).toMatchObject({ id, label: "Mentions", cadence: "hourly", enabled: true });
    // Absent fields are unchanged; config_json applies only on creation.
    const disabled = await register(ws, { monitor_type: "social", enabled: false, config_json: { x: 1 } }).expect(201);
    expect(disabled.body).toMatchObject({ id, label: "Mentions", cadence: "hourly", enabled: false });
    expect(disabled.body.config_json).toEqual({ keywords: ["acme"] });
    // `null` clears the label and leaves cadence and enabled as they are.
    const cleared = await register(ws, { monitor_type: "social", label: null, cadence: null, enabled: null }).expect(
      201,
    );
    expect(cleared.body).toMatchObject({ id, label: null, cadence: "hourly", enabled: false });
    // The firehose reads these two columns of the social and news monitors.
    expect(await knex()("partner_monitors").where({ id }).first("cadence", "enabled")).toEqual({
      cadence: "hourly",
      enabled: false,
    });
  });

  it("keeps one monitor per type, concurrent registrations included, so at most eight", async () => {
    const ws = await child("monitors@two.example");
    const types = ["pricing", "product", "hiring", "narrative", "news", "social", "reviews", "funding"];
    const answers = await Promise.all([...types, ...types].map((type) => register(ws, { monitor_type: type })));
    expect(answers.every((res) => res.status === 201)).toBe(true);
    const rows = await knex()("partner_monitors").where({ workspace_id: ws });
    expect(rows.map((row) => row.monitor_type).sort()).toEqual([...types].sort());
    for (const type of types) {
      const ids = new Set(answers.filter((res) => res.body.monitor_type === type).map((res) => res.body.id));
      expect(ids.size).toBe(1);
    }
  });

  it("answers 422 for an unknown type or cadence, or a body naming another workspace", async () => {
    const ws = await child("monitors@three.example");
    const res = await register(ws, { monitor_type: "weather", cadence: "yearly" }).expect(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual(
      expect.arrayContaining(["body.monitor_type", "body.cadence"]),
    );
    const mismatch = await app.http
      .post(`/v1/workspaces/${ws}/monitors`)
      .set("Authorization", partner.bearer)
      .send({ workspace_id: partner.workspaceId, monitor_type: "pricing" })
      .expect(422);
    expect(mismatch.body.detail[0].loc).toEqual(["body", "workspace_id"]);
  });

  it("answers 404 for a workspace the caller cannot reach, leaving it untouched, and 403 without api_access", async () => {
    const ws = await child("monitors@four.example");
    await register(ws, { monitor_type: "pricing" }, stranger).expect(404);
    await register(stranger.workspaceId, { monitor_type: "pricing" }).expect(404);
    expect(await knex()("partner_monitors").where({ workspace_id: stranger.workspaceId })).toEqual([]);
    const free = await createWorkspace(app, { plan: "free" });
    await register(free.workspaceId, { monitor_type: "pricing" }, free).expect(403);
  });
});

describe("GET /v1/workspaces/{id}/monitors/health", () => {
  let ws: string;
  beforeAll(async () => {
    ws = await child("health@acme-watch.example");
    const acme = await createCompetitor(app, { workspaceId: ws }, { name: "Acme", domain: "127.0.0.1" });
    site.serveFixture("/pricing", "pricing-v1.html").set("/careers", { status: 404, body: "gone" });
    const pricing = await createSource(
      app,
      { workspaceId: ws },
      {
        competitorId: acme.id,
        url: site.url("/pricing"),
        source_type: "pricing",
      },
    );
    const careers = await createSource(
      app,
      { workspaceId: ws },
      {
        competitorId: acme.id,
        url: site.url("/careers"),
        source_type: "careers",
      },
    );
    await createSource(
      app,
      { workspaceId: ws },
      {
        competitorId: acme.id,
        url: site.url("/changelog"),
        source_type: "changelog",
      },
    );
    // Real fetches through the detection pipeline: the pricing page is read twice (the second time changed, which
    // makes pricing events), the careers page fails twice, the changelog was never fetched.
    const detection = app.service.services.detection;
    await detection.fetchSource(pricing.id);
    site.serveFixture("/pricing", "pricing-v2.html");
    expect(await detection.fetchSource(pricing.id)).toMatchObject({ kind: "changed" });
    for (let i = 0; i < 2; i++) expect(await detection.fetchSource(careers.id)).toMatchObject({ kind: "failed" });
    const monitors = [
      ["pricing", true],
      ["hiring", true],
      ["narrative", false],
      ["social", true],
      ["product", true],
    ] as const;
    await Promise.all(monitors.map(([monitor_type, enabled]) => register(ws, { monitor_type, enabled }).expect(201)));
    // Real fetches start the parse pool's worker threads: seconds on an idle machine, more on a loaded one.
  }, 120_000);

  it("derives each monitor's state from the recorded outcomes of the fetches of its sources", async () => {
    const res = await health(ws).expect(200);
    const pricingRun = await knex()("sources").where({ workspace_id: ws, source_type: "pricing" }).first();
    const pricingEvents = await knex()("events").where({ workspace_id: ws, event_type: "pricing_change" });
    expect(pricingEvents.length).toBeGreaterThan(0);
    const lastPricing = new Date(Math.max(...pricingEvents.map((e) => new Date(e.detected_at).getTime())));
    const monitorIds = Object.fromEntries(
      (await knex()("partner_monitors").where({ workspace_id: ws })).map((m) => [m.monitor_type, m.id]),
    );
    const runLabel = `${new Date(pricingRun.last_fetched_at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
    const n = pricingEvents.length;

    expect(res.body.map((item: { monitor_type: string }) => item.monitor_type)).toEqual([
      "pricing",
      "product",
      "hiring",
      "narrative",
      "social",
    ]);
    const [pricing, product, hiring, narrative, social] = res.body;
    expect(pricing).toEqual({
      monitor_id: monitorIds.pricing,
      monitor_type: "pricing",
      healthy: true,
      consecutive_failures: 0,
      events_24h: n,
      last_event_at: lastPricing.toISOString(),
      last_run_at: new Date(pricingRun.last_fetched_at).toISOString(),
      status_text: `Healthy: 1 source checked, last at ${runLabel}; ${n} event${n === 1 ? "" : "s"} in the last 24 hours.`,
    });
    expect(product).toMatchObject({
      healthy: true,
      consecutive_failures: 0,
      events_24h: 0,
      last_run_at: null,
      status_text: "Scheduled: 1 source waits for its first check.",
    });
    expect(hiring).toMatchObject({ healthy: false, consecutive_failures: 2, events_24h: 0, last_event_at: null });
    expect(hiring.last_run_at).not.toBeNull();
    expect(hiring.status_text).toMatch(
      new RegExp(
        `^Failing: 1 source is not being read; latest error on ${site.url("/careers")}: HTTP 404 .*\\(2 failed checks in a row\\)\\.$`,
      ),
    );
    // Narrative is fed by the pricing page too (its runs count) but is disabled.
    expect(narrative).toMatchObject({
      healthy: false,
      last_run_at: new Date(pricingRun.last_fetched_at).toISOString(),
      status_text: "Paused: the Narrative monitor is disabled, so it lists no events.",
    });
    expect(social).toMatchObject({
      healthy: false,
      consecutive_failures: 0,
      last_run_at: null,
      status_text: "Waiting for sources: no active social source is tracked for this workspace's competitors yet.",
    });
  });

  it("shows a monitor's timestamps when it is registered again", async () => {
    const res = await register(ws, { monitor_type: "pricing" }).expect(201);
    const [item] = (await health(ws).expect(200)).body;
    expect(res.body).toMatchObject({ last_event_at: item.last_event_at, last_run_at: item.last_run_at });
    expect(res.body.last_run_at).not.toBeNull();
  });

  it("turns healthy again once the failing source's next fetch succeeds", async () => {
    site.serveFixture("/careers", "pricing-v1.html");
    const careers = await knex()("sources").where({ workspace_id: ws, source_type: "careers" }).first("id");
    await app.service.services.detection.fetchSource(careers.id);
    const hiring = (await health(ws).expect(200)).body.find(
      (m: { monitor_type: string }) => m.monitor_type === "hiring",
    );
    expect(hiring).toMatchObject({ healthy: true, consecutive_failures: 0 });
    expect(hiring.status_text).toMatch(/^Healthy: 1 source checked/);
  });

  it("lists nothing for a workspace without monitors, 404 for an unreachable one, 403 without api_access", async () => {
    expect((await health(await child("health@none.example")).expect(200)).body).toEqual([]);
    await health(ws, stranger).expect(404);
    const free = await createWorkspace(app, { plan: "starter" });
    await health(free.workspaceId, free).expect(403);
  });
});

describe("GET /v1/workspaces/{id}/digest", () => {
  let ws: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    ws = await child("digest@globex.example");
    const member = { workspaceId: ws };
    const acme = await createCompetitor(app, member, { name: "Acme" });
    const initech = await createCompetitor(app, member, { name: "Initech [beta]" });
    const pricing = await createSource(app, member, {
      competitorId: acme.id,
      url: "https://acme.example/pricing",
      source_type: "pricing",
    });
    const news = await createSource(app, member, {
      competitorId: initech.id,
      url: "https://news.example/initech (story)",
      source_type: "news",
    });
    await Promise.all([
      ...["pricing", "product", "narrative", "news", "funding"].map((monitor_type) =>
        register(ws, { monitor_type }).expect(201),
      ),
      register(ws, { monitor_type: "hiring", enabled: false }).expect(201),
    ]);
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
    const make = async (key: string, fields: Omit<EventFields, "competitorId"> & { competitorId?: string }) => {
      ids[key] = (await createEvent(app, member, { competitorId: acme.id, ...fields })).id;
    };
    await make("priceHigh", {
      severity: "high",
      source_id: pricing.id,
      title: "Acme raised *Pro* to $59",
      detected_at: hoursAgo(2),
    });
    await make("priceLow", {
      severity: "low",
      source_id: pricing.id,
      title: "Acme trims Starter",
      detected_at: hoursAgo(1),
    });
    await make("story", {
      competitorId: initech.id,
      event_type: "narrative_change",
      severity: "medium",
      source_id: news.id,
      title: "Initech repositions as an AI company",
      detected_at: hoursAgo(3),
    });
    await make("round", {
      competitorId: initech.id,
      event_type: "product_change",
      severity: "critical",
      title: "Initech raises a Series B",
      detected_at: hoursAgo(4),
    });
    await knex()("events")
      .where({ id: ids.round })
      .update({ tags_json: JSON.stringify(["product", "funding"]) });
    await make("dismissed", { severity: "critical", status: "dismissed", detected_at: hoursAgo(1) });
    await make("hiring", { event_type: "hiring_change", severity: "high", detected_at: hoursAgo(1) });
    await make("lastWeek", { severity: "medium", title: "Acme adds a Team plan", detected_at: hoursAgo(72) });
    await make("tooOld", { severity: "medium", detected_at: hoursAgo(24 * 8) });
  });

  it("synthesizes the last 24 hours from the enabled monitors' events, grouped by monitor type", async () => {
    const before = Date.now();
    const res = await digest(ws).expect(200);
    const body = res.body;
    const end = new Date(body.period_end);
    expect(end.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(end.getTime() - new Date(body.period_start).getTime()).toBe(86_400_000);
    expect(body.period_key).toBe(end.toISOString().slice(0, 10));
    expect(body.workspace_id).toBe(ws);
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Distinct events: the dismissed one, the disabled monitor's and the older ones are left out.
    expect(body.event_count).toBe(4);
    expect(body.sections.map((s: { monitor_type: string }) => s.monitor_type)).toEqual([
      "pricing",
      "product",
      "narrative",
      "news",
      "funding",
    ]);
    const section = (type: string) => body.sections.find((s: { monitor_type: string }) => s.monitor_type === type);
    expect(section("pricing")).toEqual({
      monitor_type: "pricing",
      heading: "Pricing",
      highlight_event_ids: [ids.priceHigh, ids.priceLow],
      body_markdown: [
        "2 changes from 1 competitor: 1 high and 1 low.",
        "",
        "- **High** · Acme · [Acme raised \\*Pro\\* to $59](https://acme.example/pricing) — The Pro plan now costs $59 per month instead of $49.",
        "- **Low** · Acme · [Acme trims Starter](https://acme.example/pricing) — The Pro plan now costs $59 per month instead of $49.",
      ].join("\n"),
    });
    // One event under two types (narrative, and news by its source); names and URLs are escaped for markdown.
    expect(section("news").highlight_event_ids).toEqual([ids.story]);
    expect(section("news").body_markdown).toContain(
      "- **Medium** · Initech \\[beta\\] · [Initech repositions as an AI company](https://news.example/initech%20%28story%29)",
    );
    expect(section("narrative").highlight_event_ids).toEqual([ids.story]);
    expect(section("funding").highlight_event_ids).toEqual([ids.round]);
    expect(section("product").highlight_event_ids).toEqual([ids.round]);
    expect(body.summary_markdown).toBe(
      [
        `**4 changes** in the last 24 hours (to ${end.toISOString().slice(0, 16).replace("T", " ")} UTC), from Acme (2) and Initech \\[beta\\] (2).`,
        "",
        "By severity: 1 critical, 1 high, 1 medium and 1 low. By monitor: Pricing 2 · Product 1 · Narrative 1 · News 1 · Funding 1.",
      ].join("\n"),
    );
    // Every highlight is an event of the workspace.
    const highlighted = body.sections.flatMap((s: { highlight_event_ids: string[] }) => s.highlight_event_ids);
    const found = await knex()("events").whereIn("id", highlighted).where({ workspace_id: ws }).pluck("id");
    expect(new Set(found)).toEqual(new Set(highlighted));
  });

  it("covers 7 days with an ISO week key, and keeps a stable id for the period", async () => {
    const weekly = (await digest(ws, "weekly").expect(200)).body;
    expect(weekly.period_key).toMatch(/^\d{4}-W\d{2}$/);
    expect(new Date(weekly.period_end).getTime() - new Date(weekly.period_start).getTime()).toBe(7 * 86_400_000);
    expect(weekly.event_count).toBe(5);
    expect(weekly.sections[0].highlight_event_ids).toEqual([ids.priceHigh, ids.lastWeek, ids.priceLow]);
    expect((await digest(ws, "weekly").expect(200)).body.id).toBe(weekly.id);
    expect((await digest(ws).expect(200)).body.id).not.toBe(weekly.id);
  });

  it("says so when nothing happened, without reading stored digests", async () => {
    const quiet = await child("digest@quiet.example");
    await register(quiet, { monitor_type: "pricing" }).expect(201);
    const body = (await digest(quiet).expect(200)).body;
    expect(body.event_count).toBe(0);
    expect(body.sections).toEqual([]);
    expect(body.summary_markdown).toMatch(/^No changes were detected in the last 24 hours \(to .* UTC\)\.$/);
  });

  it("answers 422 for an unknown period, 404 for an unreachable workspace, 403 without api_access", async () => {
    await digest(ws, "monthly").expect(422);
    await digest(ws, undefined, stranger).expect(404);
    const free = await createWorkspace(app, { plan: "free" });
    await digest(free.workspaceId, undefined, free).expect(403);
  });
});
