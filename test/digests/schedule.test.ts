/**
 * Scheduled digests (docs/product-rules.md#schedule): runs at `daily_hour_utc` / `weekly_dow`, generation per eligible
 * workspace, and per-member delivery at each member's local hour, once per digest per member, whatever the number of
 * ticks or schedulers. The tick's clock is moved to January 2030 so the service's own (real-time) ticks never make
 * these digests due; the service's worker runs the jobs, as in production.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoWeek, latestSlots } from "../../src/digests/schedule.js";
import { QUEUES } from "../../src/jobs/queues.js";
import { scheduledTasks } from "../../src/jobs/scheduled-tasks.js";
import { Scheduler } from "../../src/jobs/scheduler.js";
import type { PlanName } from "../../src/workspaces/plans.js";
import { addMember, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  // The service ticked once at start (real clock): let that tick's runs finish before making workspaces, so they
  // only ever get the digests of the January 2030 clock below.
  await waitFor(
    async () => {
      const runs = await knex()("scheduler_runs").count({ n: "*" }).first();
      const open = await knex()("pgboss.job")
        .where({ name: QUEUES.digestGenerate.name })
        .whereIn("state", ["created", "retry", "active"])
        .count({ n: "*" })
        .first();
      return Number(runs?.n) >= 2 && Number(open?.n) === 0;
    },
    30_000,
    "the start-up digest runs",
  );
});
afterAll(async () => {
  await app?.stop();
});

const knex = () => app.service.services.knex;
const scheduler = () => {
  const { knex, jobs, log, config } = app.service.services;
  return new Scheduler({ knex, jobs, log }, 60, scheduledTasks({ config, jobs }));
};
const tickAt = (iso: string) => scheduler().tick({ force: true, now: new Date(iso) });
/** Jobs run on the service's worker; generous on a busy 2-core machine. */
const JOB_WAIT_MS = 30_000;

interface Schedule {
  digest_frequency: "daily" | "weekly" | "off";
  digest_hour_local: number;
  digest_timezone: string;
  digest_weekly_dow?: number;
}

async function setSchedule(member: TestMember, schedule: Schedule): Promise<void> {
  await knex()("users").where({ id: member.userId }).update(schedule);
}

/** The deliveries of the workspace's digest of `mark`, as (address → status). */
async function deliveriesOf(workspaceId: string, mark: string): Promise<Record<string, string>> {
  const rows = await knex()("digest_deliveries as d")
    .join("digests as g", "g.id", "d.digest_id")
    .where({ "g.workspace_id": workspaceId, "g.scheduled_mark": mark })
    .select("d.recipient_email", "d.status");
  return Object.fromEntries(rows.map((r) => [r.recipient_email, r.status]));
}

const digestOf = (workspaceId: string, mark: string) =>
  knex()("digests").where({ workspace_id: workspaceId, scheduled_mark: mark }).first();

describe("slots", () => {
  it("names runs by day and ISO week, at the configured hour and weekday", () => {
    expect(latestSlots(new Date("2030-01-09T05:00:00Z"), 6, 0)).toEqual([
      { mark: "daily:2030-01-08", period_type: "daily", scheduled_for: "2030-01-08T06:00:00.000Z" },
      { mark: "weekly:2030-W02", period_type: "weekly", scheduled_for: "2030-01-07T06:00:00.000Z" },
    ]);
    expect(latestSlots(new Date("2030-01-13T23:00:00Z"), 0, 6)[1]).toEqual({
      mark: "weekly:2030-W02",
      period_type: "weekly",
      scheduled_for: "2030-01-13T00:00:00.000Z",
    });
    expect(isoWeek(new Date("2027-01-01T00:00:00Z"))).toBe("2026-W53");
    expect(isoWeek(new Date("2024-12-30T00:00:00Z"))).toBe("2025-W01");
  });
});

