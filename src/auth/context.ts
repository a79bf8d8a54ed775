import type { Knex } from "knex";
import type { AuthContext } from "../http/handler.js";
import type { TokenService } from "./tokens.js";

/**
 * How long a token's caller (membership, role, admin flag, plan) is reused before it is read again. The membership
 * lookup was a second database round trip on every request, ~16 % of GET /events throughput (bench/); five seconds
 * bounds how late a removed member or a changed plan takes effect.
 */
export const AUTH_CACHE_MS = 5_000;
const AUTH_CACHE_LIMIT = 10_000;

/**
 * The caller behind a bearer token: the user must still exist and still be a member of the token's workspace, so
 * removing a member or deleting a user takes effect (within AUTH_CACHE_MS), and the token must be of the user's current
 * generation: a password reset revokes older tokens (docs/product-rules.md#tokens-and-passwords) at once in the process
 * that made it, and within AUTH_CACHE_MS in the others.
 */
export class Authenticator {
  private readonly cache = new Map<string, { caller: AuthContext; generation: number; until: number }>();

  constructor(
    private readonly knex: Knex,
    private readonly tokens: TokenService,
  ) {}

  async authenticate(authorization: string | undefined): Promise<AuthContext | null> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!match) return null;
    const token = match[1]!;
    const now = Date.now();
    const cached = this.cache.get(token);
    if (cached && cached.until > now) {
      // The cached caller was read before any reset this process has made since: checked on every hit.
      if (!this.tokens.isRevoked({ userId: cached.caller.userId, generation: cached.generation })) return cached.caller;
      this.cache.delete(token);
      return null;
    }

    const claims = await this.tokens.verify(token);
    if (!claims || this.tokens.isRevoked(claims)) return null;
    const row = await this.knex("users")
      .join("memberships", "memberships.user_id", "users.id")
      .join("workspaces", "workspaces.id", "memberships.workspace_id")
      .where({ "users.id": claims.userId, "memberships.workspace_id": claims.workspaceId })
      .first("users.email", "users.is_admin", "users.token_generation", "memberships.role", "workspaces.plan");
    if (!row || row.token_generation !== claims.generation) {
      this.cache.delete(token);
      return null;
    }
    const caller: AuthContext = {
      userId: claims.userId,
      email: row.email,
      isAdmin: row.is_admin,
      workspaceId: claims.workspaceId,
      role: row.role,
      plan: row.plan,
    };
    if (this.cache.size >= AUTH_CACHE_LIMIT) this.cache.clear();
    // Never past the token's own expiry.
    this.cache.set(token, {
      caller,
      generation: claims.generation,
      until: Math.min(now + AUTH_CACHE_MS, claims.exp * 1000),
    });
    return caller;
  }
}
