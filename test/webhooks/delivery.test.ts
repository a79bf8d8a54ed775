/**
 * Outbound webhooks end to end: subscriptions made with the admin CLI, events handed to the webhook consumer (or to
 * the `event-created` job), deliveries made by the real worker to a real receiver on 127.0.0.1 that fails on demand.
 * Backoff base 1 s and a 4 s window make the schedule of docs/product-rules.md#retries-and-dead-letter observable
 * within a test.
 */
import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCommand } from "../../src/cli/admin.js";
import type { DeliveryDeps } from "../../src/delivery/types.js";
import { EventFanOut } from "../../src/delivery/consumers.js";
import { QUEUES } from "../../src/jobs/queues.js";
import { WebhookDelivery, type WebhookPayload } from "../../src/webhooks/deliver.js";
import type { WebhookSubscription } from "../../src/webhooks/subscriptions.js";
import { WebhookReceiver, type ReceivedRequest } from "../fakes/webhook-receiver.js";
import {
  addMember,
  createCompetitor,
  createEvent,
  createSource,
  createWebhookDelivery,
  createWorkspace,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { queueSettled } from "../setup/jobs.js";
import { waitFor } from "../setup/wait.js";

const WINDOW_SECONDS = 4;

let app: TestApp;
let receiver: WebhookReceiver;
let deps: DeliveryDeps;
beforeAll(async () => {
  [app, receiver] = await Promise.all([
    startTestApp({ WEBHOOK_RETRY_BASE_SECONDS: "1", WEBHOOK_RETRY_WINDOW_SECONDS: String(WINDOW_SECONDS) }),
    new WebhookReceiver().start(),
  ]);
  const { config, knex, jobs, http, log } = app.service.services;
  deps = { config, knex, jobs, http, log };
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
});

const knex = () => app.service.services.knex;
const admin = (...argv: string[]) => runAdminCommand(argv, app.service.services);

interface Setup {
  owner: TestMember;
  competitor: { id: string; name: string; domain: string };
  sourceUrl: string;
  sourceId: string;
  path: string;
  subscription: WebhookSubscription;
}

let pathCounter = 0;
/** A Growth workspace tracking Acme's pricing page, subscribed (production) to its own path of the receiver. */
async function subscribed(flags: string[] = []): Promise<Setup> {
  const owner = await createWorkspace(app, { plan: "growth" });
  const competitor = await createCompetitor(app, owner, { name: "Acme", domain: "acme.com" });
  const { id: sourceId, url: sourceUrl } = await createSource(app, owner, {
    competitorId: competitor.id,
    url: "https://acme.com/pricing",
    source_type: "pricing",
  });
  const path = `/hooks/${++pathCounter}`;
  const subscription = (await admin(
    "webhook-add",
    owner.workspaceId,
    "--url",
    receiver.url(path),
    "--environment",
    "production",
    ...flags,
  )) as WebhookSubscription;
  return { owner, competitor, sourceUrl, sourceId, path, subscription };
}

async function newEvent(setup: Setup, fields: { severity?: string; event_type?: string; title?: string } = {}) {
  return createEvent(app, setup.owner, { competitorId: setup.competitor.id, source_id: setup.sourceId, ...fields });
}

async function deliveryOf(subscriptionId: string, eventId: string) {
  return knex()("webhook_deliveries").where({ subscription_id: subscriptionId, event_id: eventId }).first();
}

async function settled(subscriptionId: string, eventId: string, status: string, timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const delivery = await deliveryOf(subscriptionId, eventId);
      return delivery?.status === status ? delivery : null;
    },
    timeoutMs,
    `delivery ${status}`,
  );
}

async function attemptsOf(deliveryId: string) {
  return knex()("webhook_attempts").where({ delivery_id: deliveryId }).orderBy("attempted_at");
}

/**
 * Verifies the request's signature with Stripe's own library (docs/product-rules.md#outbound-signature) and returns the
 * parsed body.
 */
function verified(request: ReceivedRequest, secret: string): WebhookPayload {
  return Stripe.webhooks.constructEvent(
    request.rawBody,
    request.headers["x-ci-signature"] as string,
    secret,
  ) as unknown as WebhookPayload;
}

