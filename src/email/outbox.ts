/**
 * Outgoing email is queued, never sent inline: `enqueueEmail` stores the message in `outgoing_emails` and queues an
 * `email-send` job naming the row, in one transaction (the caller's, when given, so the mail goes only if what caused
 * it commits). The worker sends it through the configured transport (src/email/send.ts).
 */
import type { Knex } from "knex";
import type { Jobs } from "../jobs/boss.js";
import { QUEUES } from "../jobs/queues.js";
import type { EmailMessage } from "./transports.js";

/** How long a sent message's row is kept (it may hold a sign-in link); pruned by the scheduler. */
export const SENT_EMAIL_RETENTION_DAYS = 7;

export interface OutgoingEmail {
  id: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  headers: Record<string, string>;
  alert_delivery_id: string | null;
  sent_at: Date | null;
}

/**
 * Queues a message. `alertDeliveryId` names the `alert_deliveries` row the worker marks `sent` (or annotates with the
 * error) once the transport answered.
 */
export async function enqueueEmail(
  jobs: Jobs,
  message: EmailMessage,
  db: Knex | Knex.Transaction,
  alertDeliveryId?: string,
): Promise<void> {
  const queue = async (trx: Knex.Transaction) => {
    const [row] = await trx("outgoing_emails")
      .insert({
        to_address: message.to,
        subject: message.subject,
        text_body: message.text,
        html_body: message.html ?? null,
        headers: JSON.stringify(message.headers ?? {}),
        alert_delivery_id: alertDeliveryId ?? null,
      })
      .returning("id");
    await jobs.send(QUEUES.emailSend, { email_id: row.id }, {}, trx);
  };
  await (db.isTransaction ? queue(db as Knex.Transaction) : db.transaction(queue));
}

/** The message a job names; `null` once pruned. */
export async function loadOutgoingEmail(knex: Knex, id: string): Promise<OutgoingEmail | null> {
  return (await knex("outgoing_emails").where({ id }).first()) ?? null;
}

export async function recordEmailOutcome(
  knex: Knex,
  id: string,
  outcome: { messageId: string } | { error: string },
): Promise<void> {
  const changes =
    "messageId" in outcome
      ? { sent_at: knex.fn.now(), provider_message_id: outcome.messageId, error: null }
      : { error: outcome.error.slice(0, 1000) };
  await knex("outgoing_emails").where({ id }).whereNull("sent_at").update(changes);
}

/** Deletes sent messages older than the retention (a scheduler task). */
export async function pruneSentEmails(db: Knex | Knex.Transaction): Promise<number> {
  return db("outgoing_emails")
    .whereNotNull("sent_at")
    .where("sent_at", "<", db.raw("now() - make_interval(days => ?)", [SENT_EMAIL_RETENTION_DAYS]))
    .delete();
}
