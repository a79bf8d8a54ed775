/** The delivery area's job: `event-created` fans a new event out to its channels (src/delivery/consumers.ts). */
import type { AreaJobs } from "../jobs/types.js";
import { EventFanOut } from "./consumers.js";
import { NoticeFanOut } from "./notices.js";

export const deliveryJobs: AreaJobs = {
  // A batch at a time: detection commits a page's events together, and per-event round trips capped the fan-out
  // (docs/architecture.md#batch-handlers).
  eventCreated: {
    batch: (deps, jobs) =>
      new EventFanOut(deps.delivery).deliverMany(jobs.map((job) => ({ jobId: job.id, eventId: job.data.event_id }))),
  },
  // A source health transition told on its channels (src/delivery/notices.ts).
  sourceNoticeCreated: (deps, job) => new NoticeFanOut(deps.delivery).deliver(job.data.notice_id),
};
