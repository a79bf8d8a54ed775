/**
 * The webhook channel's part of the `event-created` job (src/delivery/consumers.ts): one delivery per matching
 * subscription, each with its `webhook-deliver` job, in one transaction.
 */
import { randomUUID } from "node:crypto";
import { WorkspaceScope } from "../db/tenancy.js";
import type { DeliveryDeps, DeliverySetup, EventChannel, EventToDeliver } from "../delivery/types.js";
import { QUEUES } from "../jobs/queues.js";
import { subscriptionTakes } from "./policy.js";

/**
 * Outbound webhooks are machine integration: they need `api_access` (docs/product-rules.md#access-and-roles).
 * Idempotent: a delivery is unique per (subscription, event) and inserted ON CONFLICT DO NOTHING, and its job is queued
 * only by the insert that created it, so a retried `event-created` job queues nothing twice.
 */
export class WebhookChannel implements EventChannel {
  readonly name = "webhooks";
  readonly requires = "api_access";

  constructor(private readonly deps: DeliveryDeps) {}

  wants(setup: DeliverySetup): boolean {
    return setup.webhooks;
  }

  async consume(event: EventToDeliver): Promise<void> {
    await this.deps.knex.transaction(async (trx) => {
      const scope = new WorkspaceScope(trx, event.workspace_id);
      const subscriptions = await scope
        .from("webhook_subscriptions")
        .orderBy("environment")
        .select<{ id: string; min_severity: string; event_types: string[] | null }[]>(
          "id",
          "min_severity",
          "event_types",
        );
      for (const subscription of subscriptions) {
        if (!subscriptionTakes(subscription, event)) continue;
        // The job's id is chosen here and kept on the delivery: only that job may act on it (src/webhooks/deliver.ts).
        const jobId = randomUUID();
        const [delivery] = await trx("webhook_deliveries")
          .insert({ subscription_id: subscription.id, event_id: event.id, job_id: jobId })
          .onConflict(["subscription_id", "event_id"])
          .ignore()
          .returning("id");
        if (!delivery) continue;
        await this.deps.jobs.send(QUEUES.webhookDeliver, { delivery_id: delivery.id }, { id: jobId }, trx);
      }
    });
  }
}
