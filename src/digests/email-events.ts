/**
 * The email provider's delivery events (`POST /digests/webhooks/email`, docs/product-rules.md#email-delivery-webhook):
 * verified with Standard Webhooks and EMAIL_WEBHOOK_SECRET, then applied to the delivery whose `provider_message_id` is
 * the event's `data.email_id`. A hard bounce (`data.bounce.type` `Permanent`) or a complaint also suppresses the
 * address.
 */
import type { Knex } from "knex";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import { invalid } from "../http/errors.js";
import { claimWebhookMessage, verifyStandardWebhook } from "../lib/standard-webhooks.js";
import { suppress } from "../suppressions/service.js";

type Status = "pending" | "sent" | "delivered" | "opened" | "bounced" | "complained" | "failed" | "suppressed";

/**
 * How far along a delivery is. A status only moves to a higher rank, so late or out-of-order events never move it
 * back (`opened` stays `opened` on a late `email.delivered`); the bad ends rank above the good ones because they are
 * news the owner must see (a complaint after an open is what counts).
 */
const RANK: Readonly<Record<Status, number>> = {
  pending: 0,
  sent: 1,
  delivered: 2,
  opened: 3,
  failed: 4,
  bounced: 5,
  complained: 6,
  suppressed: 7,
};

/** The status each handled event type moves to; `email.delivery_delayed` only records itself as `last_event`. */
const STATUS_OF_EVENT: Readonly<Record<string, Status | null>> = {
  "email.sent": "sent",
  "email.delivered": "delivered",
  "email.opened": "opened",
  "email.bounced": "bounced",
  "email.complained": "complained",
  "email.failed": "failed",
  "email.delivery_delayed": null,
};

interface EmailEvent {
  type: string;
  createdAt: Date;
  emailId: string | null;
  bounce: { type: string | null; message: string | null } | null;
}

/** Reads the fields used; a body that is not an event at all is a 422 (after the signature was verified). */
function parseEvent(body: unknown, now: Date): EmailEvent {
  const event = body as { type?: unknown; created_at?: unknown; data?: unknown };
  if (typeof event?.type !== "string") throw invalid(["body", "type"], "Field required: the event type");
  if (event.data === null || typeof event.data !== "object" || Array.isArray(event.data)) {
    throw invalid(["body", "data"], "Field required: the event's data object");
  }
  const data = event.data as { email_id?: unknown; bounce?: unknown };
  const createdAt = typeof event.created_at === "string" ? new Date(event.created_at) : now;
  const bounce = data.bounce as { type?: unknown; message?: unknown } | undefined;
  return {
    type: event.type,
    createdAt: Number.isNaN(createdAt.getTime()) ? now : createdAt,
    emailId: typeof data.email_id === "string" ? data.email_id : null,
    bounce:
      bounce && typeof bounce === "object"
        ? {
            type: typeof bounce.type === "string" ? bounce.type : null,
            message: typeof bounce.message === "string" ? bounce.message : null,
          }
        : null,
  };
}

// A type alias, not an interface: the contract documents this body as a JSON object, which an interface (closed to
// index signatures) would not satisfy.
export type EmailWebhookResult = {
  received: true;
  delivery_id: string | null;
};

/** Verifies, records the message id (replays are 401) and applies the event, all or nothing. */
export async function receiveEmailEvent(
  knex: Knex,
  secret: string | null,
  request: { headers: Record<string, string | string[] | undefined>; rawBody: Buffer | undefined; body: unknown },
  now = new Date(),
): Promise<EmailWebhookResult> {
  const messageId = verifyStandardWebhook(secret, request.headers, request.rawBody, now);
  const event = parseEvent(request.body, now);
  return knex.transaction(async (trx) => {
    await claimWebhookMessage(trx, "email", messageId);
    if (!event.emailId || !(event.type in STATUS_OF_EVENT)) return { received: true, delivery_id: null };
    // The provider names its message, not a workspace: the delivery is looked up across workspaces, then changed in
    // its own workspace's scope.
    const delivery = await acrossWorkspaces(trx)
      .from("digest_deliveries")
      .where({ provider_message_id: event.emailId })
      .forUpdate()
      .first("id", "workspace_id", "recipient_email", "status", "last_event_at");
    // Unknown message ids are accepted and ignored (docs/product-rules.md#email-delivery-webhook): mail sent before
    // this database, or by another service.
    if (!delivery) return { received: true, delivery_id: null };
    const scope = new WorkspaceScope(trx, delivery.workspace_id);
    await scope
      .from("digest_deliveries")
      .where({ id: delivery.id })
      .update(changesFor(delivery, event, trx));
    if (event.type === "email.complained") {
      await suppress(
        trx,
        delivery.workspace_id,
        delivery.recipient_email,
        "complaint",
        "Marked as spam by the recipient",
      );
    }
    if (event.type === "email.bounced" && event.bounce?.type === "Permanent") {
      await suppress(trx, delivery.workspace_id, delivery.recipient_email, "bounce", event.bounce.message);
    }
    return { received: true, delivery_id: delivery.id };
  });
}

function changesFor(
  delivery: { status: Status; last_event_at: Date | null },
  event: EmailEvent,
  trx: Knex.Transaction,
): Record<string, unknown> {
  const changes: Record<string, unknown> = { updated_at: trx.fn.now() };
  // Events can arrive out of order: `last_event` is the newest one by the provider's clock.
  if (!delivery.last_event_at || event.createdAt >= delivery.last_event_at) {
    changes.last_event = event.type;
    changes.last_event_at = event.createdAt;
  }
  const next = STATUS_OF_EVENT[event.type];
  if (next && RANK[next] > RANK[delivery.status]) changes.status = next;
  const at = event.createdAt;
  switch (event.type) {
    case "email.sent":
      changes.sent_at = trx.raw("coalesce(sent_at, ?)", [at]);
      break;
    case "email.delivered":
      changes.delivered_at = trx.raw("coalesce(delivered_at, ?)", [at]);
      break;
    case "email.opened":
      changes.opened_at = trx.raw("coalesce(opened_at, ?)", [at]);
      changes.opens_count = trx.raw("opens_count + 1");
      break;
    case "email.bounced":
      changes.bounced_at = trx.raw("coalesce(bounced_at, ?)", [at]);
      changes.bounce_reason = event.bounce?.message ?? null;
      break;
  }
  return changes;
}
