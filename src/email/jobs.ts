/** The email area's job: `email-send` sends one queued message (src/email/outbox.ts) through the transport. */
import { recordAlertEmail } from "../alerts/consumer.js";
import type { AreaJobs } from "../jobs/types.js";
import { loadOutgoingEmail, recordEmailOutcome } from "./outbox.js";

export const emailJobs: AreaJobs = {
  async emailSend(deps, job) {
    const { knex } = deps.delivery;
    const email = await loadOutgoingEmail(knex, job.data.email_id);
    // Sent by an earlier run of this job (pg-boss delivers at least once), or pruned since.
    if (!email || email.sent_at) return;
    const alertDeliveryId = email.alert_delivery_id;
    let messageId: string;
    try {
      ({ messageId } = await deps.email.send({
        to: email.to_address,
        subject: email.subject,
        text: email.text_body,
        ...(email.html_body ? { html: email.html_body } : {}),
        ...(Object.keys(email.headers).length > 0 ? { headers: email.headers } : {}),
      }));
    } catch (error) {
      // Thrown on: pg-boss retries with backoff; the rows keep the last error meanwhile.
      const reason = error instanceof Error ? error.message : String(error);
      await recordEmailOutcome(knex, email.id, { error: reason });
      if (alertDeliveryId) await recordAlertEmail(knex, alertDeliveryId, { error: reason });
      throw error;
    }
    await recordEmailOutcome(knex, email.id, { messageId });
    if (alertDeliveryId) await recordAlertEmail(knex, alertDeliveryId, { sent: true });
    deps.log.info({ job: job.id, to: email.to_address, messageId }, "email sent");
  },
};
