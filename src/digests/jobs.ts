/** The digests area's jobs: one scheduled run (every eligible workspace's digest) and one member's digest email. */
import type { AreaJobs } from "../jobs/types.js";
import { ScheduledDigests } from "./schedule.js";
import { DigestSender } from "./send.js";

export const digestJobs: AreaJobs = {
  async digestGenerate(deps, job) {
    await new ScheduledDigests(deps.delivery).generate(job.data);
  },
  async digestDeliver(deps, job) {
    await new DigestSender({ ...deps.delivery, email: deps.email }).sendScheduled(job.data.delivery_id);
  },
};
