/**
 * Credentials stored for a tenant (webhook signing secrets, CRM access tokens, Slack webhook URLs) are sealed with
 * AES-256-GCM under the key from configuration (`SECRETS_KEY`, docs/operations.md#environment-variables), so a copy of
 * the database (a backup, a replica, a leaked dump) does not hand them out. GCM also authenticates: a sealed value
 * altered or moved from a build with another key fails to open instead of yielding garbage.
 *
 * Stored form: `sealed:v1:<base64url(iv ‖ ciphertext ‖ tag)>`, a fresh 12-byte IV per value. The version names the
 * scheme so that a future key rotation can tell old values from new.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const PREFIX = "sealed:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("SecretBox needs a 32-byte key");
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
  }

  /**
   * The plaintext of a stored value. A value without the prefix is returned as it is: rows written before sealing
   * existed are sealed at start-up (sealPlaintextSecrets), and until then they still work.
   */
  open(stored: string): string {
    if (!isSealed(stored)) return stored;
    const raw = Buffer.from(stored.slice(PREFIX.length), "base64url");
    const iv = raw.subarray(0, IV_BYTES);
    const tag = raw.subarray(raw.length - TAG_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
  }

  /** `open` for a nullable column. */
  openNullable(stored: string | null): string | null {
    return stored === null ? null : this.open(stored);
  }
}

const boxes = new WeakMap<Buffer, SecretBox>();

/** The box of the configured key (`config.secretsKey`), made once per key. */
export function secretBoxOf(config: { secretsKey: Buffer }): SecretBox {
  let box = boxes.get(config.secretsKey);
  if (!box) boxes.set(config.secretsKey, (box = new SecretBox(config.secretsKey)));
  return box;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}
