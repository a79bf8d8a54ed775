/**
 * Sending a digest to its recipients (docs/product-rules.md#sending): one `digest_deliveries` row per (digest,
 * address), created by `POST /digests/{id}/send` for every member or by the scheduler for each member whose hour has
 * come, then driven by `DigestSender` to `sent`, `suppressed` or `failed`.
 *
 * No transaction or row lock is held while the mail is handed over
 * (docs/architecture.md#no-transaction-across-the-network): a slow mail server would hold a pooled connection for as
 * long as it takes, and the `log` transport needs a connection of its own, so a handful of concurrent sends would
 * drain the pool and stall the API. Instead a sender claims the row in one committed statement (`claimed_until`,
 * `send_attempts`), hands the mail over, then records the outcome in one short transaction:
 * - an API call and a scheduled job racing for the same member: one claims the row, the other sends nothing;
 * - a sender that dies mid-send leaves the row `pending` (or `failed`) with a claim that lapses after CLAIM_SECONDS,
 *   and the next attempt (the job's retry, or the next POST /send) sends it: nothing is silently lost;
 * - should the transport have taken the mail just before its sender died, that next attempt carries the same
 *   idempotency key (the delivery's id), so the provider recognises the repeat.
 */
import { metrics } from "../metrics/metrics.js";
import type { Knex } from "knex";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import { EMAIL_SEND_DEADLINE_MS, type EmailTransport, type SentEmail } from "../email/transports.js";
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

/**
 * How long a claim holds the row: twice the transport's deadline, so a live sender always finishes (or fails) within
 * it, and well under the `digest-deliver` job's expiry (src/jobs/queues.ts), so a dead sender's claim has lapsed by
 * the time pg-boss retries its job.
 */
const CLAIM_SECONDS = (2 * EMAIL_SEND_DEADLINE_MS) / 1000;

/** `busy`: another sender holds the row's claim (it may yet fail, so a job looks again later). */
export type DeliveryOutcome = "sent" | "suppressed" | "failed" | "skipped" | "busy";

export interface Recipient {
  userId: string | null;
  email: string;
  name: string | null;
}

/** A claimed delivery; `send_attempts` is this sender's claim, which its outcome must still match to be recorded. */
interface ClaimedDelivery {
  id: string;
  digest_id: string;
  workspace_id: string;
  recipient_email: string;
  recipient_name: string | null;
  send_attempts: number;
}

/** Who a digest goes to, in a workspace's scope (a request's, or the scheduler's for one workspace). */
export class DigestRecipients {
  constructor(private readonly scope: WorkspaceScope) {}

  /** Every member of the workspace, as digest recipients. */
  async members(): Promise<Recipient[]> {
    const rows: { id: string; email: string; name: string | null }[] = await this.scope
      .from("memberships as m")
      .join("users as u", "u.id", "m.user_id")
      .orderByRaw("lower(u.email)")
      .select("u.id", "u.email", "u.name");
    return rows.map((r) => ({ userId: r.id, email: r.email, name: r.name }));
  }

  /**
   * The delivery rows of the workspace's digest `digestId` for `recipients` (created `pending` where missing); returns
   * every row's id, existing or new.
   */
  async ensureDeliveries(digestId: string, recipients: Recipient[], provider: string): Promise<string[]> {
    if (recipients.length === 0) return [];
    const rows = recipients.map((r) => ({
      digest_id: digestId,
      user_id: r.userId,
      recipient_email: normalizeEmail(r.email),
      recipient_name: r.name,
      provider,
    }));
    await this.scope.insert("digest_deliveries", rows).onConflict(["digest_id", "recipient_email"]).ignore();
    const existing: { id: string }[] = await this.scope
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
}

/** Sending one member's digest mail, built from the sender's deps (a request's services, or the worker's). */
export class DigestSender {
  constructor(private readonly deps: DigestSendDeps) {}

