import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSuppressed, suppress } from "../../src/suppressions/service.js";
import { addMember, createSuppressions, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const list = (member: TestMember) => app.http.get("/digests/suppressions").set("Authorization", member.bearer);
const create = (member: TestMember, body: Record<string, unknown>) =>
  app.http.post("/digests/suppressions").set("Authorization", member.bearer).send(body);
const remove = (member: TestMember, email: string) =>
  app.http.delete(`/digests/suppressions/${encodeURIComponent(email)}`).set("Authorization", member.bearer);

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("suppressions API", () => {
  it("adds, lists and removes an address with exactly the contract's fields", async () => {
    const member = await createWorkspace(app);
    const created = await create(member, {
      email: "bounced@example.com",
      reason: "bounce",
      detail: "550 mailbox unavailable",
    }).expect(201);
    expect(Object.keys(created.body).sort()).toEqual(["detail", "email", "reason", "suppressed_at"]);
    expect(created.body).toMatchObject({
      email: "bounced@example.com",
      reason: "bounce",
      detail: "550 mailbox unavailable",
    });
    expect(created.body.suppressed_at).toMatch(ISO_UTC);

    expect((await list(member).expect(200)).body).toEqual([created.body]);
    await remove(member, "bounced@example.com").expect(204);
    expect((await list(member).expect(200)).body).toEqual([]);
  });

  it("stores the address lowercased, with reason manual and no detail by default", async () => {
    const member = await createWorkspace(app);
    const res = await create(member, { email: "Ada.Lovelace@Example.COM" }).expect(201);
    expect(res.body).toMatchObject({ email: "ada.lovelace@example.com", reason: "manual", detail: null });
    const withNull = await create(member, { email: "grace@example.com", detail: null }).expect(201);
    expect(withNull.body).toMatchObject({ reason: "manual", detail: null });
  });

  it("answers 201 with the existing row unchanged when the address is already suppressed, in any case", async () => {
    const member = await createWorkspace(app);
    const first = await create(member, { email: "dup@example.com", reason: "complaint", detail: "spam" }).expect(201);
    const again = await create(member, { email: "DUP@example.com", reason: "manual", detail: "other" }).expect(201);
    expect(again.body).toEqual(first.body);
    expect((await list(member).expect(200)).body).toEqual([first.body]);
    const rows = await app.service.services.knex("suppressed_emails").where({ workspace_id: member.workspaceId });
    expect(rows).toHaveLength(1);
  });

  it("lists the most recently suppressed first", async () => {
    const member = await createWorkspace(app);
    await createSuppressions(app, member, [
      { email: "old@example.com", reason: "manual", suppressed_at: "2026-01-01Z" },
      { email: "new@example.com", reason: "bounce", suppressed_at: "2026-03-01Z" },
      { email: "mid@example.com", reason: "manual", suppressed_at: "2026-02-01Z" },
    ]);
    const res = await list(member).expect(200);
    expect(res.body.map((s: { email: string }) => s.email)).toEqual([
      "new@example.com",
      "mid@example.com",
      "old@example.com",
    ]);
    expect(res.body[0].suppressed_at).toBe("2026-03-01T00:00:00.000Z");
  });

  it("lists at most the 1000 most recent addresses", async () => {
    const member = await createWorkspace(app);
    const base = Date.parse("2026-01-01T00:00:00Z");
    await createSuppressions(
      app,
      member,
      Array.from({ length: 1001 }, (_, i) => ({
        email: `user${i}@example.com`,
        suppressed_at: new Date(base + i * 1000),
      })),
    );
    const res = await list(member).expect(200);
    expect(res.body).toHaveLength(1000);
    expect(res.body[0].email).toBe("user1000@example.com");
    expect(res.body.at(-1).email).toBe("user1@example.com");
  });

  it("removes an address matched case-insensitively from a URL-encoded path", async () => {
    const member = await createWorkspace(app);
    await create(member, { email: "mixed.case+tag@example.com" }).expect(201);
    await app.http
      .delete("/digests/suppressions/Mixed.Case%2Btag%40EXAMPLE.com")
      .set("Authorization", member.bearer)
      .expect(204);
    expect((await list(member).expect(200)).body).toEqual([]);
  });

  it("answers 404 when the address is not on the list", async () => {
    const member = await createWorkspace(app);
    const res = await remove(member, "nobody@example.com").expect(404);
    expect(res.body).toEqual({ detail: "Suppressed address not found" });
    await create(member, { email: "once@example.com" }).expect(201);
    await remove(member, "once@example.com").expect(204);
    await remove(member, "once@example.com").expect(404);
  });

  it("never shows or removes another workspace's suppressions", async () => {
    const owner = await createWorkspace(app);
    const stranger = await createWorkspace(app);
    const mine = await create(owner, { email: "shared@example.com", reason: "bounce" }).expect(201);

    expect((await list(stranger).expect(200)).body).toEqual([]);
    await remove(stranger, "shared@example.com").expect(404);

    // The same address may be suppressed in both workspaces, each with its own row.
    const theirs = await create(stranger, { email: "shared@example.com", reason: "manual" }).expect(201);
    expect(theirs.body.reason).toBe("manual");
    await remove(stranger, "shared@example.com").expect(204);

    expect((await list(owner).expect(200)).body).toEqual([mine.body]);
  });

  it("lets members (not only owners) manage the list", async () => {
    const owner = await createWorkspace(app);
    const member = await addMember(app, owner.workspaceId, { role: "member" });
    const created = await create(member, { email: "by-member@example.com" }).expect(201);
    expect((await list(owner).expect(200)).body).toEqual([created.body]);
    await create(owner, { email: "by-owner@example.com" }).expect(201);
    await remove(member, "by-owner@example.com").expect(204);
    expect((await list(member).expect(200)).body).toEqual([created.body]);
  });

  it("answers 422 for an invalid address and for an invalid reason or detail", async () => {
    const member = await createWorkspace(app);
    const locs = (res: { body: { detail: { loc: unknown[] }[] } }) => res.body.detail.map((d) => d.loc.join("."));
    expect(locs(await create(member, { email: "not-an-address" }).expect(422))).toEqual(["body.email"]);
    expect(locs(await create(member, {}).expect(422))).toEqual(["body.email"]);
    expect(locs(await create(member, { email: "a@example.com", reason: "" }).expect(422))).toEqual(["body.reason"]);
    expect(locs(await create(member, { email: "a@example.com", detail: "x".repeat(2001) }).expect(422))).toEqual([
      "body.detail",
    ]);
    expect((await list(member).expect(200)).body).toEqual([]);
  });

  it("answers 401 without a token", async () => {
    await app.http.get("/digests/suppressions").expect(401);
    await app.http.post("/digests/suppressions").send({ email: "a@example.com" }).expect(401);
    await app.http.delete("/digests/suppressions/a%40example.com").expect(401);
  });
});

describe("isSuppressed and suppress (for other areas)", () => {
  it("reports an address as suppressed case-insensitively, and only in its workspace", async () => {
    const knex = app.service.services.knex;
    const owner = await createWorkspace(app);
    const other = await createWorkspace(app);
    expect(await isSuppressed(knex, owner.workspaceId, "x@example.com")).toBe(false);
    await suppress(knex, owner.workspaceId, "X@Example.com", "bounce", "550 no such user");
    expect(await isSuppressed(knex, owner.workspaceId, "x@example.com")).toBe(true);
    expect(await isSuppressed(knex, owner.workspaceId, " X@EXAMPLE.COM ")).toBe(true);
    expect(await isSuppressed(knex, other.workspaceId, "x@example.com")).toBe(false);
  });

  it("keeps the first reason and detail when the address is suppressed again", async () => {
    const knex = app.service.services.knex;
    const owner = await createWorkspace(app);
    const first = await suppress(knex, owner.workspaceId, "y@example.com", "complaint", null);
    expect(first).toMatchObject({ email: "y@example.com", reason: "complaint", detail: null });
    const again = await suppress(knex, owner.workspaceId, "Y@example.com", "unsubscribe", "one-click");
    expect(again).toEqual(first);
  });

  it("suppresses inside the caller's transaction, and not at all when it rolls back", async () => {
    const knex = app.service.services.knex;
    const owner = await createWorkspace(app);
    await expect(
      knex.transaction(async (trx) => {
        await suppress(trx, owner.workspaceId, "rolled@example.com", "bounce");
        expect(await isSuppressed(trx, owner.workspaceId, "rolled@example.com")).toBe(true);
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await isSuppressed(knex, owner.workspaceId, "rolled@example.com")).toBe(false);
    await knex.transaction((trx) => suppress(trx, owner.workspaceId, "kept@example.com", "unsubscribe"));
    expect(await isSuppressed(knex, owner.workspaceId, "kept@example.com")).toBe(true);
  });

  it("makes one row for concurrent suppressions of one address, and answers it to every caller", async () => {
    const knex = app.service.services.knex;
    const owner = await createWorkspace(app);
    const results = await Promise.all(
      ["bounce", "complaint", "manual", "unsubscribe", "bounce"].map((reason) =>
        suppress(knex, owner.workspaceId, "Race@example.com", reason),
      ),
    );
    const rows = await knex("suppressed_emails").where({ workspace_id: owner.workspaceId });
    expect(rows).toHaveLength(1);
    for (const result of results) expect(result).toEqual(results[0]);
    expect(results[0]!.reason).toBe(rows[0].reason);
  });

  it("removes a workspace's suppressions with the workspace", async () => {
    const knex = app.service.services.knex;
    const owner = await createWorkspace(app);
    await suppress(knex, owner.workspaceId, "gone@example.com", "manual");
    await knex("workspaces").where({ id: owner.workspaceId }).delete();
    expect(await knex("suppressed_emails").where({ workspace_id: owner.workspaceId })).toEqual([]);
  });
});
