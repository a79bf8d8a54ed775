/**
 * What the scheduler does on each tick besides enqueueing due fetches (src/jobs/scheduler.ts). Areas add their
 * periodic work here; each task is idempotent, since a tick may see the same moment twice.
 */
import type { Config } from "../config.js";
import { enqueueDigestRuns, enqueueDueDigestDeliveries } from "../digests/schedule.js";
import { pruneWebhookReceipts } from "../lib/standard-webhooks.js";
import type { Jobs } from "./boss.js";
import type { SchedulerTask } from "./scheduler.js";

export function scheduledTasks(deps: { config: Readonly<Config>; jobs: Jobs }): SchedulerTask[] {
  return [
    { name: "digest-runs", run: (trx, now) => enqueueDigestRuns(trx, deps.jobs, now) },
    {
      name: "digest-deliveries",
      run: (trx, now) => enqueueDueDigestDeliveries(trx, deps.jobs, now, deps.config.email.transport),
    },
    { name: "webhook-receipts-prune", run: (trx) => pruneWebhookReceipts(trx) },
  ];
}
