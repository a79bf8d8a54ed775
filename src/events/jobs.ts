/** The events area's job: the LLM's rewrite of one new event's summary (src/events/summaries.ts). */
import type { AreaJobs } from "../jobs/types.js";
import { EventSummaryRewrite } from "./summaries.js";

export const eventJobs: AreaJobs = {
  async eventSummary(deps, job) {
    const outcome = await new EventSummaryRewrite(deps.delivery).run(job.data.event_id);
    deps.log.debug({ job: job.id, event: job.data.event_id, ...outcome }, "event summary");
  },
};
