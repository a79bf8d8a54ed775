/** The detection area's job: `source-fetch` fetches one source and records what changed (src/detection/pipeline.ts). */
import type { AreaJobs } from "../jobs/types.js";

export const detectionJobs: AreaJobs = {
  async sourceFetch(deps, job) {
    const outcome = await deps.pipeline.fetchSource(job.data.source_id, job.id);
    // pg-boss retries the job (30 s, then longer) once the running fetch has been recorded.
    if (outcome.kind === "busy") throw new Error(`${outcome.reason}; retried later`);
    deps.log.debug(
      { job: job.id, source: job.data.source_id, trigger: job.data.trigger, outcome: outcome.kind },
      "source fetched",
    );
  },
};
