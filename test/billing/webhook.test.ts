/**
 * `POST /billing/webhook` (docs/product-rules.md#billing): Stripe-signed events (signed here with the official
 * `stripe` package), each event id processed once, the four handled types applied to the workspace they name, and the
 * plan change visible on the next request in every API process (docs/product-rules.md#consistency).
 */
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startSecondApi, startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

const SECRET = `whsec_${randomBytes(24).toString("base64")}`;

let app: TestApp;
let second: TestApp;
beforeAll(async () => {
  app = await startTestApp({ PAYMENTS_WEBHOOK_SECRET: SECRET });
  second = await startSecondApi(app);
});
afterAll(async () => {
  await second?.stop();
  await app?.stop();
});

const knex = () => app.service.services.knex;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const id = (prefix: string) => `${prefix}_${randomBytes(8).toString("hex")}`;

interface Delivery {
  /** The signed body; defaults to the event's JSON. */
  payload?: string;
  secret?: string;
  /** Signature timestamp, unix seconds. */
  timestamp?: number;
  /** The header as sent; `null` sends none. */
  header?: string | null;
}

/** Delivers `event` as the provider does: the raw JSON body, signed with Stripe's own test helper. */
function deliver(event: object, options: Delivery = {}, api: TestApp = app) {
  const payload = options.payload ?? JSON.stringify(event);
  const header =
    options.header !== undefined
      ? options.header
      : Stripe.webhooks.generateTestHeaderString({
          payload,
          secret: options.secret ?? SECRET,
          timestamp: options.timestamp ?? nowSeconds(),
        });
  const request = api.http.post("/billing/webhook").set("Content-Type", "application/json");
  if (header !== null) request.set("Payments-Signature", header);
  return request.send(payload);
}

function event(type: string, object: Record<string, unknown>, created = nowSeconds()) {
  return {
    id: id("evt"),
    object: "event",
    api_version: "2025-03-31.basil",
    created,
    type,
    livemode: false,
    data: { object },
  };
}

/** A completed subscription checkout, as Stripe reports the session `POST /billing/checkout` created. */
function checkoutCompleted(member: TestMember, plan: string, fields: Record<string, unknown> = {}) {
  return event("checkout.session.completed", {
    id: id("cs_test"),
    object: "checkout.session",
    mode: "subscription",
    status: "complete",
    payment_status: "paid",
    client_reference_id: member.workspaceId,
    customer: id("cus"),
    subscription: id("sub"),
    metadata: { workspace_id: member.workspaceId, plan, billing_cycle: "monthly", seat_count: "1" },
    ...fields,
  });
}

/** A subscription object (API 2025-03-31: the period end is on its items). */
function subscription(fields: {
  id: string;
  customer: string;
  status: string;
  plan?: string;
  workspaceId?: string;
  periodEnd?: number;
}) {
  return {
    id: fields.id,
    object: "subscription",
    customer: fields.customer,
    status: fields.status,
    cancel_at_period_end: false,
    metadata: fields.workspaceId ? { workspace_id: fields.workspaceId, plan: fields.plan ?? "growth" } : {},
    items: {
      object: "list",
      data: [
        {
          id: id("si"),
          object: "subscription_item",
          quantity: 1,
          current_period_end: fields.periodEnd ?? 1_800_000_000,
        },
      ],
    },
  };
}

const billingOf = (member: TestMember) =>
  knex()("workspaces")
    .where({ id: member.workspaceId })
    .first("plan", "payments_customer_id", "payments_subscription_id", "subscription_status", "current_period_end");

/** A workspace on a paid plan with a live subscription, as a completed checkout leaves it. */
async function subscribedWorkspace(plan: "starter" | "growth" = "growth") {
  const member = await createWorkspace(app, { plan });
  const ids = { customer: id("cus"), subscription: id("sub") };
  await knex()("workspaces").where({ id: member.workspaceId }).update({
    payments_customer_id: ids.customer,
    payments_subscription_id: ids.subscription,
    subscription_status: "active",
  });
  return { member, ...ids };
}

/** Runs `change` and waits until both API processes have received an access-change notice. */
async function announced<T>(change: () => PromiseLike<T>): Promise<T> {
  const feeds = [app, second].map((api) => api.service.accessChanges!);
  const before = feeds.map((feed) => feed.received);
  const result = await change();
  await waitFor(async () => feeds.every((feed, i) => feed.received > before[i]!), 5000, "the access-change notices");
  return result;
}

