import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Scheduler } from "../../src/jobs/scheduler.js";
import { createCompetitor, createSource, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let admin: TestMember;
beforeAll(async () => {
  app = await startTestApp({ ROLE: "api", SCHEDULER_TICK_SECONDS: "60" });
  admin = await createWorkspace(app, { isAdmin: true });
});
afterAll(async () => app?.stop());

describe("admin operations views", () => {
  it("lists failing sources of every workspace, most recent failure first, paginated", async () => {
    const a = await createWorkspace(app);
    const b = await createWorkspace(app);
    const ca = await createCompetitor(app, a);
    const cb = await createCompetitor(app, b);
    const { id: older } = await createSource(app, a, {
      competitorId: ca.id,
      source_type: "pricing",
      error_message: "HTTP 503 from a.test",
      last_error_at: new Date(Date.now() - 60_000),
    });
    const { id: newer } = await createSource(app, b, {
      competitorId: cb.id,
      source_type: "careers",
      error_message: "timed out after 20 s",
      last_error_at: new Date(),
    });
    await createSource(app, a, { competitorId: ca.id, source_type: "blog" });
    const page = await app.http.get("/admin/sources/failures?limit=1").set("Authorization", admin.bearer).expect(200);
    expect(page.body).toMatchObject({ limit: 1, offset: 0, total: 2 });
    expect(page.body.items).toEqual([
      expect.objectContaining({ id: newer, error_message: "timed out after 20 s", source_type: "careers" }),
    ]);
    const next = await app.http
      .get("/admin/sources/failures?limit=1&offset=1")
      .set("Authorization", admin.bearer)
      .expect(200);
    expect(next.body.items[0].id).toBe(older);
  });

  it("counts healthy and errored sources per type", async () => {
    const res = await app.http.get("/admin/sources/health").set("Authorization", admin.bearer).expect(200);
    const pricing = res.body.find((r: { source_type: string }) => r.source_type === "pricing");
    expect(pricing.healthy + pricing.errored).toBe(pricing.total);
    expect(pricing.errored).toBeGreaterThanOrEqual(1);
  });

  it("lists jobs with their entity, state and attempts", async () => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member);
    const { id: sourceId } = await createSource(app, member, { competitorId: competitor.id, source_type: "pricing" });
    const run = await app.http.post(`/sources/${sourceId}/run-now`).set("Authorization", member.bearer).expect(202);
    const res = await app.http.get("/admin/jobs?limit=200").set("Authorization", admin.bearer).expect(200);
    const job = res.body.find((j: { id: string }) => j.id === run.body.job_id);
    expect(job).toMatchObject({
      job_type: "source-fetch",
      entity_type: "source",
      entity_id: sourceId,
      status: "created",
      attempts: 0,
      last_error: null,
      started_at: null,
      completed_at: null,
    });
    const limited = await app.http.get("/admin/jobs?limit=1").set("Authorization", admin.bearer).expect(200);
    expect(limited.body).toHaveLength(1);
  });

  it("reports the scheduler's heartbeat", async () => {
    const before = await app.http.get("/admin/scheduler").set("Authorization", admin.bearer).expect(200);
    expect(before.body).toMatchObject({
      enabled: false,
      healthy: false,
      last_tick_at: null,
      next_run_at: null,
      recent_runs: [],
    });
    const { knex, jobs, log } = app.service.services;
    await new Scheduler({ knex, jobs, log }, 60).tick({ force: true });
    const after = await app.http.get("/admin/scheduler").set("Authorization", admin.bearer).expect(200);
    expect(after.body).toMatchObject({
      enabled: true,
      healthy: true,
      stale_after_seconds: 180,
      daily_hour_utc: 0,
      weekly_dow: 0,
    });
    expect(after.body.seconds_since_last_tick).toBeLessThan(5);
    expect(new Date(after.body.next_run_at).getTime() - new Date(after.body.last_tick_at).getTime()).toBe(60_000);
    expect(new Date(after.body.next_daily_run_at).getUTCHours()).toBe(0);
    expect(new Date(after.body.next_weekly_run_at).getUTCDay()).toBe(1); // weekly_dow 0 = Monday
  });

  it("is for platform admins only", async () => {
    const member = await createWorkspace(app, { plan: "enterprise" });
    for (const path of ["/admin/jobs", "/admin/scheduler", "/admin/sources/failures", "/admin/sources/health"]) {
      await app.http.get(path).set("Authorization", member.bearer).expect(403);
    }
  });
});
