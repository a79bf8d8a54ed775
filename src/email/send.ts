/**
 * The `email-send` job: one queued message (src/email/outbox.ts) handed to the configured transport, and what became
 * of it recorded on its row (and on the immediate-alert row it belongs to, if any).
 */
import { metrics } from "../metrics/metrics.js";
import type { Knex } from "knex";
import type { Logger } from "pino";
import { recordAlertEmail } from "../alerts/consumer.js";
import { renderSetPasswordLinks } from "../auth/reset-email.js";
import type { Config } from "../config.js";
import { loadOutgoingEmail, recordEmailOutcome } from "./outbox.js";
import type { EmailTransport } from "./transports.js";

/** What sending queued mail needs: the settings, the database, the transport and the log. */
export interface EmailSendDeps {
  /** The key and base URL set-password links are rendered with at send time (src/auth/reset-email.ts). */
  config: Pick<Config, "jwtSecret" | "publicBaseUrl">;
  knex: Knex;
  email: EmailTransport;
  log: Logger;
}

/** Sending queued mail, built from the worker's deps. */
export class OutgoingEmailDelivery {
  constructor(private readonly deps: EmailSendDeps) {}

  /**
   * Sends the message of row `emailId` (for job `jobId`, named in the log) unless an earlier run of its job did. A
   * transport error is recorded and thrown, so pg-boss retries with backoff. Every attempt carries the row's
   * idempotency key: should an attempt the provider took be retried anyway (its answer lost), the provider recognises
   * the repeat.
   */
  async send(emailId: string, jobId?: string): Promise<void> {
    const { knex } = this.deps;
    const email = await loadOutgoingEmail(knex, emailId);
    // Sent by an earlier run of this job (pg-boss delivers at least once), or pruned since.
    if (!email || email.sent_at) return;
    const alertDeliveryId = email.alert_delivery_id;
    let messageId: string;
    try {
      ({ messageId } = await this.deps.email.send(
        await renderSetPasswordLinks(this.deps, {
          to: email.to_address,
          subject: email.subject,
          text: email.text_body,
          ...(email.html_body ? { html: email.html_body } : {}),
          ...(Object.keys(email.headers).length > 0 ? { headers: email.headers } : {}),
          idempotencyKey: `outgoing-email-${email.id}`,
        }),
      ));
    } catch (error) {
      // Thrown on: pg-boss retries with backoff; the rows keep the last error meanwhile.
      const reason = error instanceof Error ? error.message : String(error);
      await recordEmailOutcome(knex, email.id, { error: reason });
      metrics.emails.inc({ kind: "message", outcome: "failed" });
      if (alertDeliveryId) await recordAlertEmail(knex, alertDeliveryId, { error: reason });
      throw error;
    }
    await recordEmailOutcome(knex, email.id, { messageId });
    metrics.emails.inc({ kind: "message", outcome: "sent" });
    if (alertDeliveryId) await recordAlertEmail(knex, alertDeliveryId, { sent: true });
    this.deps.log.info({ job: jobId, email: email.id, to: email.to_address, messageId }, "email sent");
  }
}