describe("delivery", () => {
  it("POSTs the spec's body, signed; a 500 is retried after the backoff with the same event id and a fresh signature", async () => {
    const setup = await subscribed();
    receiver.script(setup.path, { status: 500 });
    const detectedAt = new Date("2026-11-20T08:30:00.000Z");
    const event = await createEvent(app, setup.owner, {
      competitorId: setup.competitor.id,
      source_id: setup.sourceId,
      severity: "high",
      title: "Acme raised Pro from $49 to $59/month",
      summary: "The Pro plan now costs $59 per month instead of $49.",
      confidence_score: 0.85,
      detected_at: detectedAt,
    });
    await new EventFanOut(deps).deliver(event.id);

    const delivery = await settled(setup.subscription.id, event.id, "delivered");
    const requests = receiver.requestsTo(setup.path);
    expect(requests).toHaveLength(2);
    const [first, second] = requests as [ReceivedRequest, ReceivedRequest];
    for (const request of requests) {
      expect(request.method).toBe("POST");
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers["x-ci-event-id"]).toBe(event.id);
      expect(verified(request, setup.subscription.signing_secret)).toEqual({
        event_id: event.id,
        delivered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        workspace_id: setup.owner.workspaceId,
        competitor: { id: setup.competitor.id, name: "Acme", domain: "acme.com" },
        event: {
          type: "pricing_change",
          severity: "high",
          confidence: 0.85,
          title: "Acme raised Pro from $49 to $59/month",
          summary: "The Pro plan now costs $59 per month instead of $49.",
          detected_at: "2026-11-20T08:30:00.000Z",
          source_url: setup.sourceUrl,
        },
      });
    }
    // Attempt 1 failed: the retry waits base × 2^0 × (1 + j) = 1…1.25 s, then signs anew.
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(1000);
    const stamp = (r: ReceivedRequest) =>
      Number(/^t=(\d+),v1=[0-9a-f]{64}$/.exec(r.headers["x-ci-signature"] as string)![1]);
    expect(stamp(second)).toBeGreaterThan(stamp(first));
    expect(verified(second, setup.subscription.signing_secret).delivered_at).not.toBe(
      verified(first, setup.subscription.signing_secret).delivered_at,
    );

    expect(delivery).toMatchObject({ attempts: 2, last_status: 200, last_error: null, next_attempt_at: null });
    expect(delivery.delivered_at).toBeInstanceOf(Date);
    const attempts = await attemptsOf(delivery.id);
    expect(attempts.map((a) => [a.status_code, a.error])).toEqual([
      [500, "HTTP 500"],
      [200, null],
    ]);
    expect(attempts.every((a) => Number.isInteger(a.latency_ms) && a.latency_ms >= 0)).toBe(true);
  });

  it("fails a delivery answered 410 after one attempt, without retrying", async () => {
    const setup = await subscribed();
    receiver.otherwise(setup.path, { status: 410 });
    const event = await newEvent(setup);
    await new EventFanOut(deps).deliver(event.id);

    const delivery = await settled(setup.subscription.id, event.id, "failed");
    expect(delivery).toMatchObject({ attempts: 1, last_status: 410, last_error: "HTTP 410", next_attempt_at: null });
    // No job of this delivery is left to retry it: one request is all there will ever be.
    await queueSettled(knex(), QUEUES.webhookDeliver, { delivery_id: delivery.id });
    expect(receiver.requestsTo(setup.path)).toHaveLength(1);
    expect(await attemptsOf(delivery.id)).toHaveLength(1);
  });

  it("waits as long as a 429's Retry-After asks before retrying", async () => {
    const setup = await subscribed();
    receiver.script(setup.path, { status: 429, headers: { "retry-after": "2" } });
    const event = await newEvent(setup);
    await new EventFanOut(deps).deliver(event.id);

    await settled(setup.subscription.id, event.id, "delivered");
    const [first, second] = receiver.requestsTo(setup.path) as [ReceivedRequest, ReceivedRequest];
    // The backoff alone would have retried after 1…1.25 s.
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(2000);
  });

  it("retries a dropped connection", async () => {
    const setup = await subscribed();
    receiver.script(setup.path, "drop");
    const event = await newEvent(setup);
    await new EventFanOut(deps).deliver(event.id);

    const delivery = await settled(setup.subscription.id, event.id, "delivered");
    const attempts = await attemptsOf(delivery.id);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]).toMatchObject({ status_code: null });
    expect(attempts[0].error).toMatch(/closed unexpectedly|network error/);
  });

  it("gives up when the window has passed, and emails each owner once, naming the subscription and the event", async () => {
    const setup = await subscribed();
    const secondOwner = await addMember(app, setup.owner.workspaceId, { role: "owner" });
    const member = await addMember(app, setup.owner.workspaceId, { role: "member" });
    receiver.otherwise(setup.path, { status: 503 });
    const event = await newEvent(setup, { title: "Acme removed its Free plan" });
    await new EventFanOut(deps).deliver(event.id);

    const delivery = await settled(setup.subscription.id, event.id, "dead", 20_000);
    const requests = receiver.requestsTo(setup.path);
    // Attempts at 0, ~1 s, ~3 s, then one at the window's end (4 s), whose failure makes it dead.
    expect(requests.length).toBeGreaterThanOrEqual(3);
    const span = requests.at(-1)!.receivedAt - requests[0]!.receivedAt;
    expect(span).toBeGreaterThanOrEqual(WINDOW_SECONDS * 1000 - 100);
    expect(span).toBeLessThan((WINDOW_SECONDS + 2) * 1000);
    expect(delivery).toMatchObject({ attempts: requests.length, last_status: 503, next_attempt_at: null });
    expect(await attemptsOf(delivery.id)).toHaveLength(requests.length);

    const subject = "Webhook delivery failed: Acme removed its Free plan";
    const mails = await waitFor(async () => {
      const rows = await knex()("email_outbox").where({ subject }).orderBy("to_address");
      return rows.length >= 2 ? rows : null;
    });
    // Every mail this delivery's failure queued has been sent: none can still arrive for the member.
    await queueSettled(knex(), QUEUES.emailSend);
    const settledMails = await knex()("email_outbox").where({ subject });
    expect(settledMails.map((m) => m.to_address).sort()).toEqual([setup.owner.email, secondOwner.email].sort());
    expect(settledMails.some((m) => m.to_address === member.email)).toBe(false);
    for (const mail of mails) {
      expect(mail.text_body).toContain(`Subscription: ${setup.subscription.id} (production)`);
      expect(mail.text_body).toContain(`URL: ${receiver.url(setup.path)}`);
      expect(mail.text_body).toContain(`Event: ${event.id}`);
      expect(mail.text_body).toContain("Title: Acme removed its Free plan");
    }
    // Dead is final: no more attempts.
    expect(receiver.requestsTo(setup.path)).toHaveLength(requests.length);
  });
});

