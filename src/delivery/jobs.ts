/** The delivery area's job: `event-created` fans a new event out to its channels (src/delivery/consumers.ts). */
import type { AreaJobs } from "../jobs/types.js";
import { EventFanOut } from "./consumers.js";

export const deliveryJobs: AreaJobs = {
  eventCreated: (deps, job) => new EventFanOut(deps.delivery).deliver(job.data.event_id),
};
