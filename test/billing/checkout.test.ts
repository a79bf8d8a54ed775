/**
 * `POST /billing/checkout` and `POST /billing/portal` against a Stripe-compatible fake on 127.0.0.1
 * (test/fakes/payments.ts): the form-encoded Checkout Session of docs/product-rules.md#billing, owners only, and every
 * provider failure a clear 502.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { addMember, createWorkspace, type TestMember } from "../setup/factories.js";
import { FakePayments } from "../fakes/payments.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let payments: FakePayments;
let acceptedKey: string;
beforeAll(async () => {
  payments = await new FakePayments().start();
  acceptedKey = payments.apiKey;
  app = await startTestApp({
    PAYMENTS_API_BASE: payments.baseUrl,
    PAYMENTS_API_KEY: payments.apiKey,
    PUBLIC_BASE_URL: "https://app.rivalscope.test",
  });
});
afterAll(async () => {
  await app?.stop();
  await payments?.stop();
});
afterEach(() => {
  payments.apiKey = acceptedKey;
});

const knex = () => app.service.services.knex;
const checkout = (member: TestMember, body: Record<string, unknown>) =>
  app.http.post("/billing/checkout").set("Authorization", member.bearer).send(body);
const portal = (member: TestMember) => app.http.post("/billing/portal").set("Authorization", member.bearer);
const lastSession = () => payments.requestsTo("/v1/checkout/sessions").at(-1)!;
const setBilling = (member: TestMember, fields: Record<string, unknown>) =>
  knex()("workspaces").where({ id: member.workspaceId }).update(fields);

describe("POST /billing/checkout", () => {
  it("creates a form-encoded subscription Checkout Session priced from the plan table × seat_count", async () => {
    const owner = await createWorkspace(app);
    const res = await checkout(owner, { plan: "growth", seat_count: 3 }).expect(200);

    const request = lastSession();
    expect(request.headers.authorization).toBe(`Bearer ${payments.apiKey}`);
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.rawBody).toContain("line_items%5B0%5D%5Bprice_data%5D%5Bunit_amount%5D=9900");
    const metadata = { workspace_id: owner.workspaceId, plan: "growth", billing_cycle: "monthly", seat_count: "3" };
    expect(request.form).toEqual({
      mode: "subscription",
      client_reference_id: owner.workspaceId,
      customer_email: owner.email,
      line_items: [
        {
          quantity: "3",
          price_data: {
            currency: "usd",
            unit_amount: "9900",
            recurring: { interval: "month" },
            product_data: { name: "Rivalscope Growth", description: "Per seat, billed monthly" },
          },
        },
      ],
      metadata,
      subscription_data: { metadata },
      success_url: "https://app.rivalscope.test/billing/success?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "https://app.rivalscope.test/billing/cancel",
    });
    expect(res.body).toEqual({
      checkout_url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/),
      session_id: expect.stringMatching(/^cs_test_/),
    });
    expect(res.body.checkout_url).toContain(res.body.session_id);
    // Nothing changes before the provider reports the completed checkout.
    expect(await knex()("workspaces").where({ id: owner.workspaceId }).first("plan")).toEqual({ plan: "free" });
  });

  it("bills annual at 10 × the monthly price, once a year; the default is 1 seat, monthly", async () => {
    const owner = await createWorkspace(app);
    await checkout(owner, { plan: "starter", billing_cycle: "annual", seat_count: 2 }).expect(200);
    expect(lastSession().form.line_items).toEqual([
      {
        quantity: "2",
        price_data: {
          currency: "usd",
          unit_amount: "49000",
          recurring: { interval: "year" },
          product_data: {
            name: "Rivalscope Starter",
            description: "Per seat, billed yearly at 10 × the monthly price",
          },
        },
      },
    ]);
    await checkout(owner, { plan: "enterprise" }).expect(200);
    const items = lastSession().form.line_items as any[];
    expect(items[0]).toMatchObject({
      quantity: "1",
      price_data: { unit_amount: "19900", recurring: { interval: "month" } },
    });
  });

  it("charges the beta price once the workspace claimed the beta", async () => {
    const owner = await createWorkspace(app);
    await app.http
      .post("/beta-claims")
      .set("Authorization", owner.bearer)
      .send({ contact_email: owner.email, requested_tier: "growth" })
      .expect(201);
    await checkout(owner, { plan: "growth", seat_count: 5 }).expect(200);
    expect((lastSession().form.line_items as any[])[0]).toMatchObject({
      quantity: "5",
      price_data: { unit_amount: "5900", product_data: { name: "Rivalscope Growth (beta price)" } },
    });
    await checkout(owner, { plan: "enterprise", billing_cycle: "annual" }).expect(200);
    expect((lastSession().form.line_items as any[])[0].price_data.unit_amount).toBe("119000");
  });

  it("checks out as the stored customer when the workspace has one", async () => {
    const owner = await createWorkspace(app);
    const customer = payments.addCustomer();
    await setBilling(owner, { payments_customer_id: customer, subscription_status: "canceled" });
    await checkout(owner, { plan: "starter" }).expect(200);
    expect(lastSession().form.customer).toBe(customer);
    expect(lastSession().form).not.toHaveProperty("customer_email");
  });

  it("answers 409 while the workspace has a live subscription, which a second checkout would bill twice", async () => {
    const owner = await createWorkspace(app, { plan: "starter" });
    for (const status of ["active", "trialing", "past_due"]) {
      await setBilling(owner, { payments_subscription_id: "sub_Live", subscription_status: status });
      const res = await checkout(owner, { plan: "growth" }).expect(409);
      expect(res.body.detail).toBe(
        `This workspace already has a ${status} subscription (sub_Live); change or cancel it in the billing portal (POST /billing/portal) before checking out again`,
      );
    }
  });

  it("expires the workspace's open checkout session when a new one starts, so two unpaid checkouts cannot both be paid", async () => {
    const owner = await createWorkspace(app);
    const first = await checkout(owner, { plan: "growth" }).expect(200);
    const second = await checkout(owner, { plan: "starter" }).expect(200);
    expect(second.body.session_id).not.toBe(first.body.session_id);
    expect(payments.sessions.get(first.body.session_id)!.status).toBe("expired");
    expect(payments.requestsTo(`/v1/checkout/sessions/${first.body.session_id}/expire`)).toHaveLength(1);
    expect(payments.sessions.get(second.body.session_id)!.status).toBe("open");
    // A session that already expired (or that the provider no longer knows) stands in nobody's way.
    payments.sessions.get(second.body.session_id)!.status = "expired";
    await checkout(owner, { plan: "starter" }).expect(200);
  });

  it("answers 409 while the workspace's last checkout session is complete and its subscription not yet reported", async () => {
    const owner = await createWorkspace(app);
    const first = await checkout(owner, { plan: "growth" }).expect(200);
    payments.complete(first.body.session_id);
    const sessionsBefore = payments.requestsTo("/v1/checkout/sessions").length;
    const res = await checkout(owner, { plan: "growth" }).expect(409);
    expect(res.body.detail).toMatch(/was completed/);
    expect(payments.requestsTo("/v1/checkout/sessions")).toHaveLength(sessionsBefore);
    // Once its subscription is the workspace's (reported, then ended), the old session is in nobody's way.
    const subscription = payments.sessions.get(first.body.session_id)!.subscription as string;
    await setBilling(owner, { payments_subscription_id: subscription, subscription_status: "canceled" });
    await checkout(owner, { plan: "growth" }).expect(200);
  });

  it("answers 422 for the free plan, more seats than the plan has, and an invalid body, without calling the provider", async () => {
    const owner = await createWorkspace(app);
    const before = payments.requests.length;
    const free = await checkout(owner, { plan: "free" }).expect(422);
    expect(free.body.detail).toEqual([
      {
        loc: ["body", "plan"],
        msg: "The free plan needs no checkout; choose starter, growth or enterprise",
        type: "value_error",
      },
    ]);
    const seats = await checkout(owner, { plan: "starter", seat_count: 4 }).expect(422);
    expect(seats.body.detail).toEqual([
      { loc: ["body", "seat_count"], msg: "The Starter plan has at most 3 seats", type: "less_than_equal" },
    ]);
    const bad = await checkout(owner, { plan: "platinum", billing_cycle: "weekly", seat_count: 0 }).expect(422);
    expect(bad.body.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual(
      expect.arrayContaining([
        ["body", "plan"],
        ["body", "billing_cycle"],
        ["body", "seat_count"],
      ]),
    );
    expect(payments.requests.length).toBe(before);
  });

  it("answers 403 to a member who is not an owner, and 401 without a token", async () => {
    const owner = await createWorkspace(app);
    const member = await addMember(app, owner.workspaceId);
    const res = await checkout(member, { plan: "growth" }).expect(403);
    expect(res.body).toEqual({ detail: "Only workspace owners may do this" });
    await app.http.post("/billing/checkout").send({ plan: "growth" }).expect(401);
  });

  it("turns every provider failure into a clear 502", async () => {
    const owner = await createWorkspace(app);
    const path = "/v1/checkout/sessions";

    payments.fail(path, {
      status: 400,
      body: {
        error: {
          type: "invalid_request_error",
          code: "amount_too_large",
          message: "Amount must be no more than $999,999.99",
        },
      },
    });
    expect((await checkout(owner, { plan: "growth" }).expect(502)).body).toEqual({
      detail:
        "The payments provider refused to create the checkout session (400): invalid_request_error/amount_too_large: Amount must be no more than $999,999.99",
    });

    payments.fail(path, {
      status: 500,
      body: { error: { type: "api_error", message: "Something went wrong on Stripe's end." } },
    });
    expect((await checkout(owner, { plan: "growth" }).expect(502)).body.detail).toBe(
      "The payments provider refused to create the checkout session (500): api_error: Something went wrong on Stripe's end.",
    );

    payments.fail(path, { status: 200, body: { id: "cs_test_nourl", object: "checkout.session" } });
    expect((await checkout(owner, { plan: "growth" }).expect(502)).body.detail).toBe(
      "The payments provider's checkout session has no url",
    );

    payments.fail(path, "close");
    expect((await checkout(owner, { plan: "growth" }).expect(502)).body.detail).toMatch(
      /^The payments provider could not be reached to create the checkout session: /,
    );

    payments.apiKey = "sk_test_rotated";
    expect((await checkout(owner, { plan: "growth" }).expect(502)).body.detail).toMatch(
      /^The payments provider rejected the API key \(PAYMENTS_API_KEY\): invalid_request_error: Invalid API Key provided: sk_test_/,
    );
  });
});

describe("POST /billing/portal", () => {
  it("opens a portal session for the stored customer", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const customer = payments.addCustomer();
    await setBilling(owner, { payments_customer_id: customer, subscription_status: "active" });
    const res = await portal(owner).expect(200);
    expect(res.body).toEqual({
      portal_url: expect.stringMatching(/^https:\/\/billing\.stripe\.com\/p\/session\/test_/),
    });
    const request = payments.requestsTo("/v1/billing_portal/sessions").at(-1)!;
    expect(request.headers.authorization).toBe(`Bearer ${payments.apiKey}`);
    expect(request.form).toEqual({ customer, return_url: "https://app.rivalscope.test/billing" });
  });

  it("answers 409 before the workspace has a payments customer", async () => {
    const owner = await createWorkspace(app);
    const before = payments.requests.length;
    const res = await portal(owner).expect(409);
    expect(res.body).toEqual({
      detail:
        "This workspace has no payments customer yet: complete a checkout (POST /billing/checkout) before opening the billing portal",
    });
    expect(payments.requests.length).toBe(before);
  });

  it("answers 502 when the provider does not know the customer", async () => {
    const owner = await createWorkspace(app);
    await setBilling(owner, { payments_customer_id: "cus_Deleted" });
    expect((await portal(owner).expect(502)).body).toEqual({
      detail:
        "The payments provider refused to open the billing portal (400): invalid_request_error/resource_missing: No such customer: 'cus_Deleted'",
    });
  });

  it("answers 403 to a member who is not an owner, and 401 without a token", async () => {
    const owner = await createWorkspace(app);
    const member = await addMember(app, owner.workspaceId);
    await setBilling(owner, { payments_customer_id: payments.addCustomer() });
    await portal(member).expect(403);
    await app.http.post("/billing/portal").expect(401);
  });
});
