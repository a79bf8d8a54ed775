/**
 * One-click unsubscribe (RFC 8058, docs/product-rules.md#one-click-unsubscribe): every digest mail links to
 * `PUBLIC_BASE_URL/unsubscribe?token=…`. The token is an HS256 JWT naming one address of one workspace, valid 90 days.
 * Its key is derived from JWT_SECRET for this purpose only and its audience differs from access tokens', so neither
 * kind of token passes for the other.
 */
import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import { SignJWT, jwtVerify } from "jose";
import type { Config } from "../config.js";
import { ApiError } from "../http/errors.js";
import { escapeHtml } from "../lib/html.js";

const AUDIENCE = "rivalscope:unsubscribe";
export const UNSUBSCRIBE_TOKEN_DAYS = 90;

export interface UnsubscribeClaims {
  workspaceId: string;
  email: string;
}

/** The same answer for a malformed, mis-signed or expired token: nothing about which it was. */
export const invalidUnsubscribeLink = () => new ApiError(404, "Unsubscribe link is invalid or has expired");

/** One per configuration: the derived key is made once, not per mail or request. */
const LINKS = new WeakMap<object, UnsubscribeLinks>();

export function unsubscribeLinks(config: Pick<Config, "jwtSecret" | "jwtIssuer" | "publicBaseUrl">): UnsubscribeLinks {
  let links = LINKS.get(config);
  if (!links) LINKS.set(config, (links = new UnsubscribeLinks(config)));
  return links;
}

export class UnsubscribeLinks {
  private readonly key: KeyObject;

  constructor(private readonly config: Pick<Config, "jwtSecret" | "jwtIssuer" | "publicBaseUrl">) {
    this.key = createSecretKey(createHmac("sha256", Buffer.from(config.jwtSecret)).update(AUDIENCE).digest());
  }

  async url(claims: UnsubscribeClaims, now = new Date()): Promise<string> {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const token = await new SignJWT({ wid: claims.workspaceId, email: claims.email })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(this.config.jwtIssuer)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + UNSUBSCRIBE_TOKEN_DAYS * 86_400)
      .sign(this.key);
    return `${this.config.publicBaseUrl.replace(/\/+$/, "")}/unsubscribe?token=${token}`;
  }

  /** The token's claims; 404 (`invalidUnsubscribeLink`) for anything else. */
  async verify(token: string): Promise<UnsubscribeClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        issuer: this.config.jwtIssuer,
        audience: AUDIENCE,
        requiredClaims: ["exp"],
      });
      if (typeof payload.wid !== "string" || typeof payload.email !== "string") throw invalidUnsubscribeLink();
      return { workspaceId: payload.wid, email: payload.email };
    } catch {
      throw invalidUnsubscribeLink();
    }
  }
}

/** The GET page: names the address and asks for the click that POSTs (link scanners only ever GET). */
export function unsubscribePage(email: string, workspaceName: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Unsubscribe from Rivalscope digests</title></head>
<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1f2328;max-width:480px;margin:48px auto;padding:0 16px;line-height:1.5">
<h1 style="font-size:22px">Unsubscribe from digests</h1>
<p>Stop sending ${escapeHtml(workspaceName)} digest emails to <strong>${escapeHtml(email)}</strong>?</p>
<form method="post">
<button type="submit" style="background:#cf222e;color:#fff;border:0;border-radius:6px;padding:10px 16px;font-size:15px;cursor:pointer">Unsubscribe</button>
</form>
<p style="font-size:13px;color:#57606a">A workspace owner can undo this by removing the address from the suppression list.</p>
</body></html>
`;
}
