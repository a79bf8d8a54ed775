/**
 * `GET /me/plan` and `POST /beta-claims` (docs/product-rules.md#billing), on a deployment without a payments
 * provider: checkout, the portal and the payments webhook answer 503 here (docs/product-rules.md#status-codes).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const knex = () => app.service.services.knex;
const myPlan = (member: TestMember) => app.http.get("/me/plan").set("Authorization", member.bearer);
const claim = (member: TestMember, body: Record<string, unknown>) =>
  app.http.post("/beta-claims").set("Authorization", member.bearer).send(body);
const mailsTo = (address: string) => knex()("outgoing_emails").where({ to_address: address });
const uniqueEmail = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}@example.com`;

describe("GET /me/plan", () => {
  it("answers the plan, its limits, live usage and an empty billing state for a new workspace", async () => {
    const owner = await createWorkspace(app, { plan: "starter" });
    const member = await addMember(app, owner.workspaceId);
    await createCompetitor(app, owner, { name: "Acme", domain: "acme.test" });
    await createCompetitor(app, owner, { name: "Globex", domain: "globex.test" });
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
    await knex()("chat_messages").insert(
      [now, now, now, lastMonth].map((created_at) => ({
        workspace_id: owner.workspaceId,
        user_id: owner.userId,
        messages: JSON.stringify([{ role: "user", content: "What changed?" }]),
        reply: "Nothing yet.",
        created_at,
      })),
    );
    // Another workspace's rows count for that workspace only.
    const other = await createWorkspace(app);
    await createCompetitor(app, other, { name: "Initech", domain: "initech.test" });

    const res = await myPlan(member).expect(200);
    expect(res.body).toEqual({
      plan: "starter",
      plan_label: "Starter",
      beta_claimed_at: null,
      beta_grandfathered: false,
      billing: {
        current_period_end: null,
        payments_customer_id: null,
        payments_subscription_id: null,
        subscription_status: null,
      },
      limits: {
        api_access: false,
        chat_quota: 200,
        competitors: 10,
        daily_digest: true,
        history_days: 90,
        realtime: false,
        seats: 3,
        slack: true,
        partner_workspaces: 0,
      },
      usage: { chat_used: 3, competitors: 2, seats: 2 },
    });
  });

  it("shows the stored billing state", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    await knex()("workspaces")
      .where({ id: owner.workspaceId })
      .update({
        payments_customer_id: "cus_PlanTest",
        payments_subscription_id: "sub_PlanTest",
        subscription_status: "past_due",
        current_period_end: new Date("2027-01-31T00:00:00Z"),
      });
    const res = await myPlan(owner).expect(200);
    expect(res.body.billing).toEqual({
      current_period_end: "2027-01-31T00:00:00.000Z",
      payments_customer_id: "cus_PlanTest",
      payments_subscription_id: "sub_PlanTest",
      subscription_status: "past_due",
    });
    expect(res.body.limits).toMatchObject({ api_access: true, competitors: 25, seats: 10 });
  });

  it("answers 401 without a token", async () => {
    await app.http.get("/me/plan").expect(401);
  });
});

describe("POST /beta-claims", () => {
  it("records the claim with the contract's fields as sent, marks the workspace and acknowledges it by mail", async () => {
    const owner = await createWorkspace(app);
    const member = await addMember(app, owner.workspaceId);
    const contact = uniqueEmail("ada");
    const sent = {
      contact_email: contact,
      requested_tier: "growth",
      seat_count: 4,
      contact_name: "Ada Lovelace",
      company_name: "Analytical Engines Ltd",
      referral_code: "LAUNCH-2026",
      preferences: { onboarding_call: true, timezones: ["Europe/London"] },
    };
    // Any member may claim (only checkout and the portal are for owners).
    const res = await claim(member, sent).expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      message: `Beta pricing for Growth is reserved for ${contact}; we sent a confirmation and will be in touch.`,
      requested_tier: "growth",
      seat_count: 4,
    });

    const row = await knex()("beta_claims").where({ id: res.body.id }).first();
    // The contract's fields as sent, the contract's defaults (billing_cycle) not added; fields the contract does not
    // know are not stored (a claim cannot store a megabyte of anything).
    const { referral_code: _code, preferences: _preferences, ...known } = sent;
    expect(row.fields).toEqual(known);
    expect(row).toMatchObject({
      workspace_id: owner.workspaceId,
      user_id: member.userId,
      contact_email: contact,
      requested_tier: "growth",
      billing_cycle: "monthly",
      seat_count: 4,
      contact_name: "Ada Lovelace",
      notes: null,
    });

    const mails = await mailsTo(contact);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe("Your Rivalscope beta pricing for Growth is reserved");
    // The mail goes to an address the caller chose, so it carries none of the caller's text.
    expect(mails[0].text_body).toMatch(/^Hello,/);
    expect(mails[0].text_body).not.toContain("Ada Lovelace");
    expect(mails[0].text_body).toContain("4 seats, billed monthly, at $59 per seat per month (instead of $99)");

    const plan = await myPlan(owner).expect(200);
    expect(plan.body.beta_grandfathered).toBe(true);
    expect(Date.parse(plan.body.beta_claimed_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("is idempotent per contact email (any case) and tier: the first claim is returned unchanged, no second mail", async () => {
    const owner = await createWorkspace(app);
    const contact = uniqueEmail("grace");
    const first = await claim(owner, { contact_email: contact, requested_tier: "starter", seat_count: 2 }).expect(201);
    const claimedAt = (await myPlan(owner).expect(200)).body.beta_claimed_at;

    const again = await claim(owner, {
      contact_email: contact.toUpperCase(),
      requested_tier: "starter",
      seat_count: 3,
      notes: "changed my mind",
    }).expect(201);
    expect(again.body).toEqual({
      id: first.body.id,
      message: expect.stringMatching(/^Beta pricing for Starter was already reserved for .+; nothing changed\.$/),
      requested_tier: "starter",
      seat_count: 2,
    });
    expect(await knex()("beta_claims").whereRaw("lower(contact_email) = ?", [contact])).toHaveLength(1);
    expect(await mailsTo(contact)).toHaveLength(1);

    // Another tier is another claim; the workspace keeps its first claim's time.
    const enterprise = await claim(owner, { contact_email: contact, requested_tier: "enterprise" }).expect(201);
    expect(enterprise.body.id).not.toBe(first.body.id);
    expect(enterprise.body.seat_count).toBe(1);
    expect((await myPlan(owner).expect(200)).body.beta_claimed_at).toBe(claimedAt);
    expect(await mailsTo(contact)).toHaveLength(2);
  });

  it("makes one claim and one mail of concurrent duplicates", async () => {
    const owner = await createWorkspace(app);
    const contact = uniqueEmail("concurrent");
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => claim(owner, { contact_email: contact, requested_tier: "growth" })),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(6).fill(201));
    expect(new Set(answers.map((res) => res.body.id)).size).toBe(1);
    expect(await knex()("beta_claims").where({ contact_email: contact })).toHaveLength(1);
    expect(await mailsTo(contact)).toHaveLength(1);
  });

  it("keeps each workspace's claims its own: another workspace claiming the same contact and tier gets its claim", async () => {
    const first = await createWorkspace(app);
    const second = await createWorkspace(app);
    const contact = uniqueEmail("shared");
    const mine = await claim(first, { contact_email: contact, requested_tier: "growth" }).expect(201);
    // No 409: an answer that differs would tell any caller whether an address has claimed somewhere.
    const theirs = await claim(second, { contact_email: contact, requested_tier: "growth" }).expect(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.body.message).toBe(
      `Beta pricing for Growth is reserved for ${contact}; we sent a confirmation and will be in touch.`,
    );
    expect((await myPlan(second).expect(200)).body.beta_grandfathered).toBe(true);
  });

  it("takes at most 10 claims per workspace per hour, then 429 with Retry-After and no mail", async () => {
    const owner = await createWorkspace(app);
    for (let i = 0; i < 10; i++) {
      await claim(owner, { contact_email: uniqueEmail(`relay${i}`), requested_tier: "growth" }).expect(201);
    }
    const victim = uniqueEmail("victim");
    const res = await claim(owner, { contact_email: victim, requested_tier: "growth" }).expect(429);
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    expect(await mailsTo(victim)).toHaveLength(0);
    expect(await knex()("beta_claims").where({ workspace_id: owner.workspaceId })).toHaveLength(10);
  });

  it("answers 422 for the free tier, an invalid email and a missing tier", async () => {
    const owner = await createWorkspace(app);
    const free = await claim(owner, { contact_email: uniqueEmail("free"), requested_tier: "free" }).expect(422);
    expect(free.body.detail).toEqual([
      {
        loc: ["body", "requested_tier"],
        msg: "Beta pricing is for paid plans: starter, growth or enterprise",
        type: "value_error",
      },
    ]);
    const bad = await claim(owner, { contact_email: "not-an-email", seat_count: 0 }).expect(422);
    expect(bad.body.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual(
      expect.arrayContaining([
        ["body", "contact_email"],
        ["body", "requested_tier"],
        ["body", "seat_count"],
      ]),
    );
    expect((await myPlan(owner).expect(200)).body.beta_grandfathered).toBe(false);
  });

  it("answers 401 without a token", async () => {
    await app.http.post("/beta-claims").send({ contact_email: "x@example.com", requested_tier: "growth" }).expect(401);
  });
});

describe("without a payments provider", () => {
  it("answers 503 to checkout and the portal, after the owner check", async () => {
    const owner = await createWorkspace(app);
    const member = await addMember(app, owner.workspaceId);
    const checkout = await app.http
      .post("/billing/checkout")
      .set("Authorization", owner.bearer)
      .send({ plan: "growth" })
      .expect(503);
    expect(checkout.body.detail).toMatch(/Payments are not configured on this deployment \(PAYMENTS_API_KEY/);
    await app.http.post("/billing/portal").set("Authorization", owner.bearer).expect(503);
    await app.http.post("/billing/checkout").set("Authorization", member.bearer).send({ plan: "growth" }).expect(403);
    await app.http.post("/billing/portal").set("Authorization", member.bearer).expect(403);
  });

  it("answers 503 to the payments webhook, which cannot verify events without PAYMENTS_WEBHOOK_SECRET", async () => {
    const res = await app.http
      .post("/billing/webhook")
      .set("Payments-Signature", "t=1,v1=00")
      .send({ id: "evt_unverifiable", type: "customer.subscription.deleted", data: { object: {} } })
      .expect(503);
    expect(res.body.detail).toMatch(/PAYMENTS_WEBHOOK_SECRET is not set/);
    expect(await knex()("payments_events").where({ id: "evt_unverifiable" })).toHaveLength(0);
  });
});
