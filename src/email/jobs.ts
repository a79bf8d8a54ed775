/** The email area's job: `email-send` sends one queued message (src/email/outbox.ts) through the transport. */
import type { AreaJobs } from "../jobs/types.js";
import { OutgoingEmailDelivery } from "./send.js";

export const emailJobs: AreaJobs = {
  async emailSend(deps, job) {
    await new OutgoingEmailDelivery({ ...deps.delivery, email: deps.email }).send(job.data.email_id, job.id);
  },
};
