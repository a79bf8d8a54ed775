/**
 * Test data made directly in the database (fast: no HTTP round trip, no 0.4 s password hash per user).
 * Each call makes a fresh workspace, so tests never share tenants.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createDefaultAlertRule } from "../../src/alert-rules/service.js";
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
  // Like createWorkspaceFor: every real workspace starts with its default alert rule (DESIGN.md §7).
  await createDefaultAlertRule(knex, workspace.id);
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

export interface EventFields {
  competitorId: string;
  title?: string;
  summary?: string;
  event_type?: string;
  severity?: string;
  status?: string;
  confidence_score?: number;
  detected_at?: Date;
  source_id?: string;
  diff_id?: string;
}

/** An event row as detection would store it (no source or diff behind it unless given). */
export async function createEvent(app: TestApp, member: TestMember, fields: EventFields): Promise<{ id: string }> {
  const detectedAt = fields.detected_at ?? new Date();
  const [row] = await app.service.services
    .knex("events")
    .insert({
      workspace_id: member.workspaceId,
      competitor_id: fields.competitorId,
      source_id: fields.source_id ?? randomUUID(),
      diff_id: fields.diff_id ?? randomUUID(),
      event_type: fields.event_type ?? "pricing_change",
      severity: fields.severity ?? "medium",
      status: fields.status ?? "new",
      title: fields.title ?? "Acme raised Pro from $49 to $59/month",
      summary: fields.summary ?? "The Pro plan now costs $59 per month instead of $49.",
      impact_summary: "Prospects comparing on price now see a $10/month gap.",
      confidence_score: fields.confidence_score ?? 0.85,
      confidence_reasoning: "Read from the plan cards of the pricing page.",
      is_inferred: false,
      tags_json: JSON.stringify(["pricing"]),
      subject: `test:${randomUUID()}`,
      observed_at: detectedAt,
      detected_at: detectedAt,
    })
    .returning("id");
  return row;
}
