/**
 * What the scheduler does on each tick besides enqueueing due fetches (src/jobs/scheduler.ts). Areas add their
 * periodic work here; each task is idempotent, since a tick may see the same moment twice.
 */
import type { Config } from "../config.js";
import { enqueueDueCrmRollups } from "../crm/rollup.js";
import { enqueueDigestRuns, enqueueDueDigestDeliveries } from "../digests/schedule.js";
import { pruneSentEmails } from "../email/outbox.js";
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
    // Yesterday's (UTC) rollup engagement per CRM connection, queued once per connection and day.
    { name: "crm-rollups", run: (trx, now) => enqueueDueCrmRollups({ knex: trx, jobs: deps.jobs }, now) },
    { name: "webhook-receipts-prune", run: (trx) => pruneWebhookReceipts(trx) },
    { name: "sent-emails-prune", run: (trx) => pruneSentEmails(trx) },
  ];
}
