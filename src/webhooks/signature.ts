/**
 * Outbound webhook signatures: Stripe's scheme exactly (docs/product-rules.md#outbound-signature), so receivers verify
 * with off-the-shelf libraries: `x-ci-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`,
 * where the key is the whole `whsec_…` string, as Stripe uses it (docs/stack-notes.md#signature-schemes).
 */
import { createHmac, randomBytes } from "node:crypto";

export const SIGNATURE_HEADER = "x-ci-signature";
export const EVENT_ID_HEADER = "x-ci-event-id";

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The scheme's `v1`: hex HMAC-SHA256 of `"<t>.<body>"` (also what the payments webhook is verified against). */
export function stripeSchemeDigest(secret: string, body: string, timestampSeconds: number): string {
  return createHmac("sha256", secret)
    .update(`${Math.floor(timestampSeconds)}.${body}`, "utf8")
    .digest("hex");
}

/** The `x-ci-signature` value for `body` (the exact bytes sent) at `timestampSeconds`. */
export function signatureHeader(secret: string, body: string, timestampSeconds: number): string {
  const t = Math.floor(timestampSeconds);
  return `t=${t},v1=${stripeSchemeDigest(secret, body, t)}`;
}