describe("which events are delivered", () => {
  it("delivers only events at or above the minimum severity and of the subscribed types", async () => {
    const setup = await subscribed(["--min-severity", "medium", "--event-types", "pricing_change,product_change"]);
    const events = {
      lowPricing: await newEvent(setup, { severity: "low", event_type: "pricing_change" }),
      mediumPricing: await newEvent(setup, { severity: "medium", event_type: "pricing_change" }),
      highHiring: await newEvent(setup, { severity: "high", event_type: "hiring_change" }),
      criticalProduct: await newEvent(setup, { severity: "critical", event_type: "product_change" }),
    };
    for (const event of Object.values(events)) await new EventFanOut(deps).deliver(event.id);

    const deliveries = await knex()("webhook_deliveries").where({ subscription_id: setup.subscription.id });
    expect(deliveries.map((d) => d.event_id).sort()).toEqual(
      [events.mediumPricing.id, events.criticalProduct.id].sort(),
    );
    await settled(setup.subscription.id, events.mediumPricing.id, "delivered");
    await settled(setup.subscription.id, events.criticalProduct.id, "delivered");
    expect(
      receiver
        .requestsTo(setup.path)
        .map((r) => r.headers["x-ci-event-id"])
        .sort(),
    ).toEqual([events.mediumPricing.id, events.criticalProduct.id].sort());
  });

  it("delivers the same payload to the staging and the production subscription, each signed with its own secret", async () => {
    const setup = await subscribed();
    const stagingPath = `${setup.path}-staging`;
    const staging = (await admin(
      "webhook-add",
      setup.owner.workspaceId,
      "--url",
      receiver.url(stagingPath),
      "--environment",
      "staging",
    )) as WebhookSubscription;
    const event = await newEvent(setup);
    await new EventFanOut(deps).deliver(event.id);

    await settled(setup.subscription.id, event.id, "delivered");
    await settled(staging.id, event.id, "delivered");
    const production = verified(receiver.requestsTo(setup.path)[0]!, setup.subscription.signing_secret);
    const stagingBody = verified(receiver.requestsTo(stagingPath)[0]!, staging.signing_secret);
    expect({ ...stagingBody, delivered_at: null }).toEqual({ ...production, delivered_at: null });
    expect(() =>
      Stripe.webhooks.constructEvent(
        receiver.requestsTo(stagingPath)[0]!.rawBody,
        receiver.requestsTo(stagingPath)[0]!.headers["x-ci-signature"] as string,
        setup.subscription.signing_secret,
      ),
    ).toThrow();
  });

  it("delivers nothing for a workspace whose plan has no api_access", async () => {
    const setup = await subscribed();
    await admin("set-plan", setup.owner.workspaceId, "starter");
    const event = await newEvent(setup, { severity: "critical" });
    await new EventFanOut(deps).deliver(event.id);

    // No delivery row, so no job can ever send one.
    expect(await knex()("webhook_deliveries").where({ event_id: event.id })).toEqual([]);
    expect(receiver.requestsTo(setup.path)).toEqual([]);
  });

  it("makes one delivery per event however often the event-created job runs", async () => {
    const setup = await subscribed();
    const event = await newEvent(setup);
    const { jobs } = app.service.services;
    // Through the queue (the event-created job) twice, and the fan-out once more directly.
    await jobs.send(QUEUES.eventCreated, { event_id: event.id });
    await jobs.send(QUEUES.eventCreated, { event_id: event.id });
    await settled(setup.subscription.id, event.id, "delivered");
    await new EventFanOut(deps).deliver(event.id);
    // Both event-created jobs have run, and so has every attempt they could have caused.
    await queueSettled(knex(), QUEUES.eventCreated, { event_id: event.id });
    const deliveries = await knex()("webhook_deliveries").where({ event_id: event.id });
    expect(deliveries).toHaveLength(1);
    await queueSettled(knex(), QUEUES.webhookDeliver, { delivery_id: deliveries[0].id });
    expect(receiver.requestsTo(setup.path)).toHaveLength(1);
  });
});

