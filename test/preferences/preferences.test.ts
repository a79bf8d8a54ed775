import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { untilCallerSees } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const read = (member: TestMember) => app.http.get("/me/preferences").set("Authorization", member.bearer);
const update = (member: TestMember, body: Record<string, unknown>) =>
  app.http.patch("/me/preferences").set("Authorization", member.bearer).send(body);

/** The distinct fields named by the 422's issues, as `body.<field>` (one field may fail several schema rules). */
const locs = (res: { body: { detail: { loc: unknown[] }[] } }) => [
  ...new Set(res.body.detail.map((d) => d.loc.join("."))),
];

describe("preferences", () => {
  it("starts a new user on weekly, hour 8, Monday, UTC (the spec's documented defaults)", async () => {
    const member = await createWorkspace(app);
    const res = await read(member).expect(200);
    expect(res.body).toEqual({
      digest_frequency: "weekly",
      digest_hour_local: 8,
      digest_timezone: "UTC",
      digest_weekly_dow: 0,
    });
  });

  it("keeps the time zone given at sign-up", async () => {
    const signup = await app.http
      .post("/auth/signup")
      .send({ email: "tz-signup@example.com", name: "Ada", password: "a long password", digest_timezone: "Asia/Tokyo" })
      .expect(201);
    const res = await app.http
      .get("/me/preferences")
      .set("Authorization", `Bearer ${signup.body.access_token}`)
      .expect(200);
    expect(res.body).toEqual({
      digest_frequency: "weekly",
      digest_hour_local: 8,
      digest_timezone: "Asia/Tokyo",
      digest_weekly_dow: 0,
    });
  });

  it("changes only the fields given and returns the full schedule", async () => {
    const member = await createWorkspace(app);
    const first = await update(member, { digest_hour_local: 17, digest_timezone: "Europe/Berlin" }).expect(200);
    expect(first.body).toEqual({
      digest_frequency: "weekly",
      digest_hour_local: 17,
      digest_timezone: "Europe/Berlin",
      digest_weekly_dow: 0,
    });
    const second = await update(member, { digest_weekly_dow: 6, digest_frequency: "off" }).expect(200);
    expect(second.body).toEqual({
      digest_frequency: "off",
      digest_hour_local: 17,
      digest_timezone: "Europe/Berlin",
      digest_weekly_dow: 6,
    });
    expect((await read(member).expect(200)).body).toEqual(second.body);
  });

  it("leaves a field unchanged when it is null, and answers the current schedule for an empty body", async () => {
    const member = await createWorkspace(app);
    await update(member, { digest_hour_local: 0, digest_weekly_dow: 3, digest_timezone: "America/New_York" }).expect(
      200,
    );
    const nulls = await update(member, {
      digest_frequency: null,
      digest_hour_local: null,
      digest_timezone: null,
      digest_weekly_dow: null,
    }).expect(200);
    const expected = {
      digest_frequency: "weekly",
      digest_hour_local: 0,
      digest_timezone: "America/New_York",
      digest_weekly_dow: 3,
    };
    expect(nulls.body).toEqual(expected);
    expect((await update(member, {}).expect(200)).body).toEqual(expected);
  });

  it("accepts the bounds of the hour (0, 23) and the weekday (0, 6)", async () => {
    const member = await createWorkspace(app);
    expect((await update(member, { digest_hour_local: 23, digest_weekly_dow: 6 }).expect(200)).body).toMatchObject({
      digest_hour_local: 23,
      digest_weekly_dow: 6,
    });
    expect((await update(member, { digest_hour_local: 0, digest_weekly_dow: 0 }).expect(200)).body).toMatchObject({
      digest_hour_local: 0,
      digest_weekly_dow: 0,
    });
  });

  it("answers 422 for an hour outside 0–23", async () => {
    const member = await createWorkspace(app);
    expect(locs(await update(member, { digest_hour_local: 24 }).expect(422))).toEqual(["body.digest_hour_local"]);
    expect(locs(await update(member, { digest_hour_local: -1 }).expect(422))).toEqual(["body.digest_hour_local"]);
    expect(locs(await update(member, { digest_hour_local: 7.5 }).expect(422))).toEqual(["body.digest_hour_local"]);
  });

  it("answers 422 for a weekday outside 0–6", async () => {
    const member = await createWorkspace(app);
    expect(locs(await update(member, { digest_weekly_dow: 7 }).expect(422))).toEqual(["body.digest_weekly_dow"]);
    expect(locs(await update(member, { digest_weekly_dow: -1 }).expect(422))).toEqual(["body.digest_weekly_dow"]);
  });

  it("answers 422 for a frequency that is not daily, weekly or off", async () => {
    const member = await createWorkspace(app);
    const res = await update(member, { digest_frequency: "hourly" }).expect(422);
    expect(locs(res)).toEqual(["body.digest_frequency"]);
  });

  it("answers 422 at body.digest_timezone for an unknown time zone, and changes nothing", async () => {
    const member = await createWorkspace(app);
    const res = await update(member, { digest_timezone: "Mars/Olympus_Mons", digest_hour_local: 5 }).expect(422);
    expect(res.body).toEqual({
      detail: [
        {
          loc: ["body", "digest_timezone"],
          msg: "Unknown IANA time zone 'Mars/Olympus_Mons'",
          type: "value_error",
        },
      ],
    });
    expect(locs(await update(member, { digest_timezone: "" }).expect(422))).toEqual(["body.digest_timezone"]);
    expect((await read(member).expect(200)).body).toMatchObject({ digest_timezone: "UTC", digest_hour_local: 8 });
  });

  it("answers 422 for zones Node accepts but Postgres does not (Java-style aliases), at sign-up and here", async () => {
    const member = await createWorkspace(app);
    for (const alias of ["AET", "CTT", "SystemV/AST4"]) {
      // The premise: Node alone would have let these through.
      expect(() => new Intl.DateTimeFormat("en-US", { timeZone: alias })).not.toThrow();
      expect(locs(await update(member, { digest_timezone: alias }).expect(422))).toEqual(["body.digest_timezone"]);
    }
    const signUp = await app.http
      .post("/auth/signup")
      .send({ email: "tz-alias@example.com", name: "Ada", password: "a long password", digest_timezone: "CTT" })
      .expect(422);
    expect(locs(signUp)).toEqual(["body.digest_timezone"]);
    // Names both know still pass, whatever their letter case and whether canonical or a legacy link.
    for (const zone of ["US/Eastern", "Asia/Calcutta", "europe/paris"]) {
      await update(member, { digest_timezone: zone }).expect(200);
    }
  });

  it("answers 403 for daily digests on the free plan, and changes nothing", async () => {
    const member = await createWorkspace(app, { plan: "free" });
    const res = await update(member, { digest_frequency: "daily", digest_hour_local: 6 }).expect(403);
    expect(res.body.detail).toMatch(/free plan does not include daily digests/);
    expect((await read(member).expect(200)).body).toMatchObject({ digest_frequency: "weekly", digest_hour_local: 8 });
    // Weekly and off need no plan flag.
    await update(member, { digest_frequency: "off" }).expect(200);
    await update(member, { digest_frequency: "weekly" }).expect(200);
  });

  it("allows daily digests on plans with daily_digest, once the workspace is upgraded", async () => {
    const member = await createWorkspace(app, { plan: "free" });
    await update(member, { digest_frequency: "daily" }).expect(403);
    await app.service.services.knex("workspaces").where({ id: member.workspaceId }).update({ plan: "starter" });
    const res = await untilCallerSees(() => update(member, { digest_frequency: "daily" }), 200);
    expect(res.body.digest_frequency).toBe("daily");
    for (const plan of ["growth", "enterprise"] as const) {
      const other = await createWorkspace(app, { plan });
      await update(other, { digest_frequency: "daily" }).expect(200);
    }
  });

  it("keeps each user's preferences their own, members included", async () => {
    const owner = await createWorkspace(app, { plan: "starter" });
    const member = await addMember(app, owner.workspaceId, { role: "member" });
    const mine = await update(member, { digest_frequency: "daily", digest_timezone: "Europe/Paris" }).expect(200);
    expect(mine.body).toMatchObject({ digest_frequency: "daily", digest_timezone: "Europe/Paris" });
    expect((await read(owner).expect(200)).body).toMatchObject({ digest_frequency: "weekly", digest_timezone: "UTC" });
  });

  it("answers 401 without a token", async () => {
    await app.http.get("/me/preferences").expect(401);
    await app.http.patch("/me/preferences").send({ digest_hour_local: 3 }).expect(401);
  });
});
