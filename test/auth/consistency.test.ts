/**
 * Access changes take effect on the caller's next request, in every API process (docs/architecture.md#consistency):
 * callers are cached per process, and the access-change feed (src/auth/access-changes.ts) drops them when the
 * database announces a change. Two API processes on one database here: the test app (ROLE=all) and a second one
 * (ROLE=api), each with its own cache, both of which have served (and cached) the caller before the change.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCli } from "../setup/admin-cli.js";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startSecondApi, startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
let second: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  second = await startSecondApi(app);
});
afterAll(async () => {
  await second?.stop();
  await app?.stop();
});

/** The admin CLI as an operator runs it: its own process, its own connection, nothing shared with the services. */
async function adminCli(...argv: string[]): Promise<unknown> {
  const { stdout } = await runAdminCli(argv, { DATABASE_URL: app.config.databaseUrl!, DATA_DIR: app.config.dataDir });
  return JSON.parse(stdout);
}

const apis = () => [app, second];

/** Creating a 15-minute source: 201 on a plan with realtime monitoring, 403 on one without. */
async function realtimeSourceStatus(api: TestApp, member: TestMember, competitorId: string): Promise<number> {
  const res = await api.http
    .post(`/competitors/${competitorId}/sources`)
    .set("Authorization", member.bearer)
    .send({ source_type: "pricing", url: `https://acme.test/pricing/${Math.random()}`, fetch_frequency_minutes: 15 });
  return res.status;
}

describe("access changes", () => {
  it("a plan change by the CLI reaches the very next request in both API processes", async () => {
    const member = await createWorkspace(app, { plan: "free" });
    const competitor = await createCompetitor(app, member, { name: "Acme", domain: "acme.test" });
    for (const api of apis()) expect(await realtimeSourceStatus(api, member, competitor.id)).toBe(403);

    expect(await adminCli("set-plan", member.workspaceId, "growth")).toMatchObject({ plan: "growth" });
    for (const api of apis()) expect(await realtimeSourceStatus(api, member, competitor.id)).toBe(201);
  }, 120_000);

  it("revoking is_admin makes the next /admin/* request 403 in both API processes", async () => {
    const member = await createWorkspace(app, { isAdmin: true });
    for (const api of apis()) {
      await api.http.get("/admin/sources/health").set("Authorization", member.bearer).expect(200);
    }
    expect(await adminCli("revoke-admin", member.email)).toMatchObject({ is_admin: false });
    for (const api of apis()) {
      await api.http.get("/admin/sources/health").set("Authorization", member.bearer).expect(403);
    }
  }, 120_000);

  it("a changed role, a password reset and a removed member reach both processes at once", async () => {
    const { knex } = app.service.services;
    const owner = await createWorkspace(app, { plan: "starter" });
    // Owner-only: an owner gets 404 for a digest that does not exist, a member 403 before any lookup.
    const ownerOnly = `/digests/${randomUUID()}/deliveries`;
    for (const api of apis()) await api.http.get(ownerOnly).set("Authorization", owner.bearer).expect(404);
    await announced(() => knex("memberships").where({ user_id: owner.userId }).update({ role: "member" }));
    for (const api of apis()) await api.http.get(ownerOnly).set("Authorization", owner.bearer).expect(403);

    // A password reset increments the generation: older tokens stop working everywhere, not only where it was made.
    await announced(() => knex("users").where({ id: owner.userId }).increment("token_generation", 1));
    for (const api of apis()) await api.http.get("/auth/me").set("Authorization", owner.bearer).expect(401);

    const other = await createWorkspace(app);
    for (const api of apis()) await api.http.get("/auth/me").set("Authorization", other.bearer).expect(200);
    await announced(() => knex("memberships").where({ user_id: other.userId }).delete());
    for (const api of apis()) await api.http.get("/auth/me").set("Authorization", other.bearer).expect(401);
  });

  it("caches nothing while the feed's session is down, and catches up when it is back", async () => {
    const { knex } = app.service.services;
    const member = await createWorkspace(app, { plan: "free" });
    const competitor = await createCompetitor(app, member, { name: "Globex", domain: "globex.test" });
    for (const api of apis()) expect(await realtimeSourceStatus(api, member, competitor.id)).toBe(403);

    // Both processes lose their listening session (a failover, an idle-session killer): notices sent now are lost.
    const killed = await knex.raw(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = ?",
      ["LISTEN access_changed"],
    );
    expect(killed.rows.length).toBe(2);
    await waitFor(async () => !app.service.accessChanges!.listening && !second.service.accessChanges!.listening);
    await knex("workspaces").where({ id: member.workspaceId }).update({ plan: "growth" });
    // Without a feed each request reads its caller; with the feed back, the caches start over.
    for (const api of apis()) expect(await realtimeSourceStatus(api, member, competitor.id)).toBe(201);
    await waitFor(async () => app.service.accessChanges!.listening && second.service.accessChanges!.listening, 10_000);

    await announced(() => knex("workspaces").where({ id: member.workspaceId }).update({ plan: "free" }));
    for (const api of apis()) expect(await realtimeSourceStatus(api, member, competitor.id)).toBe(403);
  }, 30_000);
});

/**
 * Runs an in-process change and waits until both processes have received a notice. The CLI tests above need no such
 * wait: by the time the CLI's process has exited, its notice has long arrived. A change made through this process's
 * own pool is different: the update resolves at commit, and a request sent at once can overtake the notice, which
 * travels over the listening sessions' own connections.
 */
async function announced(change: () => PromiseLike<unknown>): Promise<void> {
  const before = apis().map((api) => api.service.accessChanges!.received);
  await change();
  await waitFor(async () => apis().every((api, i) => api.service.accessChanges!.received > before[i]!));
}
