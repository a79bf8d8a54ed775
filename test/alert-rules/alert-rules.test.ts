import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAlertRule,
  createAlertRules,
  createCompetitor,
  createWorkspace,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { untilCallerSees } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const knex = () => app.service.services.knex;
const list = (member: TestMember) => app.http.get("/alert-rules").set("Authorization", member.bearer);
const create = (member: TestMember, body: Record<string, unknown>) =>
  app.http.post("/alert-rules").set("Authorization", member.bearer).send(body);
const update = (member: TestMember, id: string, body: Record<string, unknown>) =>
  app.http.patch(`/alert-rules/${id}`).set("Authorization", member.bearer).send(body);
const remove = (member: TestMember, id: string) =>
  app.http.delete(`/alert-rules/${id}`).set("Authorization", member.bearer);

const defaultRule = (workspaceId: string) => ({
  id: expect.any(String),
  workspace_id: workspaceId,
  competitor_id: null,
  name: "Medium+ changes — every competitor",
  confidence_threshold: 0.5,
  delivery_channels_json: ["email"],
  event_types_json: null,
  frequency: "daily",
  severity_threshold: "medium",
  is_active: true,
  is_default: true,
  notice_types_json: [],
});

describe("the default alert rule", () => {
  it("exists for a workspace created through POST /auth/signup", async () => {
    const signup = await app.http
      .post("/auth/signup")
      .send({ email: "rules-signup@example.com", name: "Ada", password: "a long password" })
      .expect(201);
    const bearer = `Bearer ${signup.body.access_token}`;
    const me = await app.http.get("/auth/me").set("Authorization", bearer).expect(200);
    const res = await app.http.get("/alert-rules").set("Authorization", bearer).expect(200);
    expect(res.body).toEqual([defaultRule(me.body.workspace_id)]);
  });

  it("exists for factory workspaces, as for real ones", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const res = await list(member).expect(200);
    expect(res.body).toEqual([defaultRule(member.workspaceId)]);
  });

  it("can be updated, keeping is_default, and deleted, leaving the workspace without one", async () => {
    const member = await createWorkspace(app);
    const [rule] = (await list(member).expect(200)).body;
    const updated = await update(member, rule.id, { severity_threshold: "high" }).expect(200);
    expect(updated.body).toEqual({ ...rule, severity_threshold: "high", name: "High+ changes — every competitor" });
    await remove(member, rule.id).expect(204);
    expect((await list(member).expect(200)).body).toEqual([]);
  });
});

describe("creating alert rules", () => {
  it("fills every absent field with the spec's defaults and generates the name", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const res = await create(member, {}).expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      workspace_id: member.workspaceId,
      competitor_id: null,
      name: "Medium+ changes — every competitor",
      confidence_threshold: 0.5,
      delivery_channels_json: ["email"],
      event_types_json: null,
      frequency: "immediate",
      severity_threshold: "medium",
      is_active: true,
      is_default: false,
      notice_types_json: [],
    });
  });

  it("stores the given fields, ignores duplicates and names the rule after the competitor and types", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    await knex()("workspaces").where({ id: member.workspaceId }).update({ slack_webhook_url: "https://hooks.example" });
    const acme = await createCompetitor(app, member, { name: "Acme" });
    const res = await create(member, {
      competitor_id: acme.id,
      confidence_threshold: 0.8,
      delivery_channels: ["slack", "email"],
      event_types: ["hiring_change", "pricing_change", "hiring_change"],
      frequency: "weekly",
      severity_threshold: "high",
    }).expect(201);
    expect(res.body).toMatchObject({
      competitor_id: acme.id,
      name: "High+ pricing and hiring changes — Acme",
      confidence_threshold: 0.8,
      delivery_channels_json: ["slack", "email"],
      event_types_json: ["hiring_change", "pricing_change"],
      frequency: "weekly",
      severity_threshold: "high",
      is_default: false,
    });
  });

  it("ignores a repeated channel", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const res = await create(member, { delivery_channels: ["email", "email"] }).expect(201);
    expect(res.body.delivery_channels_json).toEqual(["email"]);
  });

  it("accepts explicit nulls for competitor_id and event_types as every competitor and type", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const res = await create(member, { competitor_id: null, event_types: null, severity_threshold: "low" }).expect(201);
    expect(res.body).toMatchObject({
      competitor_id: null,
      event_types_json: null,
      name: "All changes — every competitor",
    });
  });

  it("answers 404 for a competitor of another workspace", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const stranger = await createWorkspace(app, { plan: "growth" });
    const theirs = await createCompetitor(app, stranger);
    const res = await create(member, { competitor_id: theirs.id }).expect(404);
    expect(res.body.detail).toBe("Competitor not found");
    await create(member, { competitor_id: "00000000-0000-4000-8000-000000000000" }).expect(404);
  });

  it("answers 403 when the workspace already holds 100 rules", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    // The default rule plus 99 more makes 100.
    await createAlertRules(
      app,
      member,
      Array.from({ length: 99 }, () => ({ frequency: "daily" as const })),
    );
    const res = await create(member, {}).expect(403);
    expect(res.body.detail).toMatch(/at most 100 alert rules/);
    const [rule] = (await list(member).expect(200)).body;
    await remove(member, rule.id).expect(204);
    await create(member, {}).expect(201);
  });
});