/** A pending delivery held by a job id that no queued job has, so only this test's direct calls act on it. */
async function heldDelivery(setup: Setup): Promise<{ id: string; jobId: string }> {
  const event = await newEvent(setup);
  const jobId = randomUUID();
  const row = await createWebhookDelivery(app, {
    subscriptionId: setup.subscription.id,
    eventId: event.id,
    job_id: jobId,
  });
  return { id: row.id, jobId };
}

describe("the delivery job", () => {
  it("does nothing when run by a job that does not hold the delivery (a stale or duplicate job)", async () => {
    const setup = await subscribed();
    const delivery = await heldDelivery(setup);
    expect(await new WebhookDelivery(deps).attempt(delivery.id, randomUUID())).toBe("skipped");
    expect(receiver.requestsTo(setup.path)).toEqual([]);
    expect(await new WebhookDelivery(deps).attempt(randomUUID(), randomUUID())).toBe("skipped");
  });

  it("never sends a delivered delivery again, even when its job is run once more (a retried job)", async () => {
    const setup = await subscribed();
    const delivery = await heldDelivery(setup);
    expect(await new WebhookDelivery(deps).attempt(delivery.id, delivery.jobId)).toBe("delivered");
    expect(await new WebhookDelivery(deps).attempt(delivery.id, delivery.jobId)).toBe("skipped");
    expect(receiver.requestsTo(setup.path)).toHaveLength(1);
    expect(await attemptsOf(delivery.id)).toHaveLength(1);
  });

  it("stops a pending delivery without sending once the workspace's plan has lost api_access", async () => {
    const setup = await subscribed();
    const delivery = await heldDelivery(setup);
    await admin("set-plan", setup.owner.workspaceId, "free");
    expect(await new WebhookDelivery(deps).attempt(delivery.id, delivery.jobId)).toBe("failed");
    expect(await knex()("webhook_deliveries").where({ id: delivery.id }).first()).toMatchObject({
      status: "failed",
      attempts: 0,
      last_error: "the workspace's free plan no longer includes webhooks (api_access)",
    });
    expect(receiver.requestsTo(setup.path)).toEqual([]);
  });

  it("hands a failed attempt's delivery to the retry job it queues, so the old job can no longer act", async () => {
    const setup = await subscribed();
    receiver.script(setup.path, { status: 502 });
    const delivery = await heldDelivery(setup);
    expect(await new WebhookDelivery(deps).attempt(delivery.id, delivery.jobId)).toBe("retry_scheduled");
    const row = await knex()("webhook_deliveries").where({ id: delivery.id }).first();
    expect(row.job_id).not.toBe(delivery.jobId);
    expect(row.next_attempt_at.getTime()).toBeGreaterThan(row.last_attempt_at.getTime() + 999);
    // The original job re-run (pg-boss retrying it after a crash that followed the commit) does nothing.
    expect(await new WebhookDelivery(deps).attempt(delivery.id, delivery.jobId)).toBe("skipped");
    const queued = await app.service.services.jobs.boss.getJobById("webhook-deliver", row.job_id);
    expect(queued?.data).toEqual({ delivery_id: delivery.id });
    await waitFor(
      async () => (await knex()("webhook_deliveries").where({ id: delivery.id }).first()).status === "delivered",
    );
    expect(receiver.requestsTo(setup.path)).toHaveLength(2);
  });
});

