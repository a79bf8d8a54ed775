/**
 * The job registry: every area's job handlers (its `jobs.ts`) merged into one map keyed by queue, as src/handlers.ts
 * merges HTTP handlers. A queue handled by two areas is a start-up error; a test asserts every declared queue has a
 * handler.
 */
import { alertJobs } from "../alerts/jobs.js";
import { crmJobs } from "../crm/jobs.js";
import { deliveryJobs } from "../delivery/jobs.js";
import { detectionJobs } from "../detection/jobs.js";
import { digestJobs } from "../digests/jobs.js";
import { emailJobs } from "../email/jobs.js";
import { eventJobs } from "../events/jobs.js";
import { firehoseJobs } from "../firehose/jobs.js";
import { supportJobs } from "../support/jobs.js";
import { webhookJobs } from "../webhooks/jobs.js";
import type PgBoss from "pg-boss";
import type { QueueHandlers } from "./boss.js";
import type { QueueKey } from "./queues.js";
import type { AreaJobs, BatchJobHandler, JobDeps } from "./types.js";

const AREAS: AreaJobs[] = [
  detectionJobs,
  deliveryJobs,
  eventJobs,
  alertJobs,
  webhookJobs,
  crmJobs,
  digestJobs,
  emailJobs,
  firehoseJobs,
  supportJobs,
];

function merge(areas: AreaJobs[]): AreaJobs {
  const merged: AreaJobs = {};
  for (const area of areas) {
    for (const [queue, handler] of Object.entries(area)) {
      if (queue in merged) throw new Error(`two areas handle the ${queue} queue`);
      (merged as Record<string, unknown>)[queue] = handler;
    }
  }
  return merged;
}

export const JOBS: AreaJobs = merge(AREAS);

type AnyJob = PgBoss.Job<object>;
type AnyHandler = ((deps: JobDeps, job: AnyJob) => Promise<void>) | { batch: BatchJobHandler<QueueKey>["batch"] };

/**
 * The worker's handler per queue, bound to the process's services, each taking a whole batch: a one-job handler runs
 * the batch's jobs concurrently, and a job whose handler throws is the batch's only failure.
 */
export function workerHandlers(deps: JobDeps): QueueHandlers {
  const handlers: QueueHandlers = {};
  for (const [queue, handler] of Object.entries(JOBS) as [QueueKey, AnyHandler][]) {
    handlers[queue] =
      typeof handler === "function"
        ? async (jobs) => {
            const results = await Promise.allSettled(jobs.map((job) => handler(deps, job)));
            return results.flatMap((result, index) =>
              result.status === "rejected" ? [{ jobId: jobs[index]!.id, error: result.reason }] : [],
            );
          }
        : (jobs) => handler.batch(deps, jobs as never);
  }
  return handlers;
}