  /**
   * Sends one delivery unless it is already done or another sender holds it. A suppressed address gets `suppressed`
   * and no mail; a transport error gives `failed` with the error kept for operators (the caller decides whether to
   * retry).
   */
  async send(deliveryId: string): Promise<DeliveryOutcome> {
    const delivery = await this.claim(deliveryId);
    if (!delivery) return (await this.isSendable(deliveryId)) ? "busy" : "skipped";
    // The job names the delivery by id only; everything after the claim is its workspace's work, in its scope.
    const scope = new WorkspaceScope(this.deps.knex, delivery.workspace_id);
    const digest: { payload_json: DigestPayload | null } | undefined = await scope
      .from("digests")
      .where({ id: delivery.digest_id })
      .first("payload_json");
    if (!digest?.payload_json) {
      await this.record(scope, delivery, {});
      return "skipped";
    }
    if (await isSuppressed(this.deps.knex, delivery.workspace_id, delivery.recipient_email)) {
      await this.record(scope, delivery, { status: "suppressed", error: null });
      metrics.emails.inc({ kind: "digest", outcome: "suppressed" });
      return "suppressed";
    }

    let sent: SentEmail;
    try {
      sent = await this.deps.email.send(await this.message(delivery, digest.payload_json));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.deps.log.warn({ delivery: delivery.id, to: delivery.recipient_email, err: reason }, "digest email failed");
      await this.record(scope, delivery, { status: "failed", error: reason.slice(0, 1000) });
      metrics.emails.inc({ kind: "digest", outcome: "failed" });
      return "failed";
    }
    await this.record(scope, delivery, {
      status: "sent",
      provider: this.deps.config.email.transport,
      provider_message_id: sent.messageId,
      sent_at: this.deps.knex.fn.now(),
      error: null,
    });
    metrics.emails.inc({ kind: "digest", outcome: "sent" });
    return "sent";
  }

  /**
   * The `digest-deliver` job: a failed send, or one another sender holds (and may yet fail), fails the job, so pg-boss
   * looks again with backoff; the delivery stays `failed` if every retry fails.
   */
  async sendScheduled(deliveryId: string): Promise<void> {
    const outcome = await this.send(deliveryId);
    if (outcome === "failed") throw new Error(`digest delivery ${deliveryId} failed; will retry`);
    if (outcome === "busy") throw new Error(`digest delivery ${deliveryId} is held by another sender; will look again`);
  }

  /**
   * One committed statement: the row is this sender's until CLAIM_SECONDS from now, unless it is done or another
   * sender's claim is still running. The job names the row by id, in whichever workspace holds it.
   */
  private async claim(deliveryId: string): Promise<ClaimedDelivery | null> {
    const { knex } = this.deps;
    const [row] = await acrossWorkspaces(knex)
      .from("digest_deliveries")
      .where({ id: deliveryId })
      .whereIn("status", SENDABLE)
      .where((q) => q.whereNull("claimed_until").orWhere("claimed_until", "<", knex.fn.now()))
      .update({
        claimed_until: knex.raw("now() + make_interval(secs => ?)", [CLAIM_SECONDS]),
        send_attempts: knex.raw("send_attempts + 1"),
      })
      .returning(["id", "digest_id", "workspace_id", "recipient_email", "recipient_name", "send_attempts"]);
    return (row as ClaimedDelivery | undefined) ?? null;
  }

  /** Whether the row is still to be sent (so an unclaimable one is held by another sender rather than done). */
  private async isSendable(deliveryId: string): Promise<boolean> {
    const row = await acrossWorkspaces(this.deps.knex)
      .from("digest_deliveries")
      .where({ id: deliveryId })
      .whereIn("status", SENDABLE)
      .first("id");
    return row !== undefined;
  }

  private async message(delivery: ClaimedDelivery, payload: DigestPayload) {
    const unsubscribeUrl = await unsubscribeLinks(this.deps.config).url({
      workspaceId: delivery.workspace_id,
      email: delivery.recipient_email,
    });
    const recipient = { email: delivery.recipient_email, name: delivery.recipient_name };
    return { ...digestEmail(payload, recipient, unsubscribeUrl), idempotencyKey: `digest-delivery-${delivery.id}` };
  }

  /**
   * The outcome, and the claim released, in one short transaction; a sent or suppressed delivery also marks the digest
   * delivered. Dropped when the claim is no longer this sender's (it lapsed and another sender took the row over): that
   * sender records its own outcome.
   */
  private async record(scope: WorkspaceScope, delivery: ClaimedDelivery, changes: Record<string, unknown>) {
    await scope.transaction(async (trxScope) => {
      const now = trxScope.db.fn.now();
      const updated = await trxScope
        .from("digest_deliveries")
        .where({ id: delivery.id, send_attempts: delivery.send_attempts })
        .update({ ...changes, claimed_until: null, ...(changes.status ? { updated_at: now } : {}) });
      if (updated === 0 || (changes.status !== "sent" && changes.status !== "suppressed")) return;
      await trxScope
        .from("digests")
        .where({ id: delivery.digest_id })
        .whereNull("delivered_at")
        .update({ delivered_at: now });
    });
  }
}
