/** The support inbox's job: triage of one stored inbound message (src/support/triage.ts). */
import type { AreaJobs } from "../jobs/types.js";
import { SupportTriage } from "./triage.js";

export const supportJobs: AreaJobs = {
  async supportTriage(deps, job) {
    await new SupportTriage(deps.delivery).run(job.data.message_id);
  },
};
