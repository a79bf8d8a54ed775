/**
 * Set-password links (password reset, invitation) that are stored nowhere in a usable form
 * (docs/product-rules.md#tokens-and-passwords). The token is HMAC(key, reset row id + nonce), the key derived from
 * JWT_SECRET for this purpose only; the row keeps the nonce and the token's SHA-256 (for lookup), never the token.
 * A queued mail carries a placeholder naming the row, and the email-send job renders the link as it hands the mail to
 * the transport (`renderSetPasswordLinks`), so neither `outgoing_emails` nor the job's data holds a token.
 */
import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { escapeHtml } from "../lib/html.js";

type LinkConfig = Pick<Config, "jwtSecret" | "publicBaseUrl">;

const KEY_PURPOSE = "rivalscope:set-password-link";
const PLACEHOLDER = /\{\{set-password-link:([0-9a-f-]{36})\}\}/g;

/** One derived key per configuration, not one per link. */
const KEYS = new WeakMap<object, Buffer>();

function keyOf(config: LinkConfig): Buffer {
  let key = KEYS.get(config);
  if (!key) KEYS.set(config, (key = createHmac("sha256", Buffer.from(config.jwtSecret)).update(KEY_PURPOSE).digest()));
  return key;
}

const tokenOf = (config: LinkConfig, id: string, nonce: string) =>
  createHmac("sha256", keyOf(config)).update(`${id}.${nonce}`).digest("base64url");

/** What a reset row stores to find the row a presented token belongs to. */
export const hashSetPasswordToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** What a queued mail carries in place of the link to reset row `id`. */
export const resetLinkPlaceholder = (id: string) => `{{set-password-link:${id}}}`;

/**
 * A single-use set-password link for the user, valid `ttlSeconds`; issuing one invalidates the user's earlier ones.
 * Returns the placeholder the mail carries in its place.
 */
export async function createSetPasswordLink(
  trx: Knex.Transaction,
  config: LinkConfig,
  userId: string,
  ttlSeconds: number,
): Promise<string> {
  await trx("password_reset_tokens").where({ user_id: userId }).whereNull("used_at").update({ used_at: trx.fn.now() });
  // The id is chosen here, not by Postgres, because the token (and so its hash) depends on it.
  const id = randomUUID();
  const nonce = randomBytes(32).toString("base64url");
  await trx("password_reset_tokens").insert({
    id,
    user_id: userId,
    nonce,
    token_hash: hashSetPasswordToken(tokenOf(config, id, nonce)),
    expires_at: new Date(Date.now() + ttlSeconds * 1000),
  });
  return resetLinkPlaceholder(id);
}

/** The parts of a mail a link is rendered into. */
interface MailWithLinks {
  to: string;
  text: string;
  html?: string;
}

/**
 * Replaces each placeholder with its link, as the mail is sent. A link is rendered only into mail addressed to the
 * link's own account and only while it is usable: text that reaches other mail (a scraped page's title in an alert)
 * could carry a placeholder, and must not turn into someone's reset link. Any other placeholder becomes the tokenless
 * reset page, where a new link can be requested.
 */
export async function renderSetPasswordLinks<M extends MailWithLinks>(
  deps: { config: LinkConfig; knex: Knex },
  message: M,
): Promise<M> {
  const ids = [...`${message.text}\n${message.html ?? ""}`.matchAll(PLACEHOLDER)].map((match) => match[1]!);
  if (ids.length === 0) return message;
  const rows: { id: string; nonce: string }[] = await deps
    .knex("password_reset_tokens as t")
    .join("users as u", "u.id", "t.user_id")
    .whereIn("t.id", [...new Set(ids)])
    .whereNotNull("t.nonce")
    .whereNull("t.used_at")
    .where("t.expires_at", ">", deps.knex.fn.now())
    .whereRaw("lower(u.email) = ?", [message.to.trim().toLowerCase()])
    .select("t.id", "t.nonce");
  // The web app's reset form (web/src/pages/auth.tsx) reads the token from the link and posts it.
  const base = `${deps.config.publicBaseUrl}/app/reset-password`;
  const links = new Map(rows.map((row) => [row.id, `${base}?token=${tokenOf(deps.config, row.id, row.nonce)}`]));
  const linkFor = (id: string) => links.get(id) ?? base;
  return {
    ...message,
    text: message.text.replace(PLACEHOLDER, (_, id: string) => linkFor(id)),
    ...(message.html === undefined
      ? {}
      : { html: message.html.replace(PLACEHOLDER, (_, id: string) => escapeHtml(linkFor(id))) }),
  };
}
