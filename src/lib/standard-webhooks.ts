/**
 * Verification of inbound signed webhooks in the Standard Webhooks scheme, as Svix, Resend and AgentMail send them
 * (docs/product-rules.md#inbound-signatures). The headers come under one of three names per value: `provider-*` (the
 * contract's), `svix-*` (what Svix delivers for AgentMail and Resend unless an account white-labels them) or `webhook-*`
 * (Standard Webhooks' own); a verification that real deliveries fail would push operators to turn it off.
 * `*-signature` is a space-separated list of `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>` where the key is the base64
 * after `whsec_`. Timestamps more than 300 s away are rejected, and each `provider-id` is accepted once (the replay
 * store is ours: the scheme itself keeps no state, docs/stack-notes.md#signature-schemes).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";
import { ApiError } from "../http/errors.js";

export const TOLERANCE_SECONDS = 300;

export const HEADER_ID = "provider-id";
export const HEADER_TIMESTAMP = "provider-timestamp";
export const HEADER_SIGNATURE = "provider-signature";

/** The header prefixes read, in order: the contract's, Svix's, Standard Webhooks' unbranded one. */
const HEADER_PREFIXES = ["provider-", "svix-", "webhook-"] as const;

/** Every verification failure is a 401 with a reason the sender's operators can act on (never the expected value). */
export class WebhookVerificationError extends ApiError {
  constructor(detail: string) {
    super(401, detail);
  }
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | null {
  const value = headers[name];
  const single = Array.isArray(value) ? value[0] : value;
  return single === undefined || single.trim() === "" ? null : single.trim();
}

/** The id, timestamp and signature headers of the first prefix that sends an id (all three from one family). */
function signatureHeaders(headers: Headers): {
  id: string | null;
  timestamp: string | null;
  signatures: string | null;
} {
  const prefix = HEADER_PREFIXES.find((p) => header(headers, `${p}id`) !== null) ?? HEADER_PREFIXES[0];
  return {
    id: header(headers, `${prefix}id`),
    timestamp: header(headers, `${prefix}timestamp`),
    signatures: header(headers, `${prefix}signature`),
  };
}

/** The HMAC key of a `whsec_…` secret (base64 after the prefix; a secret without the prefix is base64 as a whole). */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}

/** The `v1,<base64>` signature of a payload, as a sender computes it (used by tests of our own callers too). */
export function signStandardWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const digest = createHmac("sha256", keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${digest}`;
}

/**
 * Checks the three headers against `rawBody` and returns the message id. `secrets` are the endpoint's valid secrets
 * (one, or several while a provider rotates or several registrations exist); any of them may have signed. Throws
 * WebhookVerificationError (401) when no secret is configured, a header is missing, the timestamp is malformed or
 * outside the tolerance, or no listed `v1` signature matches. Does not record the id: call `claimWebhookMessage` once
 * the request is verified.
 */
export function verifyStandardWebhook(
  secrets: string | readonly string[] | null,
  headers: Headers,
  rawBody: Buffer | undefined,
  now: Date = new Date(),
): string {
  const keys = (typeof secrets === "string" ? [secrets] : (secrets ?? [])).filter((secret) => secret !== "");
  if (keys.length === 0) {
    throw new WebhookVerificationError("Webhook signing secret is not configured; request rejected");
  }
  const { id, timestamp, signatures } = signatureHeaders(headers);
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      `Missing webhook signature headers (${HEADER_ID}, ${HEADER_TIMESTAMP}, ${HEADER_SIGNATURE} are required; svix-* and webhook-* are read too)`,
    );
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("Invalid webhook timestamp");
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) {
    throw new WebhookVerificationError(`Webhook timestamp is more than ${TOLERANCE_SECONDS} seconds away`);
  }
  const body = (rawBody ?? Buffer.alloc(0)).toString("utf8");
  const expected = keys.map((key) =>
    Buffer.from(signStandardWebhook(key, id, Number(timestamp), body).slice(3), "base64"),
  );
  const matches = signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || !value) return false;
    const given = Buffer.from(value, "base64");
    return expected.some((want) => given.length === want.length && timingSafeEqual(given, want));
  });
  if (!matches) throw new WebhookVerificationError("Invalid webhook signature");
  return id;
}

/**
 * Records a verified message id for `endpoint`; throws 401 when it was seen before (a replay). Pass the transaction
 * that applies the message, so a message whose processing fails is not marked seen and the sender's retry is taken.
 */
export async function claimWebhookMessage(knex: Knex | Knex.Transaction, endpoint: string, id: string): Promise<void> {
  const inserted = await knex("inbound_webhook_receipts")
    .insert({ endpoint, message_id: id })
    .onConflict(["endpoint", "message_id"])
    .ignore()
    .returning("message_id");
  if (inserted.length === 0) throw new WebhookVerificationError("Webhook message was already received (replay)");
}

/**
 * Receipts older than this can go: a replay of them carries a timestamp outside the tolerance and is rejected anyway.
 * A day leaves a wide margin for clock skew.
 */
export async function pruneWebhookReceipts(knex: Knex | Knex.Transaction): Promise<number> {
  return knex("inbound_webhook_receipts").where("received_at", "<", knex.raw("now() - interval '1 day'")).delete();
}
