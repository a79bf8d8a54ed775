/**
 * What the scheduler does on each tick besides enqueueing due fetches (src/jobs/scheduler.ts). Areas add their
 * periodic work here; each task is idempotent, since a tick may see the same moment twice.
 */
import type { Config } from "../config.js";
import { CrmRollupSchedule } from "../crm/rollup.js";
import { DigestSchedule } from "../digests/schedule.js";
import { pruneSentEmails } from "../email/outbox.js";
import { FirehoseSchedule } from "../firehose/monitors.js";
import { pruneExpiredBuckets } from "../lib/rate-limit.js";
import { pruneWebhookReceipts } from "../lib/standard-webhooks.js";
import { pruneExpiredSnapshots } from "../sources/retention.js";
import type { Jobs } from "./boss.js";
import type { SchedulerTask } from "./scheduler.js";

export function scheduledTasks(deps: { config: Readonly<Config>; jobs: Jobs }): SchedulerTask[] {
  return [
    { name: "digest-runs", run: (trx, now) => new DigestSchedule({ ...deps, trx }).enqueueRuns(now) },
    {
      name: "digest-deliveries",
      run: (trx, now) => new DigestSchedule({ ...deps, trx }).enqueueDueDeliveries(now),
    },
    // Yesterday's (UTC) rollup engagement per CRM connection, queued once per connection and day.
    { name: "crm-rollups", run: (trx, now) => new CrmRollupSchedule({ knex: trx, jobs: deps.jobs }).enqueueDue(now) },
    // Each enabled firehose monitor's run, once per cadence slot (hourly unless a partner monitor says otherwise).
    { name: "firehose-runs", run: (trx, now) => new FirehoseSchedule({ knex: trx, jobs: deps.jobs }).enqueueDue(now) },
    { name: "webhook-receipts-prune", run: (trx) => pruneWebhookReceipts(trx) },
    { name: "sent-emails-prune", run: (trx) => pruneSentEmails(trx) },
    { name: "rate-limit-buckets-prune", run: (trx) => pruneExpiredBuckets(trx) },
    { name: "snapshots-prune", run: (trx) => pruneExpiredSnapshots(trx) },
  ];
}
