import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let member: TestMember;
let stranger: TestMember;
beforeAll(async () => {
  app = await startTestApp();
  [member, stranger] = await Promise.all([createWorkspace(app), createWorkspace(app)]);
});
afterAll(async () => app?.stop());

const knex = () => app.service.services.knex;
const as = (who: TestMember) => ({
  list: () => app.http.get("/displacement/accounts").set("Authorization", who.bearer),
  create: (body: Record<string, unknown>) =>
    app.http.post("/displacement/accounts").set("Authorization", who.bearer).send(body),
  get: (id: string) => app.http.get(`/displacement/accounts/${id}`).set("Authorization", who.bearer),
  update: (id: string, body: Record<string, unknown>) =>
    app.http.patch(`/displacement/accounts/${id}`).set("Authorization", who.bearer).send(body),
  remove: (id: string) => app.http.delete(`/displacement/accounts/${id}`).set("Authorization", who.bearer),
  cadence: () => app.http.get("/displacement/accounts/cadence").set("Authorization", who.bearer),
  signal: (id: string, body: Record<string, unknown>) =>
    app.http.post(`/displacement/accounts/${id}/signals`).set("Authorization", who.bearer).send(body),
  teardowns: (id: string) => app.http.get(`/displacement/accounts/${id}/teardowns`).set("Authorization", who.bearer),
  teardown: (id: string) => app.http.post(`/displacement/accounts/${id}/teardown`).set("Authorization", who.bearer),
  stories: () => app.http.get("/displacement/stories").set("Authorization", who.bearer),
  createStory: (body: Record<string, unknown>) =>
    app.http.post("/displacement/stories").set("Authorization", who.bearer).send(body),
  updateStory: (id: string, body: Record<string, unknown>) =>
    app.http.patch(`/displacement/stories/${id}`).set("Authorization", who.bearer).send(body),
  removeStory: (id: string) => app.http.delete(`/displacement/stories/${id}`).set("Authorization", who.bearer),
});
const MISSING = "00000000-0000-4000-8000-000000000000";

const FULL_ACCOUNT = {
  company_name: "Globex",
  domain: "globex.example",
  industry: "Logistics",
  employee_band: "201-500",
  champion_name: "Hank Scorpio",
  champion_title: "VP Operations",
  champion_linkedin: "https://www.linkedin.com/in/hank",
  economic_buyer: "Mr. Burns (CFO)",
  contract_end_estimate: "2027-03-31T00:00:00.000Z",
  rival_evidence: "Acme logo on their login page",
  rival_source: "https://globex.example/login",
  stage: "researching",
  tier: "tier_1",
  owner: "ada@example.com",
  notes: "Met at **SaaStr**.",
  next_action: "Send the migration guide",
  next_action_due: "2026-12-15T09:00:00.000Z",
};

