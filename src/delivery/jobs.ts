/** The delivery area's job: `event-created` fans a new event out to its channels (src/delivery/consumers.ts). */
import type { AreaJobs } from "../jobs/types.js";
import { consumeEvent } from "./consumers.js";

export const deliveryJobs: AreaJobs = {
  async eventCreated(deps, job) {
    await consumeEvent(deps.delivery, job.data.event_id);
  },
};
