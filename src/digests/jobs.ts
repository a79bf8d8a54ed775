/** The digests area's jobs: one scheduled run (every eligible workspace's digest) and one member's digest email. */
import type { AreaJobs } from "../jobs/types.js";
import { generateScheduledDigests } from "./schedule.js";
import { deliverDigest } from "./send.js";

export const digestJobs: AreaJobs = {
  async digestGenerate(deps, job) {
    const { knex, config } = deps.delivery;
    await generateScheduledDigests({ knex, log: deps.log, publicBaseUrl: config.publicBaseUrl }, job.data);
  },
  async digestDeliver(deps, job) {
    const { knex, config } = deps.delivery;
    const outcome = await deliverDigest({ knex, config, email: deps.email, log: deps.log }, job.data.delivery_id);
    // Thrown so pg-boss retries with backoff; the delivery stays `failed` if every retry fails.
    if (outcome === "failed") throw new Error(`digest delivery ${job.data.delivery_id} failed; will retry`);
  },
};
