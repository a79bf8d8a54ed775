/**
 * Sending a digest to its recipients (docs/product-rules.md#sending): one `digest_deliveries` row per (digest,
 * address), created by `POST /digests/{id}/send` for every member or by the scheduler for each member whose hour has
 * come, then driven by `deliverDigest` to `sent`, `suppressed` or `failed`.
 *
 * Exactly one sender works on a delivery at a time: it holds the row's lock (FOR UPDATE SKIP LOCKED) while the mail
 * is handed to the transport, so an API call and a scheduled job racing for the same member send one mail. A process
 * that dies mid-send leaves the row `pending`, and the next attempt (the job's retry, or the next POST /send) sends
 * it: at-least-once, never silently lost.
 */
import type { Knex } from "knex";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import type { EmailTransport } from "../email/transports.js";
import { isSuppressed, normalizeEmail } from "../suppressions/service.js";
import { digestEmail } from "./email.js";
import type { DigestPayload } from "./payload.js";
import { unsubscribeLinks } from "./unsubscribe.js";

export interface DigestSendDeps {
  config: Readonly<Config>;
  knex: Knex;
  email: EmailTransport;
  log: Logger;
}

/** Statuses a sender may (re)send from: never sent yet, or the transport failed. */
const SENDABLE = ["pending", "failed"] as const;

export type DeliveryOutcome = "sent" | "suppressed" | "failed" | "skipped";

export interface Recipient {
  userId: string | null;
  email: string;
  name: string | null;
}

/**
 * The delivery rows of the scope's digest `digestId` for `recipients` (created `pending` where missing); returns every
 * row's id, existing or new.
 */
export async function ensureDeliveries(
  scope: WorkspaceScope,
  digestId: string,
  recipients: Recipient[],
  provider: string,
): Promise<string[]> {
  if (recipients.length === 0) return [];
  const rows = recipients.map((r) => ({
    digest_id: digestId,
    user_id: r.userId,
    recipient_email: normalizeEmail(r.email),
    recipient_name: r.name,
    provider,
  }));
  await scope.insert("digest_deliveries", rows).onConflict(["digest_id", "recipient_email"]).ignore();
  const existing: { id: string }[] = await scope
    .from("digest_deliveries")
    .where({ digest_id: digestId })
    .whereIn(
      "recipient_email",
      rows.map((r) => r.recipient_email),
    )
    .orderBy("recipient_email")
    .select("id");
  return existing.map((r) => r.id);
}

/**
 * Sends one delivery unless it is already done or another sender holds it. A suppressed address gets `suppressed` and
 * no mail; a transport error gives `failed` with the error kept for operators (the caller decides whether to retry).
 */
export async function deliverDigest(deps: DigestSendDeps, deliveryId: string): Promise<DeliveryOutcome> {
  const links = unsubscribeLinks(deps.config);
  return deps.knex.transaction(async (trx) => {
    // The job names the delivery by id only: it is looked up in whichever workspace holds it, and everything after
    // is that workspace's work, done in its scope.
    const delivery = await acrossWorkspaces(trx)
      .from("digest_deliveries as d")
      .join("digests as g", "g.id", "d.digest_id")
      .where("d.id", deliveryId)
      .whereIn("d.status", SENDABLE)
      .forUpdate("d")
      .skipLocked()
      .first<
        | {
            id: string;
            digest_id: string;
            workspace_id: string;
            recipient_email: string;
            recipient_name: string | null;
            payload_json: DigestPayload | null;
          }
        | undefined
      >("d.id", "d.digest_id", "d.workspace_id", "d.recipient_email", "d.recipient_name", "g.payload_json");
    if (!delivery || !delivery.payload_json) return "skipped";
    const scope = new WorkspaceScope(trx, delivery.workspace_id);

    const markDigestDelivered = () =>
      scope
        .from("digests")
        .where({ id: delivery.digest_id })
        .whereNull("delivered_at")
        .update({ delivered_at: trx.fn.now() });

    if (await isSuppressed(trx, delivery.workspace_id, delivery.recipient_email)) {
      await scope
        .from("digest_deliveries")
        .where({ id: delivery.id })
        .update({ status: "suppressed", error: null, updated_at: trx.fn.now() });
      await markDigestDelivered();
      return "suppressed";
    }

    const unsubscribeUrl = await links.url({ workspaceId: delivery.workspace_id, email: delivery.recipient_email });
    const message = digestEmail(
      delivery.payload_json,
      { email: delivery.recipient_email, name: delivery.recipient_name },
      unsubscribeUrl,
    );
    try {
      const sent = await deps.email.send(message);
      await scope.from("digest_deliveries").where({ id: delivery.id }).update({
        status: "sent",
        provider: deps.config.email.transport,
        provider_message_id: sent.messageId,
        sent_at: trx.fn.now(),
        error: null,
        updated_at: trx.fn.now(),
      });
      await markDigestDelivered();
      return "sent";
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      deps.log.warn({ delivery: delivery.id, to: delivery.recipient_email, err: reason }, "digest email failed");
      await scope
        .from("digest_deliveries")
        .where({ id: delivery.id })
        .update({ status: "failed", error: reason.slice(0, 1000), updated_at: trx.fn.now() });
      return "failed";
    }
  });
}

/** Every member of the scope's workspace, as digest recipients. */
export async function workspaceMembers(scope: WorkspaceScope): Promise<Recipient[]> {
  const rows: { id: string; email: string; name: string | null }[] = await scope
    .from("memberships as m")
    .join("users as u", "u.id", "m.user_id")
    .orderByRaw("lower(u.email)")
    .select("u.id", "u.email", "u.name");
  return rows.map((r) => ({ userId: r.id, email: r.email, name: r.name }));
}
