/** The worker's handler for each queue (areas add theirs here). */
import type { Logger } from "pino";
import { deliverSlackAlert } from "../alerts/slack.js";
import { EVENT_CONSUMERS, type DeliveryDeps } from "../delivery/consumers.js";
import type { DetectionPipeline } from "../detection/pipeline.js";
import type { EmailMessage, EmailTransport } from "../lib/email.js";
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
      for (const consume of EVENT_CONSUMERS) await consume(deps.delivery, job.data.event_id);
    },
    [QUEUES.alertSlack.name]: (job) => deliverSlackAlert(deps.delivery, job),
    [QUEUES.webhookDeliver.name]: async (job) => {
      await deliverWebhook(deps.delivery, job.data.delivery_id, job.id);
    },
    [QUEUES.sourceFetch.name]: async (job) => {
      const outcome = await deps.pipeline.fetchSource(job.data.source_id, job.id);
      deps.log.debug({ job: job.id, source: job.data.source_id, outcome: outcome.kind }, "source fetched");
    },
    [QUEUES.emailSend.name]: async (job) => {
      const message = job.data as EmailMessage;
      const sent = await deps.email.send(message);
      deps.log.info({ job: job.id, to: message.to, messageId: sent.messageId }, "email sent");
    },
  };
}
