import type { Knex } from "knex";
import type { AuthContext } from "../http/handler.js";
import type { AccessChange, AccessChangeFeed } from "./access-changes.js";
import type { TokenService } from "./tokens.js";

/**
 * How long a token's caller (membership, role, admin flag, plan) is reused at most. The membership lookup was a
 * second database round trip on every request, ~16 % of GET /events throughput (bench/). Changes do not wait for it:
 * the access-change feed drops a stale caller at once (src/auth/access-changes.ts); this bound is a backstop.
 */
export const AUTH_CACHE_MS = 60_000;
const AUTH_CACHE_LIMIT = 10_000;

interface CachedCaller {
  caller: AuthContext;
  generation: number;
  until: number;
}

/**
 * The caller behind a bearer token: the user must still exist and still be a member of the token's workspace, and
 * the token must be of the user's current generation (a password reset revokes older tokens,
 * docs/product-rules.md#tokens-and-passwords).
 *
 * Callers are cached only while the access-change feed is listening, and every notice drops the callers it names, so
 * a change of plan, role, membership, admin flag or password takes effect on the next request in every process
 * (docs/architecture.md#consistency). Without a feed (a process that has none, or whose session is down) every
 * request reads the caller.
 */
export class Authenticator {
  private readonly cache = new Map<string, CachedCaller>();
  /**
   * Counts notices. A caller read from the database while a notice arrived may predate the change (the read raced
   * the commit), so it is not cached: the read notes the count before it starts and caches only if it is unchanged.
   */
  private notices = 0;

  constructor(
    private readonly knex: Knex,
    private readonly tokens: TokenService,
    private readonly feed: AccessChangeFeed | null = null,
  ) {
    feed?.subscribe({
      changed: (change) => this.forget(change),
      reset: () => {
        this.notices += 1;
        this.cache.clear();
      },
    });
  }

  /** Drops the cached callers of the user or workspace a notice names. */
  private forget(change: AccessChange): void {
    this.notices += 1;
    for (const [token, entry] of this.cache) {
      if (entry.caller.userId === change.userId || entry.caller.workspaceId === change.workspaceId) {
        this.cache.delete(token);
      }
    }
  }

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

    const noticesBefore = this.notices;
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
    if (!this.feed?.listening || this.notices !== noticesBefore) return caller;
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
