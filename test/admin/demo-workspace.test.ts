/**
 * The demo flag (docs/product-rules.md#admin-views): platform admins flag one workspace at a time; granting clears
 * any other in the same transaction, and clearing answers the null shape whatever was flagged.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let admin: TestMember;
beforeAll(async () => {
  app = await startTestApp({ ROLE: "api" });
  admin = await createWorkspace(app, { isAdmin: true, name: "Vendor ops" });
});
afterAll(async () => app?.stop());

const NULL_STATUS = { owner_email: null, workspace_id: null, workspace_name: null };
const knex = () => app.service.services.knex;
const get = (as: TestMember = admin) => app.http.get("/admin/demo-workspace").set("Authorization", as.bearer);
const grant = (workspaceId: unknown, as: TestMember = admin) =>
  app.http.post("/admin/demo-workspace").set("Authorization", as.bearer).send({ workspace_id: workspaceId });
const clear = (as: TestMember = admin) => app.http.delete("/admin/demo-workspace").set("Authorization", as.bearer);
const flagged = async () => (await knex()("workspaces").where({ is_demo: true }).select("id")).map((w) => w.id);

describe("reading, granting and clearing the demo flag", () => {
  it("answers the null shape while no workspace is flagged", async () => {
    expect((await get().expect(200)).body).toEqual(NULL_STATUS);
  });

  it("flags a workspace and names it with its earliest owner's email", async () => {
    const owner = await createWorkspace(app, { name: "Acme demo" });
    await addMember(app, owner.workspaceId, { role: "owner" });
    await addMember(app, owner.workspaceId, { role: "member" });
    const expected = { owner_email: owner.email, workspace_id: owner.workspaceId, workspace_name: "Acme demo" };
    expect((await grant(owner.workspaceId).expect(200)).body).toEqual(expected);
    expect((await get().expect(200)).body).toEqual(expected);
    // Idempotent: granting it again changes nothing.
    expect((await grant(owner.workspaceId).expect(200)).body).toEqual(expected);
    expect(await flagged()).toEqual([owner.workspaceId]);
  });

  it("moves the flag: granting another workspace clears the previous one", async () => {
    const first = await createWorkspace(app, { name: "First" });
    const second = await createWorkspace(app, { name: "Second" });
    await grant(first.workspaceId).expect(200);
    const res = await grant(second.workspaceId).expect(200);
    expect(res.body).toEqual({ owner_email: second.email, workspace_id: second.workspaceId, workspace_name: "Second" });
    expect(await flagged()).toEqual([second.workspaceId]);
  });

  it("may flag a workspace without an owner (owner_email null)", async () => {
    const [workspace] = await knex()("workspaces").insert({ name: "Ownerless" }).returning("id");
    await addMember(app, workspace.id, { role: "member" });
    expect((await grant(workspace.id).expect(200)).body).toEqual({
      owner_email: null,
      workspace_id: workspace.id,
      workspace_name: "Ownerless",
    });
  });

  it("clears the flag and answers the null shape, also when nothing was flagged", async () => {
    const demo = await createWorkspace(app);
    await grant(demo.workspaceId).expect(200);
    expect((await clear().expect(200)).body).toEqual(NULL_STATUS);
    expect(await flagged()).toEqual([]);
    expect((await get().expect(200)).body).toEqual(NULL_STATUS);
    expect((await clear().expect(200)).body).toEqual(NULL_STATUS);
  });
});

describe("refusals", () => {
  it("answers 404 for an unknown workspace and leaves the current flag where it is", async () => {
    const demo = await createWorkspace(app);
    await grant(demo.workspaceId).expect(200);
    const res = await grant(randomUUID()).expect(404);
    expect(res.body).toEqual({ detail: "Workspace not found" });
    expect(await flagged()).toEqual([demo.workspaceId]);
  });

  it("answers 422 for a malformed or missing workspace_id", async () => {
    for (const workspaceId of ["not-a-uuid", 42, null, "", `${randomUUID()}x`]) {
      const res = await grant(workspaceId).expect(422);
      expect(res.body.detail[0].loc).toEqual(["body", "workspace_id"]);
    }
    await app.http.post("/admin/demo-workspace").set("Authorization", admin.bearer).send({}).expect(422);
  });

  it("answers 403 to a workspace owner who is not a platform admin, for all three operations", async () => {
    const owner = await createWorkspace(app);
    const before = await flagged();
    for (const res of [await get(owner), await grant(owner.workspaceId, owner), await clear(owner)]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: "Platform administrators only" });
    }
    expect(await flagged()).toEqual(before);
  });

  it("answers 401 without a token", async () => {
    await app.http.get("/admin/demo-workspace").expect(401);
    await app.http.post("/admin/demo-workspace").send({ workspace_id: admin.workspaceId }).expect(401);
    await app.http.delete("/admin/demo-workspace").expect(401);
  });
});

describe("concurrency", () => {
  it("leaves exactly one workspace flagged after concurrent grants of different workspaces, each answered 200", async () => {
    const workspaces = await Promise.all(Array.from({ length: 8 }, () => createWorkspace(app)));
    const answers = await Promise.all(workspaces.map((w) => grant(w.workspaceId)));
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    // Each grant saw its own workspace flagged when it committed.
    expect(answers.map((r) => r.body.workspace_id)).toEqual(workspaces.map((w) => w.workspaceId));
    const now = await flagged();
    expect(now).toHaveLength(1);
    expect(workspaces.map((w) => w.workspaceId)).toContain(now[0]);
    expect((await get().expect(200)).body.workspace_id).toBe(now[0]);
  });

  it("never leaves two flagged when grants and clears race", async () => {
    const [a, b] = await Promise.all([createWorkspace(app), createWorkspace(app)]);
    const answers = await Promise.all([
      grant(a.workspaceId),
      clear(),
      grant(b.workspaceId),
      clear(),
      grant(a.workspaceId),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await flagged()).length).toBeLessThanOrEqual(1);
  });
});
