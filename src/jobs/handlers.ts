/** The worker's handler for each queue (areas add theirs here). */
import type { Logger } from "pino";
import { recordAlertEmail } from "../alerts/consumer.js";
import { deliverSlackAlert } from "../alerts/slack.js";
import { runCrmRollup } from "../crm/rollup.js";
import { runCrmSync } from "../crm/sync.js";
import { consumeEvent } from "../delivery/consumers.js";
import type { DeliveryDeps } from "../delivery/types.js";
import type { DetectionPipeline } from "../detection/pipeline.js";
import { generateScheduledDigests, type DigestRun } from "../digests/schedule.js";
import { deliverDigest } from "../digests/send.js";
import type { EmailJob, EmailTransport, SentEmail } from "../lib/email.js";
import { deliverWebhook } from "../webhooks/deliver.js";
import type { JobHandler } from "./boss.js";
import { QUEUES, type QueueName } from "./queues.js";

export interface JobDeps {
  email: EmailTransport;
  log: Logger;
  pipeline: DetectionPipeline;
  delivery: DeliveryDeps;
}

export function jobHandlers(deps: JobDeps): Partial<Record<QueueName, JobHandler>> {
  return {
    [QUEUES.eventCreated.name]: async (job) => {
      await consumeEvent(deps.delivery, job.data.event_id);
    },
    [QUEUES.alertSlack.name]: (job) => deliverSlackAlert(deps.delivery, job),
    [QUEUES.webhookDeliver.name]: async (job) => {
      await deliverWebhook(deps.delivery, job.data.delivery_id, job.id);
    },
    [QUEUES.crmSync.name]: async (job) => {
      await runCrmSync(deps.delivery, job.data.sync_id, job.id);
    },
    [QUEUES.crmRollup.name]: async (job) => {
      await runCrmRollup(deps.delivery, job.data.run_id, job.id);
    },
    [QUEUES.sourceFetch.name]: async (job) => {
      const outcome = await deps.pipeline.fetchSource(job.data.source_id, job.id);
      deps.log.debug({ job: job.id, source: job.data.source_id, outcome: outcome.kind }, "source fetched");
    },
    [QUEUES.digestGenerate.name]: async (job) => {
      const { knex, config } = deps.delivery;
      await generateScheduledDigests(
        { knex, log: deps.log, publicBaseUrl: config.publicBaseUrl },
        job.data as DigestRun,
      );
    },
    [QUEUES.digestDeliver.name]: async (job) => {
      const { knex, config } = deps.delivery;
      const outcome = await deliverDigest({ knex, config, email: deps.email, log: deps.log }, job.data.delivery_id);
      // Thrown so pg-boss retries with backoff; the delivery stays `failed` if every retry fails.
      if (outcome === "failed") throw new Error(`digest delivery ${job.data.delivery_id} failed; will retry`);
    },
    [QUEUES.emailSend.name]: async (job) => {
      const { alert_delivery_id: alertDeliveryId, ...message } = job.data as EmailJob;
      let sent: SentEmail;
      try {
        sent = await deps.email.send(message);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (alertDeliveryId) await recordAlertEmail(deps.delivery.knex, alertDeliveryId, { error: reason });
        throw error;
      }
      if (alertDeliveryId) await recordAlertEmail(deps.delivery.knex, alertDeliveryId, { sent: true });
      deps.log.info({ job: job.id, to: message.to, messageId: sent.messageId }, "email sent");
    },
  };
}
