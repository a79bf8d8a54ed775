import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { untilCallerSees } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const create = (member: TestMember, body: Record<string, unknown>) =>
  app.http.post("/competitors").set("Authorization", member.bearer).send(body);

describe("competitors", () => {
  it("creates, reads, lists, updates and deletes a competitor with the contract's fields", async () => {
    const member = await createWorkspace(app);
    const created = await create(member, {
      name: "Acme",
      domain: "https://www.Acme.com/pricing",
      aliases: ["ACME Corp"],
    }).expect(201);
    expect(created.body).toMatchObject({
      workspace_id: member.workspaceId,
      name: "Acme",
      domain: "www.acme.com",
      aliases: ["ACME Corp"],
      description: null,
    });
    const id = created.body.id;
    const read = await app.http.get(`/competitors/${id}`).set("Authorization", member.bearer).expect(200);
    expect(read.body).toEqual(created.body);

    await create(member, { name: "Globex", domain: "globex.com" }).expect(201);
    const list = await app.http.get("/competitors").set("Authorization", member.bearer).expect(200);
    expect(list.body.map((c: { name: string }) => c.name)).toEqual(["Acme", "Globex"]);

    const updated = await app.http
      .patch(`/competitors/${id}`)
      .set("Authorization", member.bearer)
      .send({ description: "Rocket skates", name: null })
      .expect(200);
    expect(updated.body).toMatchObject({ name: "Acme", description: "Rocket skates", aliases: ["ACME Corp"] });
    expect(new Date(updated.body.updated_at).getTime()).toBeGreaterThanOrEqual(
      new Date(created.body.updated_at).getTime(),
    );

    const cleared = await app.http
      .patch(`/competitors/${id}`)
      .set("Authorization", member.bearer)
      .send({ aliases: null, description: null, domain: null })
      .expect(200);
    expect(cleared.body).toMatchObject({ aliases: null, description: null, domain: "www.acme.com" });

    await app.http.delete(`/competitors/${id}`).set("Authorization", member.bearer).expect(204);
    await app.http.get(`/competitors/${id}`).set("Authorization", member.bearer).expect(404);
    await app.http.delete(`/competitors/${id}`).set("Authorization", member.bearer).expect(404);
  });

  it("enforces the free plan's limit of 3 competitors with 403, and lifts it on a larger plan", async () => {
    const member = await createWorkspace(app, { plan: "free" });
    for (const name of ["A", "B", "C"]) await create(member, { name, domain: `${name.toLowerCase()}.com` }).expect(201);
    const refused = await create(member, { name: "D", domain: "d.com" }).expect(403);
    expect(refused.body.detail).toMatch(/free plan allows 3 competitors/);
    await app.service.services.knex("workspaces").where({ id: member.workspaceId }).update({ plan: "starter" });
    await untilCallerSees(() => create(member, { name: "D", domain: "d.com" }), 201);
  });

  it("does not let concurrent creates exceed the plan's limit", async () => {
    const member = await createWorkspace(app, { plan: "free" });
    const results = await Promise.all(
      ["a", "b", "c", "d", "e", "f"].map((n) =>
        app.http
          .post("/competitors")
          .set("Authorization", member.bearer)
          .send({ name: n, domain: `${n}.io` }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 403)).toHaveLength(3);
  });

  it("answers 404 for another workspace's competitor on every operation, and never lists it", async () => {
    const owner = await createWorkspace(app);
    const stranger = await createWorkspace(app);
    const competitor = await createCompetitor(app, owner);
    const auth = ["Authorization", stranger.bearer] as const;
    await app.http
      .get(`/competitors/${competitor.id}`)
      .set(...auth)
      .expect(404);
    await app.http
      .patch(`/competitors/${competitor.id}`)
      .set(...auth)
      .send({ name: "Mine now" })
      .expect(404);
    await app.http
      .delete(`/competitors/${competitor.id}`)
      .set(...auth)
      .expect(404);
    await app.http
      .get(`/competitors/${competitor.id}/sources`)
      .set(...auth)
      .expect(404);
    await app.http
      .post(`/competitors/${competitor.id}/sources`)
      .set(...auth)
      .send({ source_type: "pricing", url: "https://acme.com/pricing" })
      .expect(404);
    const list = await app.http
      .get("/competitors")
      .set(...auth)
      .expect(200);
    expect(list.body).toEqual([]);
    const still = await app.http.get(`/competitors/${competitor.id}`).set("Authorization", owner.bearer).expect(200);
    expect(still.body.name).toBe("Acme");
  });

  it("lets members (not only owners) manage competitors", async () => {
    const owner = await createWorkspace(app);
    const member = await addMember(app, owner.workspaceId, { role: "member" });
    const created = await create(member, { name: "Initech", domain: "initech.com" }).expect(201);
    await app.http.get(`/competitors/${created.body.id}`).set("Authorization", owner.bearer).expect(200);
  });

  it("answers 422 with every problem of the body", async () => {
    const member = await createWorkspace(app);
    const res = await create(member, { name: "", domain: 42, aliases: "nope", extra: true }).expect(422);
    const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.name", "body.domain", "body.aliases"]));
    const badDomain = await create(member, { name: "X", domain: "not a domain" }).expect(422);
    expect(badDomain.body.detail[0].loc).toEqual(["body", "domain"]);
  });

  it("answers 422 for a competitor id that is not a UUID", async () => {
    const member = await createWorkspace(app);
    const res = await app.http.get("/competitors/not-a-uuid").set("Authorization", member.bearer).expect(422);
    expect(res.body.detail[0].loc).toEqual(["path", "competitor_id"]);
  });
});

describe("sources", () => {
  const addSource = (member: TestMember, competitorId: string, body: Record<string, unknown>) =>
    app.http.post(`/competitors/${competitorId}/sources`).set("Authorization", member.bearer).send(body);

  it("creates a source with defaults and a normalized URL", async () => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member);
    const res = await addSource(member, competitor.id, {
      source_type: "pricing",
      url: "HTTPS://Acme.COM:443/Pricing/?utm_source=x&b=2&a=1#plans",
    }).expect(201);
    expect(res.body).toMatchObject({
      competitor_id: competitor.id,
      url: "HTTPS://Acme.COM:443/Pricing/?utm_source=x&b=2&a=1#plans",
      normalized_url: "https://acme.com/Pricing?a=1&b=2",
      source_type: "pricing",
      fetch_method: "http",
      fetch_frequency_minutes: 1440,
      is_active: true,
      error_message: null,
      last_error_at: null,
      last_fetched_at: null,
      last_success_at: null,
    });
    expect(res.body).not.toHaveProperty("workspace_id");
    const list = await app.http
      .get(`/competitors/${competitor.id}/sources`)
      .set("Authorization", member.bearer)
      .expect(200);
    expect(list.body).toEqual([res.body]);
  });

  it("answers 409 for a URL the competitor already tracks under another spelling", async () => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member);
    await addSource(member, competitor.id, { source_type: "blog", url: "https://acme.com/blog/" }).expect(201);
    const res = await addSource(member, competitor.id, {
      source_type: "blog",
      url: "https://ACME.com/blog?utm_campaign=z#top",
    }).expect(409);
    expect(res.body.detail).toContain("https://acme.com/blog");
    const other = await createCompetitor(app, member, { name: "Other", domain: "other.com" });
    await addSource(member, other.id, { source_type: "blog", url: "https://acme.com/blog" }).expect(201);
  });

  it("needs the realtime plan flag below 360 minutes, and validates the frequency range", async () => {
    const free = await createWorkspace(app, { plan: "free" });
    const competitor = await createCompetitor(app, free);
    await addSource(free, competitor.id, {
      source_type: "pricing",
      url: "https://acme.com/p",
      fetch_frequency_minutes: 60,
    }).expect(403);
    await addSource(free, competitor.id, {
      source_type: "pricing",
      url: "https://acme.com/p",
      fetch_frequency_minutes: 10,
    }).expect(422);
    await addSource(free, competitor.id, {
      source_type: "pricing",
      url: "https://acme.com/p",
      fetch_frequency_minutes: 20000,
    }).expect(422);
    const growth = await createWorkspace(app, { plan: "growth" });
    const theirs = await createCompetitor(app, growth);
    await addSource(growth, theirs.id, {
      source_type: "pricing",
      url: "https://acme.com/p",
      fetch_frequency_minutes: 15,
    }).expect(201);
  });

  it("rejects unknown source types, fetch methods and non-http URLs with 422", async () => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member);
    const res = await addSource(member, competitor.id, {
      source_type: "podcast",
      url: "ftp://acme.com/x",
      fetch_method: "carrier-pigeon",
    }).expect(422);
    const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.source_type", "body.url", "body.fetch_method"]));
    await addSource(member, competitor.id, { source_type: "pricing", url: "javascript:alert(1)" }).expect(422);
  });

  it("updates a source with PATCH semantics and keeps URLs unique", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, member);
    const first = await addSource(member, competitor.id, {
      source_type: "pricing",
      url: "https://acme.com/pricing",
    }).expect(201);
    await addSource(member, competitor.id, { source_type: "careers", url: "https://acme.com/careers" }).expect(201);
    const patched = await app.http
      .patch(`/sources/${first.body.id}`)
      .set("Authorization", member.bearer)
      .send({ is_active: false, fetch_frequency_minutes: 60, source_type: null, url: null })
      .expect(200);
    expect(patched.body).toMatchObject({
      is_active: false,
      fetch_frequency_minutes: 60,
      source_type: "pricing",
      url: "https://acme.com/pricing",
    });
    await app.http
      .patch(`/sources/${first.body.id}`)
      .set("Authorization", member.bearer)
      .send({ url: "https://acme.com/careers/" })
      .expect(409);
    const moved = await app.http
      .patch(`/sources/${first.body.id}`)
      .set("Authorization", member.bearer)
      .send({ url: "https://acme.com/plans" })
      .expect(200);
    expect(moved.body.normalized_url).toBe("https://acme.com/plans");
  });

  it("answers 404 for another workspace's source and deletes only the caller's", async () => {
    const owner = await createWorkspace(app);
    const stranger = await createWorkspace(app);
    const competitor = await createCompetitor(app, owner);
    const source = await addSource(owner, competitor.id, {
      source_type: "pricing",
      url: "https://acme.com/pricing",
    }).expect(201);
    await app.http
      .patch(`/sources/${source.body.id}`)
      .set("Authorization", stranger.bearer)
      .send({ is_active: false })
      .expect(404);
    await app.http.delete(`/sources/${source.body.id}`).set("Authorization", stranger.bearer).expect(404);
    await app.http.delete(`/sources/${source.body.id}`).set("Authorization", owner.bearer).expect(204);
    await app.http.delete(`/sources/${source.body.id}`).set("Authorization", owner.bearer).expect(404);
  });

  it("deletes a competitor's sources with it", async () => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member);
    await addSource(member, competitor.id, { source_type: "pricing", url: "https://acme.com/pricing" }).expect(201);
    await app.http.delete(`/competitors/${competitor.id}`).set("Authorization", member.bearer).expect(204);
    const left = await app.service.services.knex("sources").where({ competitor_id: competitor.id });
    expect(left).toEqual([]);
  });
});
