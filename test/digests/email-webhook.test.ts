/**
 * `POST /digests/webhooks/email`: requests signed with the `standardwebhooks` package (a library this project did not
 * write), every 401 case of docs/product-rules.md#inbound-signatures, and the delivery updates and suppressions each
 * event type causes.
 */
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, type TestMember } from "../setup/factories.js";
import { signedRequest, type SignedRequest } from "../setup/standard-webhooks.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

const SECRET = `whsec_${randomBytes(24).toString("base64")}`;
const signer = new Webhook(SECRET);

let app: TestApp;
let unconfigured: TestApp;
beforeAll(async () => {
  [app, unconfigured] = await Promise.all([startTestApp({ EMAIL_WEBHOOK_SECRET: SECRET }), startTestApp()]);
});
afterAll(async () => {
  await Promise.all([app?.stop(), unconfigured?.stop()]);
});

const knex = () => app.service.services.knex;

type Signed = SignedRequest;

/** A provider request: body and `provider-*` headers as Standard Webhooks senders make them. */
function signed(event: unknown, options: { id?: string; at?: Date; signWith?: Webhook } = {}): Signed {
  return signedRequest(event, options.signWith ?? signer, options);
}

function post(request: Signed, target: TestApp = app) {
  return target.http
    .post("/digests/webhooks/email")
    .set({ "content-type": "application/json", ...request.headers })
    .send(request.body);
}

function event(type: string, emailId: string, data: Record<string, unknown> = {}, createdAt = new Date()) {
  return { type, created_at: createdAt.toISOString(), data: { email_id: emailId, to: ["x@example.com"], ...data } };
}

/** A sent delivery of a fresh digest, with its provider message id. */
async function sentDelivery(): Promise<{ owner: TestMember; id: string; messageId: string }> {
  const owner = await createWorkspace(app);
  const digest = await app.http.post("/digests?period_type=daily").set("Authorization", owner.bearer).expect(201);
  await app.http.post(`/digests/${digest.body.id}/send`).set("Authorization", owner.bearer).expect(200);
  const delivery = await knex()("digest_deliveries").where({ digest_id: digest.body.id }).first();
  return { owner, id: delivery.id, messageId: delivery.provider_message_id };
}

const deliveryRow = (id: string) => knex()("digest_deliveries").where({ id }).first();

describe("signature verification (401 cases)", () => {
  const body = event("email.delivered", "unknown-message");

  it("accepts a correctly signed request with 202", async () => {
    const res = await post(signed(body)).expect(202);
    expect(res.body).toEqual({ received: true, delivery_id: null });
  });

  it("rejects everything when no secret is configured", async () => {
    const res = await post(signed(body), unconfigured).expect(401);
    expect(res.body.detail).toBe("Webhook signing secret is not configured; request rejected");
  });

  it("rejects an unsigned request", async () => {
    await app.http.post("/digests/webhooks/email").send(body).expect(401);
  });

  it.each(["provider-id", "provider-timestamp", "provider-signature"])("rejects a request without %s", async (name) => {
    const request = signed(body);
    delete request.headers[name];
    const res = await post(request).expect(401);
    expect(res.body.detail).toMatch(/Missing webhook signature headers/);
  });

  it("rejects a signature made with another secret", async () => {
    const other = new Webhook(`whsec_${randomBytes(24).toString("base64")}`);
    const res = await post(signed(body, { signWith: other })).expect(401);
    expect(res.body.detail).toBe("Invalid webhook signature");
  });

  it("rejects a body changed after signing", async () => {
    const request = signed(body);
    request.body = request.body.replace("unknown-message", "other-message");
    await post(request).expect(401);
  });

  it("rejects a signed id or timestamp changed after signing", async () => {
    const request = signed(body);
    await post({ ...request, headers: { ...request.headers, "provider-id": "msg_other" } }).expect(401);
    const later = String(Number(request.headers["provider-timestamp"]) + 1);
    await post({ ...request, headers: { ...request.headers, "provider-timestamp": later } }).expect(401);
  });

  it("rejects timestamps more than 300 s away, in the past or the future", async () => {
    await post(signed(body, { at: new Date(Date.now() - 301_000) })).expect(401);
    await post(signed(body, { at: new Date(Date.now() + 301_000) })).expect(401);
    await post(signed(body, { at: new Date(Date.now() - 290_000) })).expect(202);
  });

  it("rejects a replayed message id", async () => {
    const request = signed(body);
    await post(request).expect(202);
    const res = await post(request).expect(401);
    expect(res.body.detail).toBe("Webhook message was already received (replay)");
  });

  it("accepts one valid signature among several (secret rotation)", async () => {
    const request = signed(body);
    request.headers["provider-signature"] =
      `v1,${randomBytes(32).toString("base64")} ${request.headers["provider-signature"]}`;
    await post(request).expect(202);
  });

  it("answers 422 for a signed body that is not an event", async () => {
    const res = await post(signed({ hello: "world" })).expect(422);
    expect(res.body.detail[0].loc).toEqual(["body", "type"]);
  });
});

