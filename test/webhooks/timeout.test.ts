/**
 * "Success = 2xx within 10 s": a receiver that answers later is retried like a 5xx. In its own file because it needs
 * the default 24-hour window (a 10 s attempt would outlast the short window of delivery.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCommand } from "../../src/cli/admin.js";
import { EventFanOut } from "../../src/delivery/consumers.js";
import type { WebhookSubscription } from "../../src/webhooks/subscriptions.js";
import { WebhookReceiver } from "../fakes/webhook-receiver.js";
import { createCompetitor, createEvent, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  [app, receiver] = await Promise.all([
    startTestApp({ WEBHOOK_RETRY_BASE_SECONDS: "1" }),
    new WebhookReceiver().start(),
  ]);
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
});

describe("timeouts", () => {
  it("retries an attempt that gets no answer within 10 s", async () => {
    const { knex, config, jobs, http, log } = app.service.services;
    const owner = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, owner);
    const subscription = (await runAdminCommand(
      ["webhook-add", owner.workspaceId, "--url", receiver.url("/slow"), "--environment", "production"],
      app.service.services,
    )) as WebhookSubscription;
    receiver.script("/slow", { status: 200, delayMs: 10_500 });
    const event = await createEvent(app, owner, { competitorId: competitor.id });
    await new EventFanOut({ knex, config, jobs, http, log }).deliver(event.id);

    const delivery = await waitFor(async () => {
      const row = await knex("webhook_deliveries")
        .where({ subscription_id: subscription.id, event_id: event.id })
        .first();
      return row?.status === "delivered" ? row : null;
    }, 25_000);
    const attempts = await knex("webhook_attempts").where({ delivery_id: delivery.id }).orderBy("attempted_at");
    expect(attempts.map((a) => [a.status_code, a.error])).toEqual([
      [null, "timed out after 10 s"],
      [200, null],
    ]);
    expect(attempts[0].latency_ms).toBeGreaterThanOrEqual(10_000);
    expect(receiver.requestsTo("/slow")).toHaveLength(2);
  }, 40_000);
});
