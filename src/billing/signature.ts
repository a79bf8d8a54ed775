/**
 * `Payments-Signature` on `POST /billing/webhook`: Stripe's scheme, as our outbound webhooks sign
 * (docs/product-rules.md#outbound-signature), verified with `PAYMENTS_WEBHOOK_SECRET`
 * (docs/product-rules.md#billing): `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, the whole
 * `whsec_…` string as the key. Several `v1` entries may be listed (the provider signs with each active secret while
 * one is being rolled); one matching is enough. Other schemes (`v0`) are ignored. Timestamps more than 300 s away
 * are refused, so a captured request cannot be replayed later; a replay inside that window is caught by the event id
 * (src/billing/webhook.ts).
 */
import { timingSafeEqual } from "node:crypto";
import { ApiError } from "../http/errors.js";
import { stripeSchemeDigest } from "../webhooks/signature.js";

export const PAYMENTS_SIGNATURE_HEADER = "payments-signature";
export const TOLERANCE_SECONDS = 300;

/** Every verification failure is a 401 naming the reason, never the expected value (spec: receivePaymentsWebhook). */
export class PaymentsSignatureError extends ApiError {
  constructor(detail: string) {
    super(401, detail);
  }
}

/** Throws PaymentsSignatureError unless `header` signs `rawBody` with `secret` within the tolerance of `now`. */
export function verifyPaymentsSignature(
  secret: string,
  header: string | string[] | undefined,
  rawBody: Buffer | undefined,
  now: Date = new Date(),
): void {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) throw new PaymentsSignatureError("Missing Payments-Signature header");
  let timestamp: string | null = null;
  const signatures: string[] = [];
  for (const part of value.split(",")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const item = part.slice(at + 1).trim();
    if (key === "t") timestamp = item;
    else if (key === "v1") signatures.push(item);
  }
  if (timestamp === null || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0) {
    throw new PaymentsSignatureError("Malformed Payments-Signature header: expected t=<unix seconds>,v1=<hex>");
  }
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) {
    throw new PaymentsSignatureError(`Payments-Signature timestamp is more than ${TOLERANCE_SECONDS} seconds away`);
  }
  const body = (rawBody ?? Buffer.alloc(0)).toString("utf8");
  const expected = Buffer.from(stripeSchemeDigest(secret, body, Number(timestamp)), "hex");
  const matches = signatures.some((signature) => {
    if (!/^[0-9a-f]+$/i.test(signature)) return false;
    const given = Buffer.from(signature, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new PaymentsSignatureError("Invalid Payments-Signature");
}
