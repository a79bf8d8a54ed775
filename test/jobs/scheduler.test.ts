import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCommand } from "../../src/cli/admin.js";
import { scheduledTasks } from "../../src/jobs/scheduled-tasks.js";
import { Scheduler } from "../../src/jobs/scheduler.js";
import { createCompetitor, createSource, createWorkspace, type SourceFields } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let scheduler: Scheduler;
beforeAll(async () => {
  // API role: no worker picks the jobs up, so the queue can be inspected as the scheduler left it.
  app = await startTestApp({ ROLE: "api" });
  const { knex, jobs, log } = app.service.services;
  scheduler = new Scheduler({ knex, jobs, log }, 60);
});
afterAll(async () => app?.stop());

/** A pricing source at `url` (the host decides the spacing); its id. */
async function source(
  competitorId: string,
  workspaceId: string,
  url: string,
  fields: Omit<SourceFields, "competitorId" | "url"> = {},
): Promise<string> {
  const row = await createSource(app, { workspaceId }, { competitorId, url, source_type: "pricing", ...fields });
  return row.id;
}

const queued = (sourceId: string) =>
  app.service.services
    .knex("pgboss.job")
    .where({ name: "source-fetch" })
    .whereRaw("data->>'source_id' = ?", [sourceId]);

describe("the fetch scheduler", () => {
  it("enqueues due active sources once, spaces one host's sources apart, and skips the rest", async () => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member);
    const knex = app.service.services.knex;
    const never = await source(competitor.id, member.workspaceId, "https://acme.test/pricing");
    const sameHost = await source(competitor.id, member.workspaceId, "https://acme.test/careers");
    const overdue = await source(competitor.id, member.workspaceId, "https://other.test/", {
      last_fetched_at: new Date(Date.now() - 2 * 86400_000),
    });
    const fresh = await source(competitor.id, member.workspaceId, "https://fresh.test/", {
      last_fetched_at: new Date(),
    });
    const paused = await source(competitor.id, member.workspaceId, "https://paused.test/", { is_active: false });

    expect(await scheduler.tick({ force: true })).toBeGreaterThanOrEqual(3);
    for (const id of [never, sameHost, overdue]) expect(await queued(id), id).toHaveLength(1);
    for (const id of [fresh, paused]) expect(await queued(id), id).toHaveLength(0);

    const [a] = await queued(never);
    const [b] = await queued(sameHost);
    const gap = Math.abs(new Date(a.start_after).getTime() - new Date(b.start_after).getTime()) / 1000;
    expect(gap).toBeGreaterThanOrEqual(1); // HOST_SPACING_SECONDS (2) minus the jitter (≤ 1)
    const row = await knex("sources").where({ id: never }).first();
    expect(row.fetch_job_id).toBe(a.id);

    // Already queued: a second tick adds nothing for them.
    await scheduler.tick({ force: true });
    for (const id of [never, sameHost, overdue]) expect(await queued(id)).toHaveLength(1);
  });

  it("lets one tick per interval through, whatever the number of callers", async () => {
    const results = await Promise.all([scheduler.tick(), scheduler.tick(), scheduler.tick()]);
    expect(results.filter((n) => n > 0).length).toBeLessThanOrEqual(1);
    const state = await app.service.services.knex("scheduler_state").where({ id: 1 }).first();
    expect(state.last_tick_at).not.toBeNull();
  });

  it("re-queues a source whose queued fetch was lost", async () => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member);
    const lost = await source(competitor.id, member.workspaceId, "https://lost.test/", {
      fetch_job_id: "00000000-0000-4000-8000-00000000dead",
      fetch_queued_at: new Date(Date.now() - 2 * 3600_000),
    });
    await scheduler.tick({ force: true });
    expect(await queued(lost)).toHaveLength(1);
  });
});

describe("the scheduler's periodic tasks", () => {
  it("queues yesterday's CRM rollup once per connection, and a failing task leaves the rest of the tick standing", async () => {
    const { knex, jobs, log, config } = app.service.services;
    const owner = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, owner);
    const connection = (await runAdminCommand(
      [
        "crm-connect",
        owner.workspaceId,
        "--provider",
        "hubspot",
        "--base-url",
        "http://127.0.0.1:9",
        "--token",
        "pat-test-token-123456",
        "--mapping",
        JSON.stringify({ [competitor.id]: { account_ids: ["1001"] } }),
      ],
      app.service.services,
    )) as { id: string };
    const overdue = await source(competitor.id, owner.workspaceId, "https://tasks.test/");
    const failing = { name: "broken", run: async () => Promise.reject(new Error("boom")) };
    const withTasks = new Scheduler({ knex, jobs, log }, 60, [failing, ...scheduledTasks({ config, jobs })]);

    const now = new Date("2030-03-05T00:05:00Z");
    await withTasks.tick({ force: true, now });
    await withTasks.tick({ force: true, now });
    expect(await queued(overdue)).toHaveLength(1);
    const runs = await knex("crm_rollup_runs")
      .where({ connection_id: connection.id })
      .select("id", knex.raw("day::text AS day"));
    expect(runs.map((r) => r.day)).toEqual(["2030-03-04"]);
    expect(
      await knex("pgboss.job").where({ name: "crm-rollup" }).whereRaw("data->>'run_id' = ?", [runs[0].id]),
    ).toHaveLength(1);
  });
});
