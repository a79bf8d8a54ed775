/** The webhooks area's job: `webhook-deliver` makes one signed attempt of one delivery (src/webhooks/deliver.ts). */
import type { AreaJobs } from "../jobs/types.js";
import { WebhookDelivery } from "./deliver.js";

export const webhookJobs: AreaJobs = {
  // A batch at a time: per-delivery round trips capped deliveries per second (docs/architecture.md#batch-handlers).
  webhookDeliver: {
    async batch(deps, jobs) {
      const outcomes = await new WebhookDelivery(deps.delivery).attemptMany(
        jobs.map((job) => ({ deliveryId: job.data.delivery_id, jobId: job.id })),
      );
      return outcomes.flatMap((result, index) =>
        result.error === undefined ? [] : [{ jobId: jobs[index]!.id, error: result.error }],
      );
    },
  },
};