describe("delivery updates", () => {
  it("moves a delivery forward through delivered and opened, counting opens, never back", async () => {
    const { id, messageId } = await sentDelivery();
    const t0 = Date.now();
    const res = await post(signed(event("email.delivered", messageId, {}, new Date(t0)))).expect(202);
    expect(res.body).toEqual({ received: true, delivery_id: id });
    await post(signed(event("email.opened", messageId, {}, new Date(t0 + 1000)))).expect(202);
    await post(signed(event("email.opened", messageId, {}, new Date(t0 + 2000)))).expect(202);
    // A late, out-of-order `delivered` moves nothing back.
    await post(signed(event("email.delivered", messageId, {}, new Date(t0 - 5000)))).expect(202);

    const row = await deliveryRow(id);
    expect(row).toMatchObject({ status: "opened", opens_count: 2, last_event: "email.opened" });
    expect(row.delivered_at.getTime()).toBe(t0);
    expect(row.opened_at.getTime()).toBe(t0 + 1000);
    expect(row.last_event_at.getTime()).toBe(t0 + 2000);
  });

  it("shows the counts in the digest's delivery_summary", async () => {
    const { owner, id, messageId } = await sentDelivery();
    await post(signed(event("email.opened", messageId))).expect(202);
    const { digest_id } = await deliveryRow(id);
    const digest = await app.http.get(`/digests/${digest_id}`).set("Authorization", owner.bearer).expect(200);
    expect(digest.body.delivery_summary).toMatchObject({ opened: 1, opens: 1, sent: 0, total: 1 });
  });

  it("suppresses the address on a hard bounce and records the reason", async () => {
    const { owner, id, messageId } = await sentDelivery();
    const bounce = { type: "Permanent", subType: "General", message: "550 5.1.1 The email account does not exist" };
    await post(signed(event("email.bounced", messageId, { bounce }))).expect(202);
    const row = await deliveryRow(id);
    expect(row).toMatchObject({ status: "bounced", bounce_reason: bounce.message, last_event: "email.bounced" });
    expect(row.bounced_at).not.toBeNull();
    const list = await app.http.get("/digests/suppressions").set("Authorization", owner.bearer).expect(200);
    expect(list.body).toMatchObject([{ email: owner.email.toLowerCase(), reason: "bounce", detail: bounce.message }]);
  });

  it("does not suppress on a transient bounce", async () => {
    const { owner, id, messageId } = await sentDelivery();
    const bounce = { type: "Transient", message: "452 mailbox full" };
    await post(signed(event("email.bounced", messageId, { bounce }))).expect(202);
    expect(await deliveryRow(id)).toMatchObject({ status: "bounced", bounce_reason: "452 mailbox full" });
    const list = await app.http.get("/digests/suppressions").set("Authorization", owner.bearer).expect(200);
    expect(list.body).toEqual([]);
  });

  it("suppresses the address on a complaint, even after an open", async () => {
    const { owner, id, messageId } = await sentDelivery();
    await post(signed(event("email.opened", messageId))).expect(202);
    await post(signed(event("email.complained", messageId))).expect(202);
    expect(await deliveryRow(id)).toMatchObject({ status: "complained", opens_count: 1 });
    const list = await app.http.get("/digests/suppressions").set("Authorization", owner.bearer).expect(200);
    expect(list.body).toMatchObject([{ reason: "complaint" }]);
  });

  it("records failures and delays", async () => {
    const failed = await sentDelivery();
    await post(signed(event("email.failed", failed.messageId))).expect(202);
    expect(await deliveryRow(failed.id)).toMatchObject({ status: "failed", last_event: "email.failed" });

    const delayed = await sentDelivery();
    await post(signed(event("email.delivery_delayed", delayed.messageId))).expect(202);
    expect(await deliveryRow(delayed.id)).toMatchObject({ status: "sent", last_event: "email.delivery_delayed" });
  });

  it("acknowledges unknown event types and unknown messages without effect", async () => {
    const { id, messageId } = await sentDelivery();
    const before = await deliveryRow(id);
    const res = await post(signed(event("email.clicked", messageId))).expect(202);
    expect(res.body).toEqual({ received: true, delivery_id: null });
    expect(await deliveryRow(id)).toEqual(before);
  });
});