describe("scheduled digests", () => {
  const MONDAY = "2030-01-07"; // slots: daily:2030-01-07 and weekly:2030-W02, both at 00:00 UTC

  let growth: { owner: TestMember; newYork: TestMember; wednesday: TestMember; off: TestMember };
  let free: { owner: TestMember; member: TestMember; alias: TestMember };
  let nobody: TestMember;

  async function workspace(plan: PlanName) {
    return createWorkspace(app, { plan });
  }

  beforeAll(async () => {
    const owner = await workspace("growth");
    growth = {
      owner,
      newYork: await addMember(app, owner.workspaceId),
      wednesday: await addMember(app, owner.workspaceId),
      off: await addMember(app, owner.workspaceId),
    };
    await setSchedule(growth.owner, { digest_frequency: "daily", digest_hour_local: 8, digest_timezone: "UTC" });
    await setSchedule(growth.newYork, {
      digest_frequency: "weekly",
      digest_hour_local: 9,
      digest_timezone: "America/New_York",
      digest_weekly_dow: 0,
    });
    await setSchedule(growth.wednesday, {
      digest_frequency: "weekly",
      digest_hour_local: 8,
      digest_timezone: "Europe/Berlin",
      digest_weekly_dow: 2,
    });
    await setSchedule(growth.off, { digest_frequency: "off", digest_hour_local: 8, digest_timezone: "UTC" });

    const freeOwner = await workspace("free");
    free = {
      owner: freeOwner,
      member: await addMember(app, freeOwner.workspaceId),
      alias: await addMember(app, freeOwner.workspaceId),
    };
    // Set directly: the API refuses `daily` on free; the scheduler must not send it either.
    await setSchedule(free.owner, { digest_frequency: "daily", digest_hour_local: 8, digest_timezone: "UTC" });
    await setSchedule(free.member, { digest_frequency: "weekly", digest_hour_local: 8, digest_timezone: "UTC" });
    // A zone Node accepts and Postgres does not, stored before both were checked: it used to fail the delivery
    // statement for every workspace; now it is read as UTC and affects no one else.
    await setSchedule(free.alias, { digest_frequency: "weekly", digest_hour_local: 8, digest_timezone: "AET" });

    nobody = await workspace("growth");
    await setSchedule(nobody, { digest_frequency: "off", digest_hour_local: 8, digest_timezone: "UTC" });
  });

  it("enqueues each run once, however many schedulers tick at once", async () => {
    await Promise.all([tickAt(`${MONDAY}T00:30:00Z`), tickAt(`${MONDAY}T00:30:00Z`), tickAt(`${MONDAY}T00:31:00Z`)]);
    // And a later tick in the same slots (another process, or a restart).
    await tickAt(`${MONDAY}T05:00:00Z`);
    const runs = await knex()("scheduler_runs").whereIn("mark", [`daily:${MONDAY}`, "weekly:2030-W02"]);
    expect(runs.map((r) => r.mark).sort()).toEqual([`daily:${MONDAY}`, "weekly:2030-W02"]);
    const generateJobs = await knex()("pgboss.job")
      .where({ name: QUEUES.digestGenerate.name })
      .whereRaw("data->>'mark' = ANY(?)", [[`daily:${MONDAY}`, "weekly:2030-W02"]]);
    expect(generateJobs.map((job) => job.data.mark).sort()).toEqual([`daily:${MONDAY}`, "weekly:2030-W02"]);
    expect(runs.find((r) => r.mark === "weekly:2030-W02").scheduled_for.toISOString()).toBe(`${MONDAY}T00:00:00.000Z`);
  });

  it("generates digests for workspaces with members on that frequency, daily ones only on plans with daily_digest", async () => {
    const daily = await waitFor(
      () => digestOf(growth.owner.workspaceId, `daily:${MONDAY}`),
      JOB_WAIT_MS,
      "daily digest",
    );
    expect(daily.period_end.toISOString()).toBe(`${MONDAY}T00:00:00.000Z`);
    expect(daily.period_start.toISOString()).toBe("2030-01-06T00:00:00.000Z");
    const weekly = await waitFor(() => digestOf(growth.owner.workspaceId, "weekly:2030-W02"), JOB_WAIT_MS, "weekly");
    expect(weekly.period_start.toISOString()).toBe("2029-12-31T00:00:00.000Z");
    await waitFor(() => digestOf(free.owner.workspaceId, "weekly:2030-W02"), JOB_WAIT_MS, "free weekly digest");
    expect(await digestOf(free.owner.workspaceId, `daily:${MONDAY}`)).toBeUndefined();
    expect(await digestOf(nobody.workspaceId, "weekly:2030-W02")).toBeUndefined();

    // Shown to platform admins.
    const admin = await createWorkspace(app, { isAdmin: true });
    const status = await app.http.get("/admin/scheduler").set("Authorization", admin.bearer).expect(200);
    expect(status.body.recent_runs.map((r: { mark: string }) => r.mark)).toEqual(
      expect.arrayContaining([`daily:${MONDAY}`, "weekly:2030-W02"]),
    );
  });

  it("delivers each member's digest at their local hour, once", async () => {
    const daily = `daily:${MONDAY}`;
    const weekly = "weekly:2030-W02";
    await tickAt(`${MONDAY}T07:59:00Z`);
    expect(await deliveriesOf(growth.owner.workspaceId, daily)).toEqual({});

    // 08:00 UTC: the owner's daily digest, and the free member's weekly one (Monday 08:00 UTC).
    await tickAt(`${MONDAY}T08:00:00Z`);
    await waitFor(
      async () => (await deliveriesOf(growth.owner.workspaceId, daily))[growth.owner.email] === "sent",
      JOB_WAIT_MS,
    );
    await waitFor(
      async () => (await deliveriesOf(free.owner.workspaceId, weekly))[free.member.email] === "sent",
      JOB_WAIT_MS,
    );
    await waitFor(
      async () => (await deliveriesOf(free.owner.workspaceId, weekly))[free.alias.email] === "sent",
      JOB_WAIT_MS,
    );
    expect(await deliveriesOf(growth.owner.workspaceId, weekly)).toEqual({});

    // 09:00 in New York is 14:00 UTC in January.
    await tickAt(`${MONDAY}T13:59:00Z`);
    expect(await deliveriesOf(growth.owner.workspaceId, weekly)).toEqual({});
    await tickAt(`${MONDAY}T14:00:00Z`);
    await waitFor(
      async () => (await deliveriesOf(growth.owner.workspaceId, weekly))[growth.newYork.email] === "sent",
      JOB_WAIT_MS,
    );

    // Wednesday 08:00 in Berlin is 07:00 UTC.
    await tickAt("2030-01-09T06:59:00Z");
    expect(Object.keys(await deliveriesOf(growth.owner.workspaceId, weekly))).toEqual([growth.newYork.email]);
    await tickAt("2030-01-09T07:00:00Z");
    await waitFor(
      async () => (await deliveriesOf(growth.owner.workspaceId, weekly))[growth.wednesday.email] === "sent",
      JOB_WAIT_MS,
    );

    // Later ticks (and a second scheduler) send nothing again; `off` and the free plan's daily never get one.
    await Promise.all([tickAt("2030-01-09T12:00:00Z"), tickAt("2030-01-09T12:00:00Z")]);
    expect(await deliveriesOf(growth.owner.workspaceId, daily)).toEqual({ [growth.owner.email]: "sent" });
    expect(await deliveriesOf(growth.owner.workspaceId, weekly)).toEqual({
      [growth.newYork.email]: "sent",
      [growth.wednesday.email]: "sent",
    });
    expect(await deliveriesOf(free.owner.workspaceId, weekly)).toEqual({
      [free.member.email]: "sent",
      [free.alias.email]: "sent",
    });
    const mails = await knex()("email_outbox").where({ to_address: growth.owner.email });
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toMatch(/^Daily digest for /);
  });

  it("gives a member only the latest digest of their frequency: a newer one supersedes one not yet sent", async () => {
    // Wednesday's daily digest exists (the Wednesday ticks above queued its run). Thursday's run is generated; only
    // then does a new member join, so both digests exist when the member's first digest is due at 08:00 UTC.
    await tickAt("2030-01-10T00:10:00Z");
    await waitFor(() => digestOf(growth.owner.workspaceId, "daily:2030-01-10"), JOB_WAIT_MS, "Thursday's digest");
    expect(await digestOf(growth.owner.workspaceId, "daily:2030-01-09")).toBeDefined();
    const late = await addMember(app, growth.owner.workspaceId);
    await setSchedule(late, { digest_frequency: "daily", digest_hour_local: 8, digest_timezone: "UTC" });

    await tickAt("2030-01-10T07:59:00Z");
    await tickAt("2030-01-10T08:00:00Z");
    await waitFor(
      async () => (await deliveriesOf(growth.owner.workspaceId, "daily:2030-01-10"))[late.email] === "sent",
      JOB_WAIT_MS,
    );
    expect((await deliveriesOf(growth.owner.workspaceId, "daily:2030-01-09"))[late.email]).toBeUndefined();
    expect(await knex()("email_outbox").where({ to_address: late.email })).toHaveLength(1);
  }, 60_000);
});
