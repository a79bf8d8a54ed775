/** The worker's handler for each queue (areas add theirs here). */
import type { Logger } from "pino";
import type { EmailMessage, EmailTransport } from "../lib/email.js";
import type { JobHandler } from "./boss.js";
import { QUEUES, type QueueName } from "./queues.js";

export function jobHandlers(deps: { email: EmailTransport; log: Logger }): Partial<Record<QueueName, JobHandler>> {
  return {
    [QUEUES.emailSend.name]: async (job) => {
      const message = job.data as EmailMessage;
      const sent = await deps.email.send(message);
      deps.log.info({ job: job.id, to: message.to, messageId: sent.messageId }, "email sent");
    },
  };
}
