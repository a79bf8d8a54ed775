/**
 * Partner provisioning, reach and alert subscription (docs/product-rules.md#partner-api, spec/partner.tsp).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventFanOut } from "../../src/delivery/consumers.js";
import { PARTNER_RULE_NAME } from "../../src/alert-rules/name.js";
import { connectSlack } from "../../src/alerts/slack.js";
import { sealedPlace, secretBoxOf } from "../../src/lib/secret-box.js";
import { suppress } from "../../src/suppressions/service.js";
import { FakeSlack } from "../fakes/slack.js";
import {
  addMember,
  createCompetitor,
  createEvent,
  createSource,
  createWorkspace,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
let slack: FakeSlack;
beforeAll(async () => {
  [app, slack] = await Promise.all([startTestApp(), new FakeSlack().start()]);
});
afterAll(async () => {
  await app?.stop();
  await slack?.stop();
});

const knex = () => app.service.services.knex;
const provision = (partner: TestMember, body: Record<string, unknown>) =>
  app.http.post("/v1/workspaces").set("Authorization", partner.bearer).send(body);
const read = (partner: TestMember, id: string) =>
  app.http.get(`/v1/workspaces/${id}`).set("Authorization", partner.bearer);
const subscribe = (partner: TestMember, id: string, body: Record<string, unknown>) =>
  app.http
    .post(`/v1/workspaces/${id}/alerts/subscribe`)
    .set("Authorization", partner.bearer)
    .send({ workspace_id: id, ...body });
const partnerRules = (workspaceId: string) =>
  knex()("alert_rules").where({ workspace_id: workspaceId, name: PARTNER_RULE_NAME });

let partner: TestMember;
let otherPartner: TestMember;
let freeCaller: TestMember;
beforeAll(async () => {
  [partner, otherPartner, freeCaller] = await Promise.all([
    createWorkspace(app, { plan: "growth", name: "Audit Partner" }),
    createWorkspace(app, { plan: "enterprise", name: "Other Partner" }),
    createWorkspace(app, { plan: "starter" }),
  ]);
});

describe("POST /v1/workspaces", () => {
  it("provisions a child workspace on the caller's plan with the default alert rule and no members", async () => {
    const res = await provision(partner, {
      company_name: "Globex",
      customer_email: "cfo@globex.example",
      industry: "Logistics",
      website_url: "https://globex.example",
      external_audit_id: "audit-123",
    }).expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      company_name: "Globex",
      customer_email: "cfo@globex.example",
      industry: "Logistics",
      website_url: "https://globex.example",
      status: "active",
      created_at: expect.any(String),
    });
    const row = await knex()("workspaces").where({ id: res.body.id }).first();
    expect(row).toMatchObject({
      name: "Globex",
      plan: "growth",
      parent_workspace_id: partner.workspaceId,
      external_audit_id: "audit-123",
    });
    expect(await knex()("memberships").where({ workspace_id: res.body.id })).toEqual([]);
    const rules = await knex()("alert_rules").where({ workspace_id: res.body.id });
    expect(rules).toMatchObject([{ is_default: true, frequency: "daily" }]);
  });

  it("returns the same workspace, unchanged, for the same customer email in any case", async () => {
    const first = await provision(partner, { company_name: "Initech", customer_email: "Bill@Initech.example" });
    expect(first.status).toBe(201);
    const again = await provision(partner, {
      company_name: "Initech Renamed",
      customer_email: "bill@INITECH.example",
      industry: "Software",
    }).expect(201);
    expect(again.body).toEqual(first.body);
    const count = await knex()("workspaces")
      .where({ parent_workspace_id: partner.workspaceId })
      .whereRaw("lower(customer_email) = 'bill@initech.example'")
      .count<{ count: string }[]>("* as count");
    expect(Number(count[0]!.count)).toBe(1);
  });

  it("creates one workspace for concurrent duplicate requests", async () => {
    const body = { company_name: "Umbrella", customer_email: "ops@umbrella.example" };
    const answers = await Promise.all(Array.from({ length: 8 }, () => provision(partner, body)));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
    const rows = await knex()("workspaces").where({
      parent_workspace_id: partner.workspaceId,
      company_name: "Umbrella",
    });
    expect(rows).toHaveLength(1);
    // One default rule, made by the one insert that won.
    expect(await knex()("alert_rules").where({ workspace_id: rows[0].id })).toHaveLength(1);
  });

  it("keeps customers of different partners apart", async () => {
    const body = { company_name: "Hooli", customer_email: "it@hooli.example" };
    const mine = await provision(partner, body).expect(201);
    const theirs = await provision(otherPartner, body).expect(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect((await knex()("workspaces").where({ id: theirs.body.id }).first()).plan).toBe("enterprise");
  });

  it("answers 403 to a workspace without api_access", async () => {
    const res = await provision(freeCaller, { company_name: "Nope", customer_email: "a@b.example" }).expect(403);
    expect(res.body.detail).toMatch(/API access/);
  });

  it("answers 422 for a missing company name, an invalid email or a non-http website", async () => {
    const res = await provision(partner, { customer_email: "not-an-email", website_url: "ftp://x.example" }).expect(
      422,
    );
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.company_name", "body.customer_email", "body.website_url"]));
  });

  it("answers 401 without a token", async () => {
    await app.http.post("/v1/workspaces").send({ company_name: "X", customer_email: "x@y.example" }).expect(401);
  });
});

describe("GET /v1/workspaces/{id}", () => {
  it("reads the caller's own workspace and its children", async () => {
    const own = await read(partner, partner.workspaceId).expect(200);
    expect(own.body).toMatchObject({ id: partner.workspaceId, status: "active", customer_email: null });
    const child = await provision(partner, { company_name: "Soylent", customer_email: "x@soylent.example" });
    expect((await read(partner, child.body.id).expect(200)).body).toEqual(child.body);
  });

  it("answers 404 for another partner's child, another workspace and a missing id", async () => {
    const theirs = await provision(otherPartner, { company_name: "Vandelay", customer_email: "art@vandelay.example" });
    for (const id of [theirs.body.id, otherPartner.workspaceId, freeCaller.workspaceId, crypto.randomUUID()]) {
      expect((await read(partner, id).expect(404)).body).toEqual({ detail: "Workspace not found" });
    }
  });

  it("does not let a child's parent reach its grandchildren, nor a child reach its parent", async () => {
    const child = await provision(partner, { company_name: "Child Co", customer_email: "c@child.example" });
    // A member of the child (on the partner's plan) provisions its own customer.
    const childMember = await addMember(app, child.body.id, { role: "owner" });
    const grandchild = await provision(childMember, { company_name: "Grand", customer_email: "g@grand.example" });
    expect(grandchild.status).toBe(201);
    await read(partner, grandchild.body.id).expect(404);
    await read(childMember, partner.workspaceId).expect(404);
  });

  it("answers 422 for an id that is not a UUID and 403 without api_access", async () => {
    await read(partner, "not-a-uuid").expect(422);
    await read(freeCaller, freeCaller.workspaceId).expect(403);
  });
});

describe("POST /v1/workspaces/{id}/alerts/subscribe", () => {
  let child: string;
  beforeAll(async () => {
    child = (await provision(partner, { company_name: "Alerted", customer_email: "a@alerted.example" })).body.id;
  });

  it("creates the partner rule, replaces it on every call and removes it without channels", async () => {
    await subscribe(partner, child, { email: ["Ops@Alerted.example", "ops@alerted.example"] }).expect(200, {
      ok: true,
    });
    let rules = await partnerRules(child);
    expect(rules).toMatchObject([
      {
        frequency: "immediate",
        severity_threshold: "low",
        confidence_threshold: 0,
        delivery_channels_json: ["email"],
        email_recipients_json: ["ops@alerted.example"],
        monitor_types_json: null,
        competitor_id: null,
        is_default: false,
      },
    ]);
    const ruleId = rules[0].id;

    // The same call again changes nothing; another call replaces the rule's settings, keeping one rule.
    await subscribe(partner, child, { email: ["ops@alerted.example"] }).expect(200);
    await subscribe(partner, child, {
      email: ["cto@alerted.example"],
      min_severity: "high",
      monitor_types: ["social", "pricing", "social"],
      slack_webhook_url: slack.webhookUrl,
    }).expect(200);
    rules = await partnerRules(child);
    expect(rules).toMatchObject([
      {
        id: ruleId,
        severity_threshold: "high",
        delivery_channels_json: ["email", "slack"],
        email_recipients_json: ["cto@alerted.example"],
        monitor_types_json: ["pricing", "social"],
      },
    ]);
    // The Slack URL is the workspace's connected webhook, stored sealed.
    const { slack_webhook_url } = await knex()("workspaces").where({ id: child }).first("slack_webhook_url");
    expect(slack_webhook_url).toMatch(/^sealed:v2:/);
    expect(secretBoxOf(app.config).open(slack_webhook_url, sealedPlace.slackWebhookUrl(child))).toBe(slack.webhookUrl);
    // It shows among the workspace's alert rules under its reserved name (the default rule stays).
    expect((await knex()("alert_rules").where({ workspace_id: child })).map((r) => r.name).sort()).toEqual(
      [PARTNER_RULE_NAME, "Medium+ changes — every competitor"].sort(),
    );

    await subscribe(partner, child, { email: [], slack_webhook_url: null }).expect(200, { ok: true });
    expect(await partnerRules(child)).toEqual([]);
  });

  it("keeps one rule under concurrent subscribes", async () => {
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => subscribe(partner, child, { email: [`n${i}@alerted.example`] }).expect(200)),
    );
    expect(await partnerRules(child)).toHaveLength(1);
  });

  it("sends matching events to the subscribed addresses and Slack, filtered by monitor type and severity", async () => {
    const target = (await provision(partner, { company_name: "Delivered", customer_email: "d@delivered.example" })).body
      .id;
    const acme = await createCompetitor(app, { workspaceId: target }, { name: "Acme" });
    const social = await createSource(app, { workspaceId: target }, { competitorId: acme.id, source_type: "social" });
    await suppress(knex(), target, "muted@delivered.example", "manual");
    await subscribe(partner, target, {
      email: ["Alerts@Delivered.example", "muted@delivered.example"],
      slack_webhook_url: slack.webhookUrl,
      monitor_types: ["social"],
      min_severity: "medium",
    }).expect(200);
    const fanOut = new EventFanOut(app.service.services);

    // A narrative change from a social source is seen through `social`; a pricing change is not.
    const seen = await createEvent(
      app,
      { workspaceId: target },
      {
        competitorId: acme.id,
        event_type: "narrative_change",
        severity: "medium",
        source_id: social.id,
        title: "Acme teases a new plan on social",
      },
    );
    const unseen = await createEvent(app, { workspaceId: target }, { competitorId: acme.id, severity: "critical" });
    const tooLow = await createEvent(
      app,
      { workspaceId: target },
      {
        competitorId: acme.id,
        event_type: "narrative_change",
        severity: "low",
        source_id: social.id,
      },
    );
    for (const event of [seen, unseen, tooLow]) await fanOut.deliver(event.id);

    const rows = await knex()("alert_deliveries")
      .whereIn("event_id", [seen.id, unseen.id, tooLow.id])
      .orderBy(["channel", "recipient"])
      .select("event_id", "channel", "recipient", "status");
    expect(rows.map(({ status, ...row }) => ({ ...row, done: status }))).toEqual([
      { event_id: seen.id, channel: "email", recipient: "alerts@delivered.example", done: expect.any(String) },
      { event_id: seen.id, channel: "email", recipient: "muted@delivered.example", done: "suppressed" },
      { event_id: seen.id, channel: "slack", recipient: "slack", done: expect.any(String) },
    ]);
    const mail = await waitFor(() => knex()("email_outbox").where({ to_address: "alerts@delivered.example" }).first());
    expect(mail.subject).toBe("[Medium] Acme teases a new plan on social");
    expect(mail.text_body).toContain("this address is subscribed to the immediate alerts of Delivered");
    const posted = await waitFor(async () =>
      slack.requests.find((r) => JSON.stringify(r.body).includes("Acme teases a new plan on social")),
    );
    expect(posted.path).toBe(slack.hookPath);
  });

  it("answers 422 when the body names another workspace than the path, or a recipient is no address", async () => {
    const res = await app.http
      .post(`/v1/workspaces/${child}/alerts/subscribe`)
      .set("Authorization", partner.bearer)
      .send({ workspace_id: partner.workspaceId, email: ["ops@alerted.example"] })
      .expect(422);
    expect(res.body.detail).toEqual([
      { loc: ["body", "workspace_id"], msg: "must equal the workspace_id of the path", type: "value_error" },
    ]);
    const bad = await subscribe(partner, child, { email: ["nope"], monitor_types: ["weather"] }).expect(422);
    expect(bad.body.detail.map((d: { loc: unknown[] }) => d.loc.slice(0, 2).join("."))).toEqual(
      expect.arrayContaining(["body.email", "body.monitor_types"]),
    );
    await subscribe(partner, child, { email: ["a@b.example"], monitor_types: [] }).expect(422);
  });

  it("answers 422 for a Slack URL that is not http(s)", async () => {
    const res = await subscribe(partner, child, { slack_webhook_url: "ftp://hooks.slack.com/x" }).expect(422);
    expect(res.body.detail[0].loc).toEqual(["body", "slack_webhook_url"]);
  });

  it("answers 403 once the partner's plan lost the partner API, and the child lost its plan with it", async () => {
    // A child is on its partner's plan, so it cannot lack immediate alerts while its partner has the partner API:
    // a downgrade takes both away at once.
    const agency = await createWorkspace(app, { plan: "growth", name: "Downgrading" });
    const child = (await provision(agency, { company_name: "Down", customer_email: "d@down.example" })).body.id;
    await subscribe(agency, child, { email: ["a@b.example"] }).expect(200);
    // The API caches its callers until the access-change notice of the downgrade arrives: wait for it, or the next
    // request can overtake it and be answered for the cached Growth partner.
    const received = app.service.accessChanges!.received;
    await knex()("workspaces").where({ id: agency.workspaceId }).update({ plan: "starter" });
    await waitFor(async () => app.service.accessChanges!.received > received);
    const res = await subscribe(agency, child, { email: ["a@b.example"] }).expect(403);
    expect(res.body.detail).toMatch(/API access/);
    expect((await knex()("workspaces").where({ id: child }).first("plan")).plan).toBe("starter");
  });

  it("answers 404 for a workspace the caller cannot reach and 403 without api_access", async () => {
    const theirs = (await provision(otherPartner, { company_name: "T", customer_email: "t@t.example" })).body.id;
    await subscribe(partner, theirs, { email: ["a@b.example"] }).expect(404);
    await subscribe(freeCaller, freeCaller.workspaceId, { email: ["a@b.example"] }).expect(403);
    expect(await partnerRules(theirs)).toEqual([]);
  });
});

describe("who may redirect a workspace's alerts", () => {
  const register = (caller: TestMember, id: string, body: Record<string, unknown>) =>
    app.http
      .post(`/v1/workspaces/${id}/monitors`)
      .set("Authorization", caller.bearer)
      .send({ workspace_id: id, ...body });
  const queuedMailTo = (address: string) =>
    knex()("outgoing_emails").where({ to_address: address }).orderBy("created_at").select("subject", "text_body");

  it("answers 403 to a member who is not an owner, for alert subscription and monitor registration", async () => {
    const owner = await createWorkspace(app, { plan: "growth", name: "Owned" });
    const member = await addMember(app, owner.workspaceId, { role: "member" });
    const denied = await subscribe(member, owner.workspaceId, { email: ["outside@elsewhere.example"] }).expect(403);
    expect(denied.body.detail).toMatch(/owners/);
    await register(member, owner.workspaceId, { monitor_type: "pricing" }).expect(403);
    expect(await partnerRules(owner.workspaceId)).toEqual([]);
    expect(await knex()("partner_monitors").where({ workspace_id: owner.workspaceId })).toEqual([]);
    // The same calls by an owner work.
    await subscribe(owner, owner.workspaceId, { email: [owner.email] }).expect(200);
    await register(owner, owner.workspaceId, { monitor_type: "pricing" }).expect(201);
  });

  it("never replaces a Slack webhook the vendor connected with slack-connect", async () => {
    const owner = await createWorkspace(app, { plan: "growth", name: "Vendor Slack" });
    const vendorHook = `${slack.baseUrl}/services/T0VENDOR1/B0VENDOR1/vendorvendorvendorvendor`;
    await connectSlack(knex(), app.config, owner.workspaceId, vendorHook);
    const res = await subscribe(owner, owner.workspaceId, { slack_webhook_url: slack.webhookUrl }).expect(409);
    expect(res.body.detail).toMatch(/slack-connect/);
    const { slack_webhook_url } = await knex()("workspaces").where({ id: owner.workspaceId }).first();
    expect(secretBoxOf(app.config).open(slack_webhook_url, sealedPlace.slackWebhookUrl(owner.workspaceId))).toBe(
      vendorHook,
    );
    expect(await partnerRules(owner.workspaceId)).toEqual([]);
    // Naming the vendor's own webhook, or no Slack at all, is fine: nothing is replaced.
    await subscribe(owner, owner.workspaceId, { slack_webhook_url: vendorHook }).expect(200);
    await subscribe(owner, owner.workspaceId, { email: [owner.email] }).expect(200);
    const after = await knex()("workspaces").where({ id: owner.workspaceId }).first();
    expect(secretBoxOf(app.config).open(after.slack_webhook_url, sealedPlace.slackWebhookUrl(owner.workspaceId))).toBe(
      vendorHook,
    );
  });

  it("mails the owners when addresses outside the workspace start receiving its alerts", async () => {
    const owner = await createWorkspace(app, { plan: "growth", name: "Watched" });
    const coOwner = await addMember(app, owner.workspaceId, { role: "owner" });
    const member = await addMember(app, owner.workspaceId, { role: "member" });
    await subscribe(owner, owner.workspaceId, { email: [member.email, "Spy@Outside.example"] }).expect(200);
    for (const address of [owner.email, coOwner.email]) {
      const mails = await queuedMailTo(address);
      expect(mails).toHaveLength(1);
      expect(mails[0].subject).toBe("Alerts of Watched now go to an address outside the workspace");
      expect(mails[0].text_body).toContain("spy@outside.example");
      expect(mails[0].text_body).not.toContain(member.email);
    }
    expect(await queuedMailTo(member.email)).toEqual([]);
    // The same recipients again: nobody new, no mail; one more outside address: one mail naming only it.
    await subscribe(owner, owner.workspaceId, { email: ["spy@outside.example", member.email] }).expect(200);
    expect(await queuedMailTo(owner.email)).toHaveLength(1);
    await subscribe(owner, owner.workspaceId, { email: ["spy@outside.example", "second@outside.example"] }).expect(200);
    const mails = await queuedMailTo(owner.email);
    expect(mails).toHaveLength(2);
    expect(mails[1].text_body).toContain("second@outside.example");
    expect(mails[1].text_body).not.toContain("spy@outside.example");
  });

  it("mails the partner's owners for a child workspace, which has no members", async () => {
    const owner = await createWorkspace(app, { plan: "growth", name: "Agency" });
    const child = (await provision(owner, { company_name: "Client", customer_email: "c@client.example" })).body.id;
    await subscribe(owner, child, { email: ["c@client.example"] }).expect(200);
    const mails = await queuedMailTo(owner.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe("Alerts of Client now go to an address outside the workspace");
    expect(mails[0].text_body).toContain("c@client.example");
  });
});

describe("how many customer workspaces a partner makes, and on which plan", () => {
  const customer = (n: number) => ({ company_name: `Customer ${n}`, customer_email: `owner${n}@customer.example` });

  it("caps a partner's children by its plan (Growth 25) with a 403 naming the limit; repeats still answer", async () => {
    const growth = await createWorkspace(app, { plan: "growth", name: "Capped Partner" });
    for (let n = 1; n <= 25; n++) await provision(growth, customer(n)).expect(201);
    const refused = await provision(growth, customer(26)).expect(403);
    expect(refused.body.detail).toBe(
      "The Growth plan allows 25 customer workspaces; upgrade to Enterprise (250 customer workspaces) to provision more",
    );
    // An existing customer is returned as before: the cap limits new workspaces only.
    await provision(growth, customer(3)).expect(201);
    expect(await knex()("workspaces").where({ parent_workspace_id: growth.workspaceId })).toHaveLength(25);
  });

  it("provisions at most 30 new workspaces per partner per hour, then 429 with Retry-After", async () => {
    const enterprise = await createWorkspace(app, { plan: "enterprise", name: "Busy Partner" });
    for (let n = 1; n <= 30; n++) await provision(enterprise, customer(n)).expect(201);
    const limited = await provision(enterprise, customer(31)).expect(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.body.detail).toMatch(/30 new customer workspaces per hour/);
    // Repeats of existing customers do not count (duplicate payment-webhook fires still answer).
    await provision(enterprise, customer(30)).expect(201);
    expect(await knex()("workspaces").where({ parent_workspace_id: enterprise.workspaceId })).toHaveLength(30);
  });

  it("keeps a child on its partner's plan: it follows every change of the partner's plan and no other", async () => {
    const agency = await createWorkspace(app, { plan: "growth", name: "Plan Partner" });
    const child = (await provision(agency, customer(1)).expect(201)).body.id;
    const planOf = async (id: string) => (await knex()("workspaces").where({ id }).first("plan")).plan;
    await knex()("workspaces").where({ id: agency.workspaceId }).update({ plan: "starter" });
    expect(await planOf(child)).toBe("starter");
    await knex()("workspaces").where({ id: agency.workspaceId }).update({ plan: "enterprise" });
    expect(await planOf(child)).toBe("enterprise");
    // The child's own row cannot say otherwise.
    await knex()("workspaces").where({ id: child }).update({ plan: "free" });
    expect(await planOf(child)).toBe("enterprise");
  });
});