describe("signature", () => {
  it("accepts Stripe's own signature and records the event", async () => {
    const body = event("customer.created", { id: id("cus"), object: "customer" });
    const res = await deliver(body).expect(200);
    expect(res.body).toEqual({ received: true, duplicate: false });
    expect(await knex()("payments_events").where({ id: body.id }).first("type", "outcome", "workspace_id")).toEqual({
      type: "customer.created",
      outcome: "ignored: event type not handled",
      workspace_id: null,
    });
  });

  it("answers 401 to a missing, malformed, wrongly signed, tampered or stale signature, and records nothing", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const body = checkoutCompleted(member, "enterprise");
    const payload = JSON.stringify(body);
    const cases: [Delivery, string][] = [
      [{ header: null }, "Missing Payments-Signature header"],
      [{ header: "v1=abc" }, "Malformed Payments-Signature header: expected t=<unix seconds>,v1=<hex>"],
      [{ secret: `whsec_${randomBytes(24).toString("base64")}` }, "Invalid Payments-Signature"],
      [
        {
          header: Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }),
          payload: payload.replace('"enterprise"', '"growth"'),
        },
        "Invalid Payments-Signature",
      ],
      [{ timestamp: nowSeconds() - 301 }, "Payments-Signature timestamp is more than 300 seconds away"],
      [{ timestamp: nowSeconds() + 360 }, "Payments-Signature timestamp is more than 300 seconds away"],
    ];
    for (const [options, detail] of cases) {
      const res = await deliver(body, options).expect(401);
      expect(res.body).toEqual({ detail });
    }
    expect(await knex()("payments_events").where({ id: body.id })).toHaveLength(0);
    expect((await billingOf(member)).plan).toBe("growth");
    // Within the tolerance, and with one of several v1 signatures matching (a secret being rolled), it is taken.
    const timestamp = nowSeconds() - 240;
    const good = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp });
    await deliver(body, { header: `t=${timestamp},v1=${"0".repeat(64)},${good.split(",")[1]}` }).expect(200);
    expect((await billingOf(member)).plan).toBe("enterprise");
  });

  it("answers 422 to a signed body that is not an event", async () => {
    const res = await deliver({ object: "event", data: {} }).expect(422);
    expect(res.body.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual([
      ["body", "id"],
      ["body", "type"],
    ]);
  });
});

describe("checkout.session.completed", () => {
  it("moves the workspace to the plan it paid for, stores the customer and subscription, and the next request sees it", async () => {
    const member = await createWorkspace(app);
    for (const api of [app, second]) {
      expect((await api.http.get("/me/plan").set("Authorization", member.bearer).expect(200)).body.plan).toBe("free");
    }
    const body = checkoutCompleted(member, "growth");
    const res = await announced(() => deliver(body).expect(200));
    expect(res.body).toEqual({ received: true, duplicate: false });

    for (const api of [app, second]) {
      const plan = await api.http.get("/me/plan").set("Authorization", member.bearer).expect(200);
      expect(plan.body).toMatchObject({
        plan: "growth",
        plan_label: "Growth",
        limits: { api_access: true, competitors: 25 },
        billing: {
          payments_customer_id: body.data.object.customer,
          payments_subscription_id: body.data.object.subscription,
          subscription_status: "active",
          current_period_end: null,
        },
      });
    }
    expect(await knex()("payments_events").where({ id: body.id }).first("outcome", "workspace_id")).toEqual({
      outcome: "applied",
      workspace_id: member.workspaceId,
    });
  });

  it("waits as incomplete when the checkout is not paid yet", async () => {
    const member = await createWorkspace(app);
    await deliver(checkoutCompleted(member, "starter", { payment_status: "unpaid" })).expect(200);
    expect(await billingOf(member)).toMatchObject({ plan: "free", subscription_status: "incomplete" });
  });
});

describe("exactly once", () => {
  it("acknowledges a redelivered event without effect, even after later events changed the workspace", async () => {
    const member = await createWorkspace(app);
    const completed = checkoutCompleted(member, "starter");
    await deliver(completed).expect(200);
    const { customer, subscription: sub } = completed.data.object as { customer: string; subscription: string };
    await deliver(
      event("customer.subscription.deleted", subscription({ id: sub, customer, status: "canceled" })),
    ).expect(200);
    expect((await billingOf(member)).plan).toBe("free");

    const replay = await deliver(completed).expect(200);
    expect(replay.body).toEqual({ received: true, duplicate: true });
    expect(await billingOf(member)).toMatchObject({ plan: "free", subscription_status: "canceled" });
  });

  it("applies an event delivered many times at once exactly once", async () => {
    const member = await createWorkspace(app);
    const body = checkoutCompleted(member, "growth");
    const answers = await Promise.all(Array.from({ length: 6 }, () => deliver(body)));
    expect(answers.map((res) => res.status)).toEqual(Array(6).fill(200));
    expect(answers.filter((res) => res.body.duplicate === false)).toHaveLength(1);
    expect(await knex()("payments_events").where({ id: body.id })).toHaveLength(1);
    expect((await billingOf(member)).plan).toBe("growth");
  });
});

