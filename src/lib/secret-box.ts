/**
 * Credentials stored for a tenant (webhook signing secrets, CRM tokens, Slack webhook URLs, the support inbox's webhook
 * secret) are sealed with AES-256-GCM under the key from configuration (`SECRETS_KEY`,
 * docs/operations.md#environment-variables), so a copy of the database (a backup, a replica, a leaked dump) does not
 * hand them out. GCM also authenticates: a sealed value altered, or sealed under another key, fails to open instead of
 * yielding garbage.
 *
 * Each value is bound to the row and column it is stored in: the place (`<table>.<column>:<row id>`) is GCM's
 * additional authenticated data, so a sealed value copied into another row (another workspace's Slack webhook, say)
 * fails to open there instead of handing that row someone else's credential.
 *
 * Stored forms: `sealed:v2:<base64url(iv ‖ ciphertext ‖ tag)>`, a fresh 12-byte IV per value, bound to its place.
 * `sealed:v1:` (the same, without the binding) and plaintext are older forms: they still open, and every process
 * re-seals them as v2 at start (src/db/sealed-secrets.ts).
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const PREFIX = "sealed:v2:";
const LEGACY_PREFIX = "sealed:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Where a sealed value is stored: the row it belongs to, by its table, column and id (its primary key). */
export interface SealedPlace {
  table: string;
  column: string;
  id: string;
}

function additionalData(place: SealedPlace): Buffer {
  return Buffer.from(`rivalscope:${place.table}.${place.column}:${place.id}`, "utf8");
}

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("SecretBox needs a 32-byte key");
  }

  /** The sealed form of `plaintext`, which opens only as the value of `place`. */
  seal(plaintext: string, place: SealedPlace): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(additionalData(place));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
  }

  /**
   * The plaintext of the value stored at `place`; throws when it was sealed for another place or under another key,
   * or altered. An older form (v1, or plaintext from before sealing) is returned as it reads: start-up re-seals those
   * (sealPlaintextSecrets), and until then they still work.
   */
  open(stored: string, place: SealedPlace): string {
    if (stored.startsWith(PREFIX)) return this.decrypt(stored.slice(PREFIX.length), place);
    if (stored.startsWith(LEGACY_PREFIX)) return this.decrypt(stored.slice(LEGACY_PREFIX.length), null);
    return stored;
  }

  /** `open` for a nullable column. */
  openNullable(stored: string | null, place: SealedPlace): string | null {
    return stored === null ? null : this.open(stored, place);
  }

  private decrypt(encoded: string, place: SealedPlace | null): string {
    const raw = Buffer.from(encoded, "base64url");
    const iv = raw.subarray(0, IV_BYTES);
    const tag = raw.subarray(raw.length - TAG_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", this.key, iv);
    if (place !== null) decipher.setAAD(additionalData(place));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
  }
}

const boxes = new WeakMap<Buffer, SecretBox>();

/** The box of the configured key (`config.secretsKey`), made once per key. */
export function secretBoxOf(config: { secretsKey: Buffer }): SecretBox {
  let box = boxes.get(config.secretsKey);
  if (!box) boxes.set(config.secretsKey, (box = new SecretBox(config.secretsKey)));
  return box;
}

/** Whether a stored value is sealed in the current form (bound to its place). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** Whether a stored value is in an older form (v1 or plaintext) that start-up re-seals. */
export function needsResealing(stored: string): boolean {
  return !isSealed(stored);
}

/** The places of the stored credentials (src/db/sealed-secrets.ts lists their columns). */
export const sealedPlace = {
  webhookSigningSecret: (subscriptionId: string): SealedPlace => ({
    table: "webhook_subscriptions",
    column: "signing_secret",
    id: subscriptionId,
  }),
  crmToken: (connectionId: string): SealedPlace => ({ table: "crm_connections", column: "token", id: connectionId }),
  slackWebhookUrl: (workspaceId: string): SealedPlace => ({
    table: "workspaces",
    column: "slack_webhook_url",
    id: workspaceId,
  }),
  supportWebhookSecret: (inboxClientId: string): SealedPlace => ({
    table: "support_inboxes",
    column: "webhook_secret",
    id: inboxClientId,
  }),
};
