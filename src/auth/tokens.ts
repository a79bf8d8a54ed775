/**
 * Access tokens: HS256 JWTs via jose with `sub` (user id), `wid` (workspace id), `iss`, `aud`, `iat`, `exp`
 * (docs/product-rules.md#tokens-and-passwords). The algorithm is pinned and `exp` required on verify.
 */
import { createSecretKey, type KeyObject } from "node:crypto";
import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import type { Config } from "../config.js";

export interface TokenClaims {
  userId: string;
  workspaceId: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

export class TokenService {
  // A KeyObject built once: jose would otherwise import the raw secret on every call
  // (docs/stack-notes.md#tokens-and-passwords: 11k/s vs 6.5k/s).
  private readonly key: KeyObject;
  // Verified tokens, so a client reusing its token pays for HMAC verification once, not per request.
  private readonly verified = new Map<string, TokenClaims>();
  private static readonly CACHE_LIMIT = 10_000;

  constructor(private readonly config: Pick<Config, "jwtSecret" | "jwtTtlSeconds" | "jwtIssuer" | "jwtAudience">) {
    this.key = createSecretKey(Buffer.from(config.jwtSecret));
  }

  async issue(userId: string, workspaceId: string): Promise<string> {
    return new SignJWT({ wid: workspaceId })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(userId)
      .setIssuer(this.config.jwtIssuer)
      .setAudience(this.config.jwtAudience)
      .setIssuedAt()
      .setExpirationTime(`${this.config.jwtTtlSeconds}s`)
      .sign(this.key);
  }

  /** The token's claims, or `null` when it is invalid, expired, or not ours. */
  async verify(token: string): Promise<TokenClaims | null> {
    const nowSeconds = Date.now() / 1000;
    const cached = this.verified.get(token);
    if (cached) {
      if (cached.exp > nowSeconds) return cached;
      this.verified.delete(token);
      return null;
    }
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        issuer: this.config.jwtIssuer,
        audience: this.config.jwtAudience,
        requiredClaims: ["exp", "sub", "wid"],
      });
      if (typeof payload.sub !== "string" || typeof payload.wid !== "string" || typeof payload.exp !== "number") {
        return null;
      }
      const claims = { userId: payload.sub, workspaceId: payload.wid, exp: payload.exp };
      if (this.verified.size >= TokenService.CACHE_LIMIT) this.verified.clear();
      this.verified.set(token, claims);
      return claims;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return null;
      throw error;
    }
  }
}
