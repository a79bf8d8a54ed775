import type { Knex } from "knex";
import type { AuthContext } from "../http/handler.js";
import type { TokenService } from "./tokens.js";

/**
 * The caller behind a bearer token: the user must still exist and still be a member of the token's workspace, so
 * removing a member or deleting a user takes effect at once. One indexed query per request.
 */
export async function authenticate(
  knex: Knex,
  tokens: TokenService,
  authorization: string | undefined,
): Promise<AuthContext | null> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (!match) return null;
  const claims = await tokens.verify(match[1]!);
  if (!claims) return null;
  const row = await knex("users")
    .join("memberships", "memberships.user_id", "users.id")
    .join("workspaces", "workspaces.id", "memberships.workspace_id")
    .where({ "users.id": claims.userId, "memberships.workspace_id": claims.workspaceId })
    .first("users.email", "users.is_admin", "memberships.role", "workspaces.plan");
  if (!row) return null;
  return {
    userId: claims.userId,
    email: row.email,
    isAdmin: row.is_admin,
    workspaceId: claims.workspaceId,
    role: row.role,
    plan: row.plan,
  };
}
