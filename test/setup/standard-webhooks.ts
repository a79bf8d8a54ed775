/**
 * Signed provider requests for the inbound webhooks that follow Standard Webhooks (the email delivery webhook, the
 * support inbound-mail webhook: docs/product-rules.md#inbound-signatures), signed by the `standardwebhooks` package
 * as Svix, Resend and AgentMail sign them.
 */
import { randomUUID } from "node:crypto";
import type { Webhook } from "standardwebhooks";

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/** The body and `provider-*` headers of `event`, signed by `signer` (a new id and the current time unless given). */
export function signedRequest(
  event: unknown,
  signer: Webhook,
  options: { id?: string; at?: Date } = {},
): SignedRequest {
  const body = JSON.stringify(event);
  const id = options.id ?? `msg_${randomUUID()}`;
  const at = options.at ?? new Date();
  return {
    body,
    headers: {
      "provider-id": id,
      "provider-timestamp": String(Math.floor(at.getTime() / 1000)),
      "provider-signature": signer.sign(id, at, body),
    },
  };
}
