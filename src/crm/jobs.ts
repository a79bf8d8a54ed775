/** The CRM area's jobs: one event's write-back to one connection, and one connection's daily rollup. */
import type { AreaJobs } from "../jobs/types.js";
import { CrmRollup } from "./rollup.js";
import { CrmSync } from "./sync.js";

export const crmJobs: AreaJobs = {
  async crmSync(deps, job) {
    await new CrmSync(deps.delivery).run(job.data.sync_id, job.id);
  },
  async crmRollup(deps, job) {
    await new CrmRollup(deps.delivery).run(job.data.run_id, job.id);
  },
};
