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
import { webhookJobs } from "../webhooks/jobs.js";
import type { QueueHandlers } from "./boss.js";
import type { QueueKey } from "./queues.js";
import type { AreaJobs, JobDeps } from "./types.js";

const AREAS: AreaJobs[] = [detectionJobs, deliveryJobs, alertJobs, webhookJobs, crmJobs, digestJobs, emailJobs];

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

/** The worker's handler per queue, bound to the process's services. */
export function workerHandlers(deps: JobDeps): QueueHandlers {
  const handlers: Record<string, unknown> = {};
  for (const [queue, handler] of Object.entries(JOBS) as [QueueKey, (deps: JobDeps, job: unknown) => Promise<void>][]) {
    handlers[queue] = (job: unknown) => handler(deps, job);
  }
  return handlers as QueueHandlers;
}