describe("customer.subscription.updated", () => {
  it("stores status and period end, takes the subscription's plan while it is live, and returns to free once unpaid", async () => {
    const { member, customer, subscription: sub } = await subscribedWorkspace("starter");
    const base = { id: sub, customer, workspaceId: member.workspaceId };
    await deliver(
      event(
        "customer.subscription.updated",
        subscription({ ...base, status: "active", plan: "growth", periodEnd: 1_830_000_000 }),
      ),
    ).expect(200);
    expect(await billingOf(member)).toEqual({
      plan: "growth",
      payments_customer_id: customer,
      payments_subscription_id: sub,
      subscription_status: "active",
      current_period_end: new Date(1_830_000_000 * 1000),
    });

    await deliver(event("customer.subscription.updated", subscription({ ...base, status: "past_due" }))).expect(200);
    expect(await billingOf(member)).toMatchObject({ plan: "growth", subscription_status: "past_due" });

    await deliver(event("customer.subscription.updated", subscription({ ...base, status: "unpaid" }))).expect(200);
    expect(await billingOf(member)).toMatchObject({ plan: "free", subscription_status: "unpaid" });
  });

  it("finds the workspace by its stored subscription when the event carries no metadata", async () => {
    const { member, customer, subscription: sub } = await subscribedWorkspace("growth");
    await deliver(
      event(
        "customer.subscription.updated",
        subscription({ id: sub, customer, status: "trialing", periodEnd: 1_840_000_000 }),
      ),
    ).expect(200);
    expect(await billingOf(member)).toMatchObject({
      plan: "growth",
      subscription_status: "trialing",
      current_period_end: new Date(1_840_000_000 * 1000),
    });
  });

  it("changes nothing for an event older than the state it would change (the provider does not deliver in order)", async () => {
    const { member, customer, subscription: sub } = await subscribedWorkspace("growth");
    const now = nowSeconds();
    await deliver(
      event("customer.subscription.updated", subscription({ id: sub, customer, status: "active" }), now),
    ).expect(200);
    const stale = event(
      "invoice.payment_failed",
      { id: id("in"), object: "invoice", customer, subscription: sub },
      now - 60,
    );
    await deliver(stale).expect(200);
    expect((await billingOf(member)).subscription_status).toBe("active");
    expect((await knex()("payments_events").where({ id: stale.id }).first("outcome")).outcome).toBe(
      "ignored: older than the billing state it would change",
    );
  });
});

describe("customer.subscription.deleted", () => {
  it("returns the workspace to free, keeping its data; the free limits apply to new writes", async () => {
    const { member, customer, subscription: sub } = await subscribedWorkspace("growth");
    for (const name of ["Acme", "Globex", "Initech", "Umbrella", "Hooli"]) {
      await createCompetitor(app, member, { name, domain: `${name.toLowerCase()}.test` });
    }
    await app.http.get("/me/plan").set("Authorization", member.bearer).expect(200);
    await announced(() =>
      deliver(
        event(
          "customer.subscription.deleted",
          subscription({ id: sub, customer, status: "canceled", workspaceId: member.workspaceId }),
        ),
      ).expect(200),
    );

    const plan = await app.http.get("/me/plan").set("Authorization", member.bearer).expect(200);
    expect(plan.body).toMatchObject({
      plan: "free",
      usage: { competitors: 5 },
      billing: { payments_customer_id: customer, payments_subscription_id: sub, subscription_status: "canceled" },
    });
    const competitors = await app.http.get("/competitors").set("Authorization", member.bearer).expect(200);
    expect(competitors.body).toHaveLength(5);
    const refused = await app.http
      .post("/competitors")
      .set("Authorization", member.bearer)
      .send({ name: "Stark", domain: "stark.test" })
      .expect(403);
    expect(refused.body.detail).toBe(
      "The free plan allows 3 competitors; remove one, or upgrade to Starter (10 competitors) to add more",
    );
  });

  it("changes nothing when the deleted subscription is one the workspace has since replaced", async () => {
    const { member, customer } = await subscribedWorkspace("growth");
    const res = await deliver(
      event("customer.subscription.deleted", subscription({ id: "sub_Old", customer, status: "canceled" })),
    ).expect(200);
    expect(res.body.duplicate).toBe(false);
    expect(await billingOf(member)).toMatchObject({ plan: "growth", subscription_status: "active" });
  });
});

