/** The webhooks area's job: `webhook-deliver` makes one signed attempt of one delivery (src/webhooks/deliver.ts). */
import type { AreaJobs } from "../jobs/types.js";
import { WebhookDelivery } from "./deliver.js";

export const webhookJobs: AreaJobs = {
  async webhookDeliver(deps, job) {
    await new WebhookDelivery(deps.delivery).attempt(job.data.delivery_id, job.id);
  },
};
