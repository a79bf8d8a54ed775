/**
 * The SSRF guard applies to webhooks (README "ALLOW_PRIVATE_TARGETS"): with it on, `webhook-add` refuses a private
 * target when it is configured, and a delivery to one fails at once, without retries and without reaching it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCommand } from "../../src/cli/admin.js";
import { EventFanOut } from "../../src/delivery/consumers.js";
import { QUEUES } from "../../src/jobs/queues.js";
import { WebhookReceiver } from "../fakes/webhook-receiver.js";
import { createCompetitor, createEvent, createWebhookSubscription, createWorkspace } from "../setup/factories.js";
import { queueSettled } from "../setup/jobs.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  [app, receiver] = await Promise.all([
    startTestApp({ ALLOW_PRIVATE_TARGETS: "0", WEBHOOK_RETRY_BASE_SECONDS: "1" }),
    new WebhookReceiver().start(),
  ]);
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
});

const admin = (...argv: string[]) => runAdminCommand(argv, app.service.services);

describe("private targets (ALLOW_PRIVATE_TARGETS=0)", () => {
  it("webhook-add refuses loopback, private, link-local and names resolving to them", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const refusals: [string, string][] = [
      [receiver.url("/hook"), "URL refused: blocked: 127.0.0.1 is a private address"],
      ["https://10.1.2.3/hook", "URL refused: blocked: 10.1.2.3 is a private address"],
      ["http://169.254.169.254/latest/meta-data", "URL refused: blocked: 169.254.169.254 is a private address"],
      ["https://[::1]:8443/hook", "URL refused: blocked: ::1 is a private address"],
      ["http://localhost:9000/hook", "URL refused: blocked: localhost resolves to a private address"],
    ];
    for (const [url, message] of refusals) {
      await expect(
        admin("webhook-add", owner.workspaceId, "--url", url, "--environment", "production"),
        url,
      ).rejects.toThrow(message);
    }
    expect(await app.service.services.knex("webhook_subscriptions").where({ workspace_id: owner.workspaceId })).toEqual(
      [],
    );
    // A public address passes (an IP literal: checked without DNS).
    expect(
      await admin(
        "webhook-add",
        owner.workspaceId,
        "--url",
        "https://93.184.215.14/hook",
        "--environment",
        "production",
      ),
    ).toMatchObject({ url: "https://93.184.215.14/hook" });
  });

  it("fails a delivery to a private address at once, recording why, without reaching it or retrying", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, owner);
    const { knex, config, jobs, http, log } = app.service.services;
    // Stored while the guard was off (local development), then the service runs with it on.
    const subscription = await createWebhookSubscription(app, owner, {
      environment: "production",
      url: receiver.url("/private"),
      signing_secret: "whsec_dGVzdA==",
    });
    const event = await createEvent(app, owner, { competitorId: competitor.id });
    await new EventFanOut({ knex, config, jobs, http, log }).deliver(event.id);

    const delivery = await waitFor(async () => {
      const row = await knex("webhook_deliveries")
        .where({ subscription_id: subscription.id, event_id: event.id })
        .first();
      return row?.status === "failed" ? row : null;
    });
    expect(delivery).toMatchObject({
      attempts: 1,
      last_status: null,
      last_error: "blocked: 127.0.0.1 is a private address",
      next_attempt_at: null,
    });
    const attempts = await knex("webhook_attempts").where({ delivery_id: delivery.id });
    expect(attempts.map((a) => [a.status_code, a.error])).toEqual([[null, "blocked: 127.0.0.1 is a private address"]]);
    // Nothing is left to retry it: the receiver was never reached and never will be.
    await queueSettled(app.service.services.knex, QUEUES.webhookDeliver, { delivery_id: delivery.id });
    expect(receiver.requests).toEqual([]);
  });
});
