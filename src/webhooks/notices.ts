/**
 * The webhook channel of source health notices (docs/product-rules.md#source-health): one delivery per subscription
 * whose `event_types` is null or names the transition (`source_broken`, `source_recovered`), each with its
 * `webhook-deliver` job, in one transaction. The minimum severity of a subscription filters events, not notices.
 * Idempotent: a delivery is unique per (subscription, notice), and only the insert that created it queues its job.
 */
import { randomUUID } from "node:crypto";
import { WorkspaceScope } from "../db/tenancy.js";
import type { DeliveryDeps, NoticeToDeliver } from "../delivery/types.js";
import { QUEUES } from "../jobs/queues.js";
import { limitsOf } from "../workspaces/plans.js";

export class NoticeWebhooks {
  constructor(private readonly deps: DeliveryDeps) {}

  async consume(notice: NoticeToDeliver): Promise<void> {
    // Webhooks are machine integration: api_access (docs/product-rules.md#access-and-roles).
    if (!limitsOf(notice.plan).api_access) return;
    await this.deps.knex.transaction(async (trx) => {
      const scope = new WorkspaceScope(trx, notice.workspace_id);
      const subscriptions: { id: string; event_types: string[] | null }[] = await scope
        .from("webhook_subscriptions")
        .orderBy("environment")
        .select("id", "event_types");
      const deliveries = subscriptions
        .filter(
          (subscription) => subscription.event_types === null || subscription.event_types.includes(notice.notice_type),
        )
        .map((subscription) => ({ subscription_id: subscription.id, notice_id: notice.id, job_id: randomUUID() }));
      if (deliveries.length === 0) return;
      const created: { id: string; job_id: string }[] = await trx("webhook_deliveries")
        .insert(deliveries)
        .onConflict(trx.raw("(subscription_id, notice_id) WHERE notice_id IS NOT NULL"))
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