/**
 * The batch handlers of docs/architecture.md#batch-handlers: a batch of `event-created` or `webhook-deliver` jobs gives
 * each job the outcome it would have had alone, and what fails one job fails no other.
 */
describe("batches", () => {
  it("fans a batch of events from several workspaces out to exactly the subscriptions that take them, once", async () => {
    const filtered = await subscribed(["--min-severity", "high"]);
    const open = await subscribed();
    const low = await newEvent(filtered, { severity: "low" });
    const high = await newEvent(filtered, { severity: "high" });
    const other = await newEvent(open, { severity: "low" });
    const jobs = [low, high, other].map((event) => ({ jobId: randomUUID(), eventId: event.id }));

    expect(await new EventFanOut(deps).deliverMany(jobs)).toEqual([]);
    // The same batch again (a retried job) makes no second delivery.
    expect(await new EventFanOut(deps).deliverMany(jobs)).toEqual([]);
    const deliveries = await knex()("webhook_deliveries")
      .whereIn("subscription_id", [filtered.subscription.id, open.subscription.id])
      .select("subscription_id", "event_id");
    expect(deliveries).toHaveLength(2);
    expect(deliveries).toEqual(
      expect.arrayContaining([
        { subscription_id: filtered.subscription.id, event_id: high.id },
        { subscription_id: open.subscription.id, event_id: other.id },
      ]),
    );
    await settled(filtered.subscription.id, high.id, "delivered");
    await settled(open.subscription.id, other.id, "delivered");
  });

  it("fails only the job whose event id the batch query cannot read", async () => {
    const setup = await subscribed();
    const event = await newEvent(setup);
    const good = { jobId: randomUUID(), eventId: event.id };
    const malformed = { jobId: randomUUID(), eventId: "not-a-uuid" };

    const failures = await new EventFanOut(deps).deliverMany([malformed, good]);
    expect(failures.map((failure) => failure.jobId)).toEqual([malformed.jobId]);
    await settled(setup.subscription.id, event.id, "delivered");
  });

  it("gives each delivery job of a batch its own outcome: delivered, retried, skipped, or its own error", async () => {
    const ok = await subscribed();
    const failing = await subscribed();
    receiver.script(failing.path, { status: 502 });
    // As the batch handler names them: the delivery and the job that holds it.
    const delivery = async (setup: Setup) => {
      const { id, jobId } = await heldDelivery(setup);
      return { deliveryId: id, jobId };
    };
    const delivered = [await delivery(ok), await delivery(ok)];
    const retried = await delivery(failing);
    const stale = { ...(await delivery(ok)), jobId: randomUUID() };
    const unknown = { deliveryId: randomUUID(), jobId: randomUUID() };

    const outcomes = await new WebhookDelivery(deps).attemptMany([...delivered, retried, stale, unknown]);
    expect(outcomes).toEqual([
      { outcome: "delivered" },
      { outcome: "delivered" },
      { outcome: "retry_scheduled" },
      { outcome: "skipped" },
      { outcome: "skipped" },
    ]);
    for (const { deliveryId } of delivered) {
      expect(await knex()("webhook_deliveries").where({ id: deliveryId }).first()).toMatchObject({
        status: "delivered",
        attempts: 1,
        last_status: 200,
        last_error: null,
        next_attempt_at: null,
      });
      expect(await attemptsOf(deliveryId)).toMatchObject([{ status_code: 200, error: null }]);
    }
    expect(await knex()("webhook_deliveries").where({ id: retried.deliveryId }).first()).toMatchObject({
      status: "pending",
      attempts: 1,
      last_status: 502,
    });
    expect(receiver.requestsTo(ok.path)).toHaveLength(2);

    // A malformed id fails the batch's shared query: each job is then tried alone, and only that one errs.
    const again = await delivery(ok);
    const mixed = await new WebhookDelivery(deps).attemptMany([
      { deliveryId: "not-a-uuid", jobId: randomUUID() },
      again,
    ]);
    expect(mixed[0]!.error).toBeInstanceOf(Error);
    expect(mixed[1]).toEqual({ outcome: "delivered" });
  });
});
