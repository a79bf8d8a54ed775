/**
 * Access tokens: HS256 JWTs via jose with `sub` (user id), `wid` (workspace id), `gen` (the user's token generation),
 * `iss`, `aud`, `iat`, `exp` (docs/product-rules.md#tokens-and-passwords). The algorithm is pinned and `exp` required
 * on verify.
 */
import { createSecretKey, type KeyObject } from "node:crypto";
import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import type { Config } from "../config.js";

export interface TokenClaims {
  userId: string;
  workspaceId: string;
  /**
   * The user's `token_generation` when the token was issued; a password reset increments it, which revokes the token.
   * A generation rather than a time compared with `iat`: `iat` has one-second resolution, so a token issued in the
   * second of a reset could not be told from one issued just after it, and hosts' clocks need not agree.
   */
  generation: number;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

/**
 * How long this process remembers a revocation it made. Callers are cached for AUTH_CACHE_MS (src/auth/context.ts);
 * a cache entry made from a database read that raced the reset must still meet the revocation, so this is far longer.
 */
const REVOCATION_MEMORY_MS = 10 * 60_000;

export class TokenService {
  // A KeyObject built once: jose would otherwise import the raw secret on every call
  // (docs/stack-notes.md#tokens-and-passwords: 11k/s vs 6.5k/s).
  private readonly key: KeyObject;
  // Verified tokens, so a client reusing its token pays for HMAC verification once, not per request.
  private readonly verified = new Map<string, TokenClaims>();
  private static readonly CACHE_LIMIT = 10_000;
  /** Users whose tokens this process revoked lately: the generation now required, and when it was recorded. */
  private readonly revoked = new Map<string, { generation: number; at: number }>();

  constructor(private readonly config: Pick<Config, "jwtSecret" | "jwtTtlSeconds" | "jwtIssuer" | "jwtAudience">) {
    this.key = createSecretKey(Buffer.from(config.jwtSecret));
  }

  /** `generation` is the user's current `token_generation` (0 for a new user). */
  async issue(userId: string, workspaceId: string, generation = 0): Promise<string> {
    return new SignJWT({ wid: workspaceId, gen: generation })
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
      // Tokens issued before generations existed carry none: generation 0, which the first reset revokes.
      const generation = payload.gen === undefined ? 0 : payload.gen;
      if (!Number.isSafeInteger(generation)) return null;
      const claims = {
        userId: payload.sub,
        workspaceId: payload.wid,
        generation: generation as number,
        exp: payload.exp,
      };
      if (this.verified.size >= TokenService.CACHE_LIMIT) this.verified.clear();
      this.verified.set(token, claims);
      return claims;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return null;
      throw error;
    }
  }

  /**
   * Records that the user's tokens below `generation` are revoked (called once the reset has committed), so callers
   * this process has cached stop being served at once, before the access-change notice of the same reset arrives
   * (src/auth/access-changes.ts), which is what drops them in the other processes.
   */
  revokeBelow(userId: string, generation: number): void {
    const now = Date.now();
    for (const [user, entry] of this.revoked) {
      if (now - entry.at > REVOCATION_MEMORY_MS) this.revoked.delete(user);
    }
    this.revoked.set(userId, { generation, at: now });
  }

  /** Whether this process revoked the claims' generation (a cheap in-memory check, made on every request). */
  isRevoked(claims: Pick<TokenClaims, "userId" | "generation">): boolean {
    const entry = this.revoked.get(claims.userId);
    return entry !== undefined && claims.generation < entry.generation;
  }
}
