/** The webhooks area's job: `webhook-deliver` makes one signed attempt of one delivery (src/webhooks/deliver.ts). */
import type { AreaJobs } from "../jobs/types.js";
import { deliverWebhook } from "./deliver.js";

export const webhookJobs: AreaJobs = {
  async webhookDeliver(deps, job) {
    await deliverWebhook(deps.delivery, job.data.delivery_id, job.id);
  },
};
