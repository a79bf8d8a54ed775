/**
 * Test data made directly in the database (fast: no HTTP round trip, no 0.4 s password hash per user).
 * Each call makes a fresh workspace, so tests never share tenants.
 */
import { randomBytes } from "node:crypto";
import { hashPassword } from "../../src/auth/passwords.js";
import type { MemberRole } from "../../src/workspaces/models.js";
import type { PlanName } from "../../src/workspaces/plans.js";
import type { TestApp } from "./test-app.js";

export const TEST_PASSWORD = "correct horse battery staple";
// One cheap hash (low scrypt cost) for every factory user; verifyPassword reads the cost from the hash itself.
const passwordHash = hashPassword(TEST_PASSWORD, { N: 1024, r: 8, p: 1 });

export interface TestMember {
  userId: string;
  email: string;
  workspaceId: string;
  role: MemberRole;
  token: string;
  /** `Authorization` header value. */
  bearer: string;
}

const uniqueEmail = (prefix: string) => `${prefix}-${randomBytes(5).toString("hex")}@example.com`;

export async function createWorkspace(
  app: TestApp,
  options: { plan?: PlanName; isAdmin?: boolean; name?: string } = {},
): Promise<TestMember> {
  const knex = app.service.services.knex;
  const [workspace] = await knex("workspaces")
    .insert({ name: options.name ?? "Test workspace", plan: options.plan ?? "free" })
    .returning("id");
  return addMember(app, workspace.id, { role: "owner", isAdmin: options.isAdmin });
}

export async function addMember(
  app: TestApp,
  workspaceId: string,
  options: { role?: MemberRole; isAdmin?: boolean; email?: string } = {},
): Promise<TestMember> {
  const { knex, tokens } = app.service.services;
  const email = options.email ?? uniqueEmail(options.role ?? "member");
  const [user] = await knex("users")
    .insert({ email, name: "Test User", password_hash: await passwordHash, is_admin: options.isAdmin ?? false })
    .returning("id");
  const role = options.role ?? "member";
  await knex("memberships").insert({ workspace_id: workspaceId, user_id: user.id, role });
  const token = await tokens.issue(user.id, workspaceId);
  return { userId: user.id, email, workspaceId, role, token, bearer: `Bearer ${token}` };
}

export async function createCompetitor(
  app: TestApp,
  member: TestMember,
  fields: { name?: string; domain?: string } = {},
): Promise<{ id: string; name: string; domain: string }> {
  const [row] = await app.service.services
    .knex("competitors")
    .insert({ workspace_id: member.workspaceId, name: fields.name ?? "Acme", domain: fields.domain ?? "acme.com" })
    .returning(["id", "name", "domain"]);
  return row;
}