describe("plan flags", () => {
  it("refuses immediate alerts on the free plan, even by default, and allows daily and weekly", async () => {
    const free = await createWorkspace(app, { plan: "free" });
    const byDefault = await create(free, {}).expect(403);
    expect(byDefault.body.detail).toBe(
      "The Free plan does not include immediate alerts; choose daily or weekly, or upgrade to Growth or Enterprise",
    );
    await create(free, { frequency: "immediate" }).expect(403);
    await create(free, { frequency: "daily" }).expect(201);
    await create(free, { frequency: "weekly" }).expect(201);
  });

  it("allows immediate alerts on the growth plan", async () => {
    const growth = await createWorkspace(app, { plan: "growth" });
    await create(growth, { frequency: "immediate" }).expect(201);
  });

  it("refuses the slack channel on the free plan even with a webhook connected", async () => {
    const free = await createWorkspace(app, { plan: "free" });
    await knex()("workspaces").where({ id: free.workspaceId }).update({ slack_webhook_url: "https://hooks.example" });
    const res = await create(free, { frequency: "daily", delivery_channels: ["slack"] }).expect(403);
    expect(res.body.detail).toBe(
      "The Free plan does not include Slack alerts; upgrade to Starter, Growth or Enterprise to use them",
    );
  });

  it("needs a Slack webhook connected to the workspace to create a slack rule on a plan with the flag", async () => {
    const growth = await createWorkspace(app, { plan: "growth" });
    const res = await create(growth, { delivery_channels: ["email", "slack"] }).expect(403);
    expect(res.body.detail).toBe("Connect a Slack webhook to the workspace before sending alerts to Slack");
    await knex()("workspaces").where({ id: growth.workspaceId }).update({ slack_webhook_url: "https://hooks.example" });
    await create(growth, { delivery_channels: ["email", "slack"] }).expect(201);
  });

  it("applies a plan change on the caller's next requests", async () => {
    const member = await createWorkspace(app, { plan: "free" });
    await create(member, {}).expect(403);
    await knex()("workspaces").where({ id: member.workspaceId }).update({ plan: "growth" });
    await untilCallerSees(() => create(member, {}), 201);
  });

  it("checks the rule that results from an update against the plan", async () => {
    const free = await createWorkspace(app, { plan: "free" });
    const [rule] = (await list(free).expect(200)).body;
    await update(free, rule.id, { frequency: "immediate" }).expect(403);
    await update(free, rule.id, { delivery_channels: ["slack"] }).expect(403);
    // A rule left immediate by a downgrade cannot be saved until its frequency changes.
    await knex()("alert_rules").where({ id: rule.id }).update({ frequency: "immediate" });
    await update(free, rule.id, { severity_threshold: "high" }).expect(403);
    const fixed = await update(free, rule.id, { severity_threshold: "high", frequency: "weekly" }).expect(200);
    expect(fixed.body).toMatchObject({ frequency: "weekly", severity_threshold: "high" });
  });

  it("lets an update choose slack only with the plan flag and a connected Slack webhook", async () => {
    const starter = await createWorkspace(app, { plan: "starter" });
    const [rule] = (await list(starter).expect(200)).body;
    await update(starter, rule.id, { delivery_channels: ["slack"] }).expect(403);
    await app.service.services
      .knex("workspaces")
      .where({ id: starter.workspaceId })
      .update({ slack_webhook_url: "https://hooks.slack.com/services/T000/B000/XXXX" });
    const res = await update(starter, rule.id, { delivery_channels: ["slack"] }).expect(200);
    expect(res.body.delivery_channels_json).toEqual(["slack"]);
  });
});

