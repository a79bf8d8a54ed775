/**
 * The public pricing catalog (`GET /pricing/plans`): no token needed, every plan in the contract's order with the
 * limits and prices of docs/product-rules.md#plans-and-limits. The expected table is written out here, not read from
 * src/workspaces/plans.ts, so a wrong number in the plan table fails this test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

const EXPECTED = [
  {
    plan: "free",
    label: "Free",
    competitors: 3,
    seats: 1,
    history_days: 30,
    chat_quota: 20,
    api_access: false,
    daily_digest: false,
    realtime: false,
    slack: false,
    partner_workspaces: 0,
    list_price_per_seat_monthly: 0,
    beta_price_per_seat_monthly: 0,
  },
  {
    plan: "starter",
    label: "Starter",
    competitors: 10,
    seats: 3,
    history_days: 90,
    chat_quota: 200,
    api_access: false,
    daily_digest: true,
    realtime: false,
    slack: true,
    partner_workspaces: 0,
    list_price_per_seat_monthly: 49,
    beta_price_per_seat_monthly: 29,
  },
  {
    plan: "growth",
    label: "Growth",
    competitors: 25,
    seats: 10,
    history_days: 365,
    chat_quota: 1000,
    api_access: true,
    daily_digest: true,
    realtime: true,
    slack: true,
    partner_workspaces: 25,
    list_price_per_seat_monthly: 99,
    beta_price_per_seat_monthly: 59,
  },
  {
    plan: "enterprise",
    label: "Enterprise",
    competitors: 100,
    seats: 50,
    history_days: 730,
    chat_quota: 5000,
    api_access: true,
    daily_digest: true,
    realtime: true,
    slack: true,
    partner_workspaces: 250,
    list_price_per_seat_monthly: 199,
    beta_price_per_seat_monthly: 119,
  },
];

describe("GET /pricing/plans", () => {
  it("lists every plan with its limits and per-seat prices, without a token", async () => {
    const res = await app.http.get("/pricing/plans").expect(200);
    expect(res.body).toEqual({ plans: EXPECTED });
  });

  it("answers the same to a signed-in caller of any plan", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const res = await app.http.get("/pricing/plans").set("Authorization", member.bearer).expect(200);
    expect(res.body).toEqual({ plans: EXPECTED });
  });

  it("is read-only: other methods are not routes of the contract", async () => {
    const res = await app.unchecked.post("/pricing/plans").send({});
    expect(res.status).toBe(405);
  });
});