describe("target accounts", () => {
  it("creates an account with every field and the rival, and reads it back with zero counts", async () => {
    const acme = await createCompetitor(app, member, { name: "Acme" });
    const created = await as(member)
      .create({ ...FULL_ACCOUNT, competitor_id: acme.id })
      .expect(201);
    expect(created.body).toEqual({
      ...FULL_ACCOUNT,
      id: expect.any(String),
      competitor_id: acme.id,
      signal_count: 0,
      teardown_count: 0,
      latest_teardown_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const detail = await as(member).get(created.body.id).expect(200);
    expect(detail.body).toEqual({ ...created.body, signals: [], teardowns: [] });
  });

  it("defaults the stage to identified and every other field to null", async () => {
    const res = await as(member).create({ company_name: "Initech" }).expect(201);
    expect(res.body).toMatchObject({
      company_name: "Initech",
      competitor_id: null,
      stage: "identified",
      tier: null,
      domain: null,
      notes: null,
      contract_end_estimate: null,
    });
  });

  it("answers 404 for a competitor of another workspace, and for a missing one", async () => {
    const theirs = await createCompetitor(app, stranger, { name: "Theirs" });
    const res = await as(member).create({ company_name: "Umbrella", competitor_id: theirs.id }).expect(404);
    expect(res.body.detail).toBe("Competitor not found");
    await as(member).create({ company_name: "Umbrella", competitor_id: MISSING }).expect(404);
  });

  it("validates the body: company_name required, enums, lengths and dates (422 listing every failure)", async () => {
    const res = await as(member)
      .create({ stage: "closed", tier: "tier_9", domain: "x".repeat(254), next_action_due: "tomorrow" })
      .expect(422);
    const locs = res.body.detail.map((issue: { loc: unknown[] }) => issue.loc.join("."));
    expect(locs).toEqual(
      expect.arrayContaining(["body.company_name", "body.stage", "body.tier", "body.domain", "body.next_action_due"]),
    );
    await as(member).create({ company_name: "" }).expect(422);
    await as(member).create({ company_name: "Ok", competitor_id: "not-a-uuid" }).expect(422);
  });

  it("patches per the PATCH semantics: absent unchanged, null clears, null stage unchanged", async () => {
    const created = await as(member).create(FULL_ACCOUNT).expect(201);
    const id = created.body.id;
    const res = await as(member)
      .update(id, { stage: null, tier: null, notes: null, owner: "grace@example.com", contract_end_estimate: null })
      .expect(200);
    expect(res.body).toEqual({
      ...created.body,
      stage: "researching",
      tier: null,
      notes: null,
      owner: "grace@example.com",
      contract_end_estimate: null,
      updated_at: expect.any(String),
    });
    expect(new Date(res.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(created.body.updated_at).getTime());
    const staged = await as(member).update(id, { stage: "negotiating" }).expect(200);
    expect(staged.body.stage).toBe("negotiating");
    expect(staged.body.owner).toBe("grace@example.com");
    // An empty body changes nothing.
    const same = await as(member).update(id, {}).expect(200);
    expect(same.body).toEqual(staged.body);
    await as(member).update(id, { stage: "done" }).expect(422);
    await as(member).update(MISSING, { notes: "x" }).expect(404);
  });

  it("lists the workspace's accounts, most recently updated first, never another workspace's", async () => {
    const owner = await createWorkspace(app);
    const first = await as(owner).create({ company_name: "First" }).expect(201);
    const second = await as(owner).create({ company_name: "Second" }).expect(201);
    await as(owner).update(first.body.id, { notes: "touched" }).expect(200);
    await as(stranger).create({ company_name: "Not yours" }).expect(201);
    const res = await as(owner).list().expect(200);
    expect(res.body.map((a: { company_name: string }) => a.company_name)).toEqual(["First", "Second"]);
    expect(res.body[1]).toEqual(second.body);
  });

  it("answers 404 for another workspace's account on every operation", async () => {
    const theirs = await as(stranger).create({ company_name: "Private Co" }).expect(201);
    const id = theirs.body.id;
    for (const res of [
      await as(member).get(id),
      await as(member).update(id, { notes: "mine now" }),
      await as(member).remove(id),
      await as(member).signal(id, { kind: "renewal", headline: "Renewal" }),
      await as(member).teardown(id),
      await as(member).teardowns(id),
      await as(member).createStory({ company_name: "Private Co", account_id: id }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.detail).toBe("Target account not found");
    }
    const still = await as(stranger).get(id).expect(200);
    expect(still.body.notes).toBeNull();
    expect(still.body.signal_count).toBe(0);
  });
});

describe("signals", () => {
  it("records signals, counts them and lists them newest occurred_at first in the detail", async () => {
    const account = await as(member).create({ company_name: "Signalled" }).expect(201);
    const id = account.body.id;
    const older = await as(member)
      .signal(id, {
        kind: "champion_move",
        headline: "Champion joined from a happy customer",
        detail: "Used us at Initech",
        occurred_at: "2026-10-01T12:00:00Z",
        source_url: "https://www.linkedin.com/in/hank",
      })
      .expect(201);
    expect(older.body).toEqual({
      id: expect.any(String),
      kind: "champion_move",
      headline: "Champion joined from a happy customer",
      detail: "Used us at Initech",
      occurred_at: "2026-10-01T12:00:00.000Z",
      source_url: "https://www.linkedin.com/in/hank",
    });
    const before = Date.now();
    const now = await as(member).signal(id, { kind: "rival_outage", headline: "Acme down for 6 hours" }).expect(201);
    expect(now.body.detail).toBeNull();
    expect(now.body.source_url).toBeNull();
    expect(new Date(now.body.occurred_at).getTime()).toBeGreaterThanOrEqual(before - 5000);

    const detail = await as(member).get(id).expect(200);
    expect(detail.body.signal_count).toBe(2);
    expect(detail.body.signals).toEqual([now.body, older.body]);
    const listed = (await as(member).list().expect(200)).body.find((a: { id: string }) => a.id === id);
    expect(listed.signal_count).toBe(2);
  });

  it("validates signals: headline and kind required, source_url an http(s) URL", async () => {
    const account = await as(member).create({ company_name: "Validated" }).expect(201);
    const res = await as(member).signal(account.body.id, { source_url: "ftp://x" }).expect(422);
    const locs = res.body.detail.map((issue: { loc: unknown[] }) => issue.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.headline", "body.kind", "body.source_url"]));
    await as(member).signal(MISSING, { kind: "k", headline: "h" }).expect(404);
  });
});

describe("cadence", () => {
  it("counts accounts per stage in canonical order, zeros included, for the caller's workspace only", async () => {
    const owner = await createWorkspace(app);
    const empty = await as(owner).cadence().expect(200);
    const stages = ["identified", "researching", "engaged", "evaluating", "negotiating", "won", "lost"];
    expect(empty.body).toEqual(stages.map((stage) => ({ stage, count: 0 })));
    for (const stage of ["won", "identified", "won", "evaluating"]) {
      await as(owner)
        .create({ company_name: `Co ${stage}`, stage })
        .expect(201);
    }
    await as(stranger).create({ company_name: "Elsewhere", stage: "lost" }).expect(201);
    const res = await as(owner).cadence().expect(200);
    expect(res.body).toEqual([
      { stage: "identified", count: 1 },
      { stage: "researching", count: 0 },
      { stage: "engaged", count: 0 },
      { stage: "evaluating", count: 1 },
      { stage: "negotiating", count: 0 },
      { stage: "won", count: 2 },
      { stage: "lost", count: 0 },
    ]);
  });
});

describe("deleting an account", () => {
  it("deletes its signals and teardowns and unlinks its stories, then answers 404", async () => {
    const account = await as(member).create({ company_name: "Doomed" }).expect(201);
    const id = account.body.id;
    await as(member).signal(id, { kind: "renewal", headline: "Renews in March" }).expect(201);
    await as(member).teardown(id).expect(201);
    const story = await as(member).createStory({ company_name: "Doomed", account_id: id }).expect(201);
    await as(member).remove(id).expect(204);
    await as(member).get(id).expect(404);
    await as(member).remove(id).expect(404);
    expect(await knex()("account_signals").where({ account_id: id })).toEqual([]);
    expect(await knex()("account_teardowns").where({ account_id: id })).toEqual([]);
    const stories = (await as(member).stories().expect(200)).body;
    expect(stories.find((s: { id: string }) => s.id === story.body.id)).toEqual({ ...story.body, account_id: null });
  });

  it("keeps the account when its rival competitor is deleted, with competitor_id null", async () => {
    const rival = await createCompetitor(app, member, { name: "Short-lived" });
    const account = await as(member).create({ company_name: "Loyal", competitor_id: rival.id }).expect(201);
    await app.http.delete(`/competitors/${rival.id}`).set("Authorization", member.bearer).expect(204);
    const res = await as(member).get(account.body.id).expect(200);
    expect(res.body.competitor_id).toBeNull();
  });
});

describe("switcher stories", () => {
  it("creates a story with defaults, lists the workspace's stories newest first", async () => {
    const owner = await createWorkspace(app);
    const first = await as(owner).createStory({ company_name: "Hooli" }).expect(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      account_id: null,
      company_name: "Hooli",
      champion_name: null,
      champion_title: null,
      closed_at: null,
      public_url: null,
      quantified_outcome: null,
      status: "draft",
      why_left_rival: null,
      created_at: expect.any(String),
    });
    const account = await as(owner).create({ company_name: "Pied Piper" }).expect(201);
    const second = await as(owner)
      .createStory({
        company_name: "Pied Piper",
        account_id: account.body.id,
        champion_name: "Richard",
        champion_title: "CEO",
        closed_at: "2026-11-01T00:00:00Z",
        public_url: "https://example.com/stories/pied-piper",
        quantified_outcome: "cut compression costs by 40%",
        status: "approved",
        why_left_rival: "Too slow",
      })
      .expect(201);
    expect(second.body).toMatchObject({
      account_id: account.body.id,
      status: "approved",
      closed_at: "2026-11-01T00:00:00.000Z",
    });
    await as(stranger).createStory({ company_name: "Not listed" }).expect(201);
    const listed = await as(owner).stories().expect(200);
    expect(listed.body).toEqual([second.body, first.body]);
  });

  it("patches with the create shape: company_name required, absent unchanged, null clears", async () => {
    const account = await as(member).create({ company_name: "Vandelay" }).expect(201);
    const story = await as(member)
      .createStory({ company_name: "Vandelay", account_id: account.body.id, champion_name: "Art", status: "approved" })
      .expect(201);
    const res = await as(member)
      .updateStory(story.body.id, { company_name: "Vandelay Industries", champion_name: null, account_id: null })
      .expect(200);
    expect(res.body).toEqual({
      ...story.body,
      company_name: "Vandelay Industries",
      champion_name: null,
      account_id: null,
      status: "approved",
    });
    const published = await as(member)
      .updateStory(story.body.id, { company_name: "Vandelay Industries", status: "published" })
      .expect(200);
    expect(published.body.status).toBe("published");
    const missing = await as(member).updateStory(story.body.id, { status: "draft" }).expect(422);
    expect(missing.body.detail).toEqual([{ loc: ["body", "company_name"], msg: "Field required", type: "missing" }]);
    await as(member).updateStory(story.body.id, { company_name: "V", status: "live" }).expect(422);
  });

  it("answers 404 for an account_id or a story of another workspace", async () => {
    const theirAccount = await as(stranger).create({ company_name: "Theirs" }).expect(201);
    const theirStory = await as(stranger).createStory({ company_name: "Theirs" }).expect(201);
    const mine = await as(member).createStory({ company_name: "Mine" }).expect(201);
    const res = await as(member).createStory({ company_name: "Mine", account_id: theirAccount.body.id }).expect(404);
    expect(res.body.detail).toBe("Target account not found");
    await as(member).updateStory(mine.body.id, { company_name: "Mine", account_id: theirAccount.body.id }).expect(404);
    const notFound = await as(member).updateStory(theirStory.body.id, { company_name: "Stolen" }).expect(404);
    expect(notFound.body.detail).toBe("Switcher story not found");
    await as(member).removeStory(theirStory.body.id).expect(404);
    const still = (await as(stranger).stories().expect(200)).body;
    expect(still).toContainEqual(theirStory.body);
  });

  it("deletes a story with 204, then answers 404", async () => {
    const story = await as(member).createStory({ company_name: "Gone" }).expect(201);
    await as(member).removeStory(story.body.id).expect(204);
    await as(member).removeStory(story.body.id).expect(404);
    await as(member).updateStory(story.body.id, { company_name: "Gone" }).expect(404);
  });
});
