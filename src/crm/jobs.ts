/** The CRM area's jobs: one event's write-back to one connection, and one connection's daily rollup. */
import type { AreaJobs } from "../jobs/types.js";
import { runCrmRollup } from "./rollup.js";
import { runCrmSync } from "./sync.js";

export const crmJobs: AreaJobs = {
  async crmSync(deps, job) {
    await runCrmSync(deps.delivery, job.data.sync_id, job.id);
  },
  async crmRollup(deps, job) {
    await runCrmRollup(deps.delivery, job.data.run_id, job.id);
  },
};