describe("a second subscription", () => {
  it("is reported, not applied over the live one: a second completed checkout changes nothing", async () => {
    const { member, customer, subscription: live } = await subscribedWorkspace("growth");
    const second = checkoutCompleted(member, "enterprise", { customer, subscription: id("sub") });
    await deliver(second).expect(200);
    expect(await billingOf(member)).toMatchObject({
      plan: "growth",
      payments_subscription_id: live,
      subscription_status: "active",
    });
    expect((await knex()("payments_events").where({ id: second.id }).first("outcome")).outcome).toMatch(
      new RegExp(`^reported: a second subscription \\(sub_\\w+\\) was paid while ${live} is active`),
    );
  });
});

describe("an ended subscription", () => {
  it("never becomes live again: an update in the same second as its deletion, delivered after it, changes nothing", async () => {
    const { member, customer, subscription: sub } = await subscribedWorkspace("growth");
    const second = nowSeconds();
    const live = subscription({ id: sub, customer, status: "active", workspaceId: member.workspaceId });
    await deliver(event("customer.subscription.deleted", { ...live, status: "canceled" }, second)).expect(200);
    const revived = event("customer.subscription.updated", live, second);
    await deliver(revived).expect(200);
    expect(await billingOf(member)).toMatchObject({ plan: "free", subscription_status: "canceled" });
    expect((await knex()("payments_events").where({ id: revived.id }).first("outcome")).outcome).toBe(
      `ignored: subscription ${sub} has ended; an ended subscription never becomes live again`,
    );
    // Later events about it change nothing either, whatever they say: a failed invoice, a completed checkout.
    await deliver(
      event("invoice.payment_failed", { id: id("in"), object: "invoice", customer, subscription: sub }, second + 5),
    ).expect(200);
    await deliver(checkoutCompleted(member, "enterprise", { customer, subscription: sub })).expect(200);
    expect(await billingOf(member)).toMatchObject({ plan: "free", subscription_status: "canceled" });
  });

  it("ends with an update to a terminal status too (incomplete_expired), and a new subscription still applies", async () => {
    const { member, customer, subscription: sub } = await subscribedWorkspace("growth");
    const second = nowSeconds();
    await deliver(
      event(
        "customer.subscription.updated",
        subscription({ id: sub, customer, status: "incomplete_expired", workspaceId: member.workspaceId }),
        second,
      ),
    ).expect(200);
    await deliver(
      event(
        "customer.subscription.updated",
        subscription({ id: sub, customer, status: "active", workspaceId: member.workspaceId }),
        second,
      ),
    ).expect(200);
    expect(await billingOf(member)).toMatchObject({ plan: "free", subscription_status: "incomplete_expired" });
    const next = id("sub");
    await deliver(checkoutCompleted(member, "starter", { customer, subscription: next })).expect(200);
    expect(await billingOf(member)).toMatchObject({
      plan: "starter",
      payments_subscription_id: next,
      subscription_status: "active",
    });
  });
});

describe("invoice.payment_failed", () => {
  it("marks the subscription past_due and keeps the plan", async () => {
    const { member, customer, subscription: sub } = await subscribedWorkspace("starter");
    // API 2025-03-31: the invoice names its subscription under parent.subscription_details.
    await deliver(
      event("invoice.payment_failed", {
        id: id("in"),
        object: "invoice",
        customer,
        attempt_count: 1,
        parent: { type: "subscription_details", subscription_details: { subscription: sub, metadata: {} } },
      }),
    ).expect(200);
    expect(await billingOf(member)).toMatchObject({ plan: "starter", subscription_status: "past_due" });
  });
});

describe("events that name no workspace", () => {
  it("are acknowledged and change nothing", async () => {
    const { member } = await subscribedWorkspace("growth");
    const body = event(
      "customer.subscription.deleted",
      subscription({ id: id("sub"), customer: id("cus"), status: "canceled" }),
    );
    await deliver(body).expect(200);
    expect((await billingOf(member)).plan).toBe("growth");
    expect(await knex()("payments_events").where({ id: body.id }).first("outcome", "workspace_id")).toEqual({
      outcome: "ignored: no workspace has this customer or subscription",
      workspace_id: null,
    });
  });
});