describe("updating alert rules", () => {
  it("changes only the fields sent and regenerates the name from the result", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const acme = await createCompetitor(app, member, { name: "Acme" });
    const created = await create(member, {
      competitor_id: acme.id,
      event_types: ["pricing_change"],
      confidence_threshold: 0.7,
    }).expect(201);
    expect(created.body.name).toBe("Medium+ pricing changes — Acme");

    const severity = await update(member, created.body.id, { severity_threshold: "critical" }).expect(200);
    expect(severity.body).toEqual({
      ...created.body,
      severity_threshold: "critical",
      name: "Critical pricing changes — Acme",
    });

    const types = await update(member, created.body.id, { event_types: ["product_change", "pricing_change"] }).expect(
      200,
    );
    expect(types.body).toMatchObject({
      event_types_json: ["product_change", "pricing_change"],
      name: "Critical pricing and product changes — Acme",
      competitor_id: acme.id,
      confidence_threshold: 0.7,
    });

    const unchanged = await update(member, created.body.id, {}).expect(200);
    expect(unchanged.body).toEqual(types.body);
  });

  it("treats null competitor_id and event_types as every competitor and every type", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const acme = await createCompetitor(app, member, { name: "Acme" });
    const created = await create(member, { competitor_id: acme.id, event_types: ["hiring_change"] }).expect(201);
    const res = await update(member, created.body.id, { competitor_id: null, event_types: null }).expect(200);
    expect(res.body).toMatchObject({
      competitor_id: null,
      event_types_json: null,
      name: "Medium+ changes — every competitor",
    });
  });

  it("moves a rule to another competitor of the workspace and renames it", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const acme = await createCompetitor(app, member, { name: "Acme" });
    const globex = await createCompetitor(app, member, { name: "Globex", domain: "globex.com" });
    const created = await create(member, { competitor_id: acme.id, frequency: "daily" }).expect(201);
    const res = await update(member, created.body.id, { competitor_id: globex.id }).expect(200);
    expect(res.body).toMatchObject({ competitor_id: globex.id, name: "Medium+ changes — Globex" });
  });

  it("answers 404 for a new competitor_id of another workspace, leaving the rule unchanged", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const stranger = await createWorkspace(app);
    const theirs = await createCompetitor(app, stranger);
    const created = await create(member, {}).expect(201);
    const res = await update(member, created.body.id, { competitor_id: theirs.id, severity_threshold: "low" }).expect(
      404,
    );
    expect(res.body.detail).toBe("Competitor not found");
    const rules = (await list(member).expect(200)).body;
    expect(rules[1]).toEqual(created.body);
  });

  it("keeps the partner API's reserved name, by which that API finds its rule", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const partner = await createAlertRule(app, member, { name: "__partner_default__", frequency: "immediate" });
    const listed = (await list(member).expect(200)).body;
    expect(listed.map((rule: { name: string }) => rule.name)).toEqual([
      "Medium+ changes — every competitor",
      "__partner_default__",
    ]);
    const res = await update(member, partner.id, { severity_threshold: "high" }).expect(200);
    expect(res.body).toMatchObject({ name: "__partner_default__", severity_threshold: "high" });
  });
});

