/**
 * The webhook channel's part of the `event-created` job (src/delivery/consumers.ts): one delivery per matching
 * subscription, each with its `webhook-deliver` job, in one transaction.
 */
import { randomUUID } from "node:crypto";
import { acrossWorkspaces } from "../db/tenancy.js";
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
    await this.consumeMany([event]);
  }

  /**
   * `consume` for a batch of events in four round trips whatever its size: their workspaces' subscriptions in one
   * query, every new delivery in one insert and their jobs in another, in one transaction.
   */
  async consumeMany(events: EventToDeliver[]): Promise<void> {
    await this.deps.knex.transaction(async (trx) => {
      const workspaceIds = [...new Set(events.map((event) => event.workspace_id))];
      const subscriptions = await acrossWorkspaces(trx)
        .from("webhook_subscriptions")
        .whereIn("workspace_id", workspaceIds)
        .orderBy("environment")
        .select<SubscriptionRow[]>("id", "workspace_id", "min_severity", "event_types");
      // Each delivery's job id is chosen here and kept on the delivery: only that job may act on it
      // (src/webhooks/deliver.ts).
      const deliveries = events.flatMap((event) =>
        subscriptions
          .filter((subscription) => subscription.workspace_id === event.workspace_id)
          .filter((subscription) => subscriptionTakes(subscription, event))
          .map((subscription) => ({ subscription_id: subscription.id, event_id: event.id, job_id: randomUUID() })),
      );
      if (deliveries.length === 0) return;
      // Only the rows this insert created get a job: a retried event-created job queues nothing twice.
      const created: { id: string; job_id: string }[] = await trx("webhook_deliveries")
        .insert(deliveries)
        .onConflict(["subscription_id", "event_id"])
        .ignore()
        .returning(["id", "job_id"]);
      await this.deps.jobs.sendMany(
        QUEUES.webhookDeliver,
        created.map((delivery) => ({ id: delivery.job_id, data: { delivery_id: delivery.id } })),
        trx,
      );
    });
    this.deps.jobs.wake(QUEUES.webhookDeliver);
  }
}

interface SubscriptionRow {
  id: string;
  workspace_id: string;
  min_severity: string;
  event_types: string[] | null;
}
