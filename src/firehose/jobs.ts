/** The firehose's job: one workspace's run, queued by the scheduler (src/firehose/monitors.ts). */
import type { AreaJobs } from "../jobs/types.js";
import { FirehoseNotAvailableError, FirehoseRun } from "./run.js";

export const firehoseJobs: AreaJobs = {
  async firehoseRun(deps, job) {
    try {
      await new FirehoseRun(deps.delivery).run(job.data.workspace_id);
    } catch (error) {
      // Gone, or downgraded since it was queued: nothing to run, nothing to retry.
      if (error instanceof FirehoseNotAvailableError) return;
      throw error;
    }
  },
};