describe("listing and deleting alert rules", () => {
  it("lists the default rule first, then the others oldest first", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const first = await create(member, { severity_threshold: "high" }).expect(201);
    const second = await create(member, { severity_threshold: "low" }).expect(201);
    // Even a default rule created after the others comes first.
    const [defaultRuleRow] = (await list(member).expect(200)).body;
    await knex()("alert_rules")
      .where({ id: defaultRuleRow.id })
      .update({ created_at: new Date(Date.now() + 60_000) });
    const res = await list(member).expect(200);
    expect(res.body.map((rule: { id: string }) => rule.id)).toEqual([defaultRuleRow.id, first.body.id, second.body.id]);
  });

  it("deletes a rule with 204, then answers 404 for it", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const created = await create(member, {}).expect(201);
    await remove(member, created.body.id).expect(204);
    await remove(member, created.body.id).expect(404);
    await update(member, created.body.id, { severity_threshold: "low" }).expect(404);
    expect((await list(member).expect(200)).body.map((rule: { id: string }) => rule.id)).not.toContain(created.body.id);
  });

  it("deletes a competitor's rules with the competitor and keeps the workspace-wide ones", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const acme = await createCompetitor(app, member, { name: "Acme" });
    const forAcme = await create(member, { competitor_id: acme.id }).expect(201);
    const everyone = await create(member, {}).expect(201);
    await app.http.delete(`/competitors/${acme.id}`).set("Authorization", member.bearer).expect(204);
    const ids = (await list(member).expect(200)).body.map((rule: { id: string }) => rule.id);
    expect(ids).toContain(everyone.body.id);
    expect(ids).not.toContain(forAcme.body.id);
    expect(ids).toHaveLength(2);
  });
});

describe("tenancy", () => {
  it("answers 404 for another workspace's rule on update and delete, and never lists it", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const stranger = await createWorkspace(app, { plan: "growth" });
    const rule = await create(owner, { severity_threshold: "high" }).expect(201);
    const notFound = await update(stranger, rule.body.id, { severity_threshold: "low" }).expect(404);
    expect(notFound.body.detail).toBe("Alert rule not found");
    await remove(stranger, rule.body.id).expect(404);
    const theirs = (await list(stranger).expect(200)).body;
    expect(theirs).toEqual([defaultRule(stranger.workspaceId)]);
    const mine = (await list(owner).expect(200)).body;
    expect(mine[1]).toEqual(rule.body);
  });

  it("answers 401 without a token", async () => {
    await app.http.get("/alert-rules").expect(401);
    await app.http.post("/alert-rules").send({}).expect(401);
  });
});

describe("validation", () => {
  const locs = (body: { detail: { loc: unknown[] }[] }) => body.detail.map((issue) => issue.loc.join("."));

  it("answers 422 for an unknown enum value, a threshold above 1 and empty lists", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const res = await create(member, {
      frequency: "hourly",
      severity_threshold: "urgent",
      confidence_threshold: 1.5,
      delivery_channels: [],
      event_types: [],
    }).expect(422);
    expect(locs(res.body)).toEqual(
      expect.arrayContaining([
        "body.frequency",
        "body.severity_threshold",
        "body.confidence_threshold",
        "body.delivery_channels",
        "body.event_types",
      ]),
    );
    const channel = await create(member, { delivery_channels: ["sms"] }).expect(422);
    expect(locs(channel.body)).toEqual(["body.delivery_channels.0"]);
    await create(member, { confidence_threshold: -0.1 }).expect(422);
    await create(member, { competitor_id: "acme" }).expect(422);
    expect((await list(member).expect(200)).body).toHaveLength(1);
  });

  it("answers 422 on update for the same mistakes and for a rule id that is not a UUID", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const [rule] = (await list(member).expect(200)).body;
    const res = await update(member, rule.id, { confidence_threshold: 2, delivery_channels: [] }).expect(422);
    expect(locs(res.body)).toEqual(expect.arrayContaining(["body.confidence_threshold", "body.delivery_channels"]));
    const path = await update(member, "not-a-uuid", {}).expect(422);
    expect(locs(path.body)).toEqual(["path.rule_id"]);
    await remove(member, "not-a-uuid").expect(422);
  });

  it("accepts the inclusive bounds 0 and 1 of confidence_threshold", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    await create(member, { confidence_threshold: 0 }).expect(201);
    await create(member, { confidence_threshold: 1 }).expect(201);
  });
});
