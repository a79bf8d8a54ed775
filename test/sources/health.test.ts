/**
 * Source health end to end (docs/product-rules.md#source-health): real fetches of a fixture site through the pipeline,
 * the transitions they cause, and each channel that tells them: the notice list, webhooks (a real receiver, signatures
 * checked with Stripe's library), immediate alerts by email and Slack, and the digest's "Sources needing attention".
 * Each transition is told once (however often the fetch or the fan-out runs), a muted source tells nothing, and
 * nothing crosses workspaces.
 */
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCommand } from "../../src/cli/admin.js";
import { NoticeFanOut } from "../../src/delivery/notices.js";
import { digestEmail } from "../../src/digests/email.js";
import { QUEUES } from "../../src/jobs/queues.js";
import type { WebhookSubscription } from "../../src/webhooks/subscriptions.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { FakeSlack } from "../fakes/slack.js";
import { WebhookReceiver } from "../fakes/webhook-receiver.js";
import { addMember, createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { queueSettled } from "../setup/jobs.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
let site: FixtureSite;
let receiver: WebhookReceiver;
const slacks: FakeSlack[] = [];
beforeAll(async () => {
  [app, site, receiver] = await Promise.all([
    startTestApp({ WEBHOOK_RETRY_BASE_SECONDS: "1" }),
    new FixtureSite().start(),
    new WebhookReceiver().start(),
  ]);
});
afterAll(async () => {
  await app?.stop();
  await site?.stop();
  await receiver?.stop();
  await Promise.all(slacks.map((slack) => slack.stop()));
});

const knex = () => app.service.services.knex;
const fetchNow = (sourceId: string) => app.service.pipeline.fetchSource(sourceId);

const PLANS = (pro: number) => `<!doctype html><html><head><title>Acme pricing</title></head><body><main>
<h1>Pricing</h1><div class="plans">
<div class="plan card"><h3>Starter</h3><p class="price">$19/month</p><ul><li>3 projects</li></ul></div>
<div class="plan card"><h3>Pro</h3><p class="price">$${pro}/month</p><ul><li>Unlimited projects</li></ul></div>
</div></main></body></html>`;
const NO_PLANS = `<!doctype html><html><head><title>Acme pricing</title></head><body><main>
<h1>Pricing that grows with you</h1><p>Talk to our team to find the plan that fits the way your company works today.</p>
<p>Every plan includes onboarding, support and the integrations your teams already use every single day.</p>
</main></body></html>`;

interface Tracked {
  owner: TestMember;
  member: TestMember;
  competitorId: string;
  sourceId: string;
  path: string;
  hookPath: string;
}

let counter = 0;
/** A Growth workspace (owner and member) tracking Acme's pricing page on the fixture site, subscribed to webhooks. */
async function tracked(options: { webhookTypes?: string } = {}): Promise<Tracked> {
  const owner = await createWorkspace(app, { plan: "growth", name: "Northwind" });
  const member = await addMember(app, owner.workspaceId);
  const competitor = await createCompetitor(app, owner, { name: "Acme", domain: "acme.test" });
  const path = `/health/${++counter}/pricing`;
  site.set(path, { body: PLANS(49) });
  const res = await app.http
    .post(`/competitors/${competitor.id}/sources`)
    .set("Authorization", owner.bearer)
    .send({ source_type: "pricing", url: site.url(path) })
    .expect(201);
  expect(res.body).toMatchObject({ health_state: "healthy", health_reason: null, health_notices_muted: false });
  const hookPath = `/hooks/health/${counter}`;
  await runAdminCommand(
    [
      "webhook-add",
      owner.workspaceId,
      "--url",
      receiver.url(hookPath),
      "--environment",
      "production",
      ...(options.webhookTypes ? ["--event-types", options.webhookTypes] : []),
    ],
    app.service.services,
  );
  expect(await fetchNow(res.body.id)).toMatchObject({ kind: "changed" });
  return { owner, member, competitorId: competitor.id, sourceId: res.body.id, path, hookPath };
}

async function notices(member: TestMember, query = ""): Promise<any[]> {
  const res = await app.http.get(`/source-notices${query}`).set("Authorization", member.bearer).expect(200);
  return res.body;
}

async function sourceOf(t: Tracked): Promise<any> {
  const res = await app.http
    .get(`/competitors/${t.competitorId}/sources`)
    .set("Authorization", t.member.bearer)
    .expect(200);
  return res.body.find((s: { id: string }) => s.id === t.sourceId);
}

/** Everything a transition queues has run: the fan-out, then the webhook attempts. */
async function settled(): Promise<void> {
  await queueSettled(knex(), QUEUES.sourceNoticeCreated);
  await queueSettled(knex(), QUEUES.webhookDeliver);
}

const hooks = (t: Tracked) => receiver.requests.filter((r) => r.path === t.hookPath);

describe("transitions", () => {
  it("breaks a source on its third failed fetch in a row, tells it once, and tells its recovery once", async () => {
    const t = await tracked();
    site.set(t.path, { status: 503, body: "busy" });
    for (let i = 0; i < 2; i++) await fetchNow(t.sourceId).catch(() => undefined);
    expect(await notices(t.member)).toEqual([]);
    expect(await sourceOf(t)).toMatchObject({ health_state: "healthy" });

    // The third failure, then a fourth and a fifth: one transition, one notice.
    for (let i = 0; i < 3; i++) await fetchNow(t.sourceId).catch(() => undefined);
    const broken = await notices(t.member);
    expect(broken).toEqual([
      expect.objectContaining({
        notice_type: "source_broken",
        reason: "repeated_failures",
        source_id: t.sourceId,
        source_url: site.url(t.path),
        source_type: "pricing",
        competitor_id: t.competitorId,
        competitor_name: "Acme",
      }),
    ]);
    expect(broken[0].detail).toMatch(/^Acme's pricing page: The last 3 fetches failed; the latest: HTTP 503/);
    expect(broken[0].action).toMatch(/fix the source's URL|re-run discovery/);
    const source = await sourceOf(t);
    expect(source).toMatchObject({ health_state: "broken", health_reason: "repeated_failures" });
    expect(source.health_changed_at).not.toBeNull();

    site.set(t.path, { body: PLANS(49) });
    expect(await fetchNow(t.sourceId)).toMatchObject({ kind: "unchanged" });
    await fetchNow(t.sourceId);
    const all = await notices(t.member);
    expect(all.map((n) => n.notice_type)).toEqual(["source_recovered", "source_broken"]);
    expect(all[0]).toMatchObject({ reason: "repeated_failures", action: "" });
    expect(all[0].detail).toMatch(/^Acme's pricing page is read again \(it had stopped: /);
    expect(await sourceOf(t)).toMatchObject({ health_state: "healthy", health_reason: null, health_detail: null });
  });

  it("breaks a source at once when its page answers 404, and says to fix the URL or re-run discovery", async () => {
    const t = await tracked();
    site.set(t.path, { status: 404, body: "gone" });
    await fetchNow(t.sourceId);
    // A retried job (the same failure again) tells nothing more.
    await fetchNow(t.sourceId);
    const [notice, ...rest] = await notices(t.member);
    expect(rest).toEqual([]);
    expect(notice).toMatchObject({ notice_type: "source_broken", reason: "not_found" });
    expect(notice.detail).toMatch(/answers 404 \(not found\)/);
    expect(notice.action).toMatch(/fix the source's URL, or re-run discovery/);
  });

  it("breaks a walled source (a bot challenge) at once, and suggests the browser fetch method", async () => {
    const t = await tracked();
    site.serveFixture(t.path, "bot-challenge.html");
    await fetchNow(t.sourceId);
    const [notice] = await notices(t.member);
    expect(notice).toMatchObject({ notice_type: "source_broken", reason: "walled" });
    expect(notice.detail).toMatch(/bot challenge/);
    expect(notice.action).toMatch(/fetch_method to "browser"/);
    expect(await sourceOf(t)).toMatchObject({ health_state: "broken", health_reason: "walled" });
  });

  it("tells the quiet failure: a pricing page that loads without plans breaks the source, and no plan is reported removed", async () => {
    const t = await tracked();
    site.set(t.path, { body: NO_PLANS });
    expect(await fetchNow(t.sourceId)).toMatchObject({ kind: "failed", retryable: false });
    const [notice] = await notices(t.member);
    expect(notice).toMatchObject({ notice_type: "source_broken", reason: "no_plans" });
    expect(notice.detail).toMatch(/loads but showed no plans \(it showed 2 at the last good read\)/);
    expect(notice.action).toMatch(/fix the source's URL or re-run discovery/);
    const events = await app.http.get("/events").set("Authorization", t.member.bearer).expect(200);
    expect(events.body).toEqual([]);
    // The page that yields no plans is not the new baseline: the plans coming back are the same plans, no events.
    site.set(t.path, { body: PLANS(49) });
    await fetchNow(t.sourceId);
    expect((await notices(t.member)).map((n) => n.notice_type)).toEqual(["source_recovered", "source_broken"]);
    expect((await app.http.get("/events").set("Authorization", t.member.bearer).expect(200)).body).toEqual([]);
    // A real change after recovery is still told.
    site.set(t.path, { body: PLANS(59) });
    await fetchNow(t.sourceId);
    const after = await app.http.get("/events").set("Authorization", t.member.bearer).expect(200);
    expect(after.body.map((e: { title: string }) => e.title)).toEqual(["Acme raised Pro from $49 to $59/month"]);
  });
});

describe("channels", () => {
  it("sends each transition as a signed webhook with its own event.type, once, and never to the CRM", async () => {
    const t = await tracked();
    const subscription = (await runAdminCommand(
      ["webhook-add", t.owner.workspaceId, "--url", receiver.url(t.hookPath), "--environment", "production"],
      app.service.services,
    )) as WebhookSubscription;
    site.set(t.path, { status: 410, body: "gone" });
    await fetchNow(t.sourceId);
    await settled();
    await waitFor(async () => hooks(t).length >= 1, 10_000, "the broken webhook");
    // The fan-out run again (a retried job) queues nothing twice.
    const [notice] = await notices(t.member);
    await new NoticeFanOut(app.service.services).deliver(notice.id);
    await settled();
    site.set(t.path, { body: PLANS(49) });
    await fetchNow(t.sourceId);
    await settled();
    await waitFor(async () => hooks(t).length >= 2, 10_000, "the recovered webhook");
    expect(hooks(t)).toHaveLength(2);

    const stripe = new Stripe("sk_test_unused");
    const bodies = hooks(t).map((request) =>
      stripe.webhooks.constructEvent(
        request.rawBody,
        String(request.headers["x-ci-signature"]),
        subscription.signing_secret!,
      ),
    ) as unknown as any[];
    expect(bodies.map((body) => body.event.type)).toEqual(["source_broken", "source_recovered"]);
    expect(bodies[0]).toMatchObject({
      event_id: notice.id,
      workspace_id: t.owner.workspaceId,
      competitor: { id: t.competitorId, name: "Acme", domain: "acme.test" },
      event: { severity: "high", title: "Acme's pricing page is no longer read", source_url: site.url(t.path) },
      source: { id: t.sourceId, reason: "not_found", action: expect.stringMatching(/fix the source's URL/) },
    });
    expect(hooks(t)[0]!.headers["x-ci-event-id"]).toBe(notice.id);
    expect(bodies[1].event.title).toBe("Acme's pricing page is read again");
    expect(Number((await knex()("crm_syncs").count("* as n").first())?.n)).toBe(0);
  });

  it("sends notices only to subscriptions whose event types name them", async () => {
    const t = await tracked({ webhookTypes: "pricing_change,source_recovered" });
    site.set(t.path, { status: 404, body: "gone" });
    await fetchNow(t.sourceId);
    site.set(t.path, { body: PLANS(49) });
    await fetchNow(t.sourceId);
    await settled();
    await waitFor(async () => hooks(t).length >= 1, 10_000, "the recovered webhook");
    expect(hooks(t).map((r) => JSON.parse(r.rawBody).event.type)).toEqual(["source_recovered"]);
  });

  it("alerts by email and Slack through immediate rules that ask for notices, once per member", async () => {
    const t = await tracked();
    const slack = await new FakeSlack().start();
    slacks.push(slack);
    await runAdminCommand(
      ["slack-connect", t.owner.workspaceId, "--webhook-url", slack.webhookUrl],
      app.service.services,
    );
    const rule = await app.http
      .post("/alert-rules")
      .set("Authorization", t.member.bearer)
      .send({
        frequency: "immediate",
        notice_types: ["source_broken", "source_broken"],
        delivery_channels: ["email", "slack"],
      })
      .expect(201);
    expect(rule.body.notice_types_json).toEqual(["source_broken"]);
    // A rule for events only sends no notice.
    await app.http
      .post("/alert-rules")
      .set("Authorization", t.member.bearer)
      .send({ frequency: "immediate", severity_threshold: "low" })
      .expect(201);

    site.set(t.path, { status: 404, body: "gone" });
    await fetchNow(t.sourceId);
    await settled();
    const [notice] = await notices(t.member);
    await new NoticeFanOut(app.service.services).deliver(notice.id);
    await queueSettled(knex(), QUEUES.alertSlack);
    const rows = await knex()("alert_deliveries").where({ notice_id: notice.id }).orderBy("recipient");
    expect(rows.map((r: { channel: string; recipient: string }) => [r.channel, r.recipient]).sort()).toEqual(
      [
        ["email", t.member.email],
        ["email", t.owner.email],
        ["slack", "slack"],
      ].sort(),
    );
    const mails = await knex()("outgoing_emails").where("subject", "like", "[Source broken]%");
    expect(mails.map((m: { to_address: string }) => m.to_address).sort()).toEqual(
      [t.member.email, t.owner.email].sort(),
    );
    expect(mails[0].subject).toBe("[Source broken] Acme's pricing page is no longer read");
    expect(mails[0].text_body).toMatch(/What to do: .*fix the source's URL/);
    await waitFor(async () => slack.requests.length >= 1, 10_000, "the Slack message");
    expect(slack.requests).toHaveLength(1);
    expect(JSON.stringify(slack.requests[0]!.body)).toMatch(/Source broken/);

    // The recovery is not asked for by this rule: no mail about it.
    site.set(t.path, { body: PLANS(49) });
    await fetchNow(t.sourceId);
    await settled();
    expect(await knex()("outgoing_emails").where("subject", "like", "[Source recovered]%")).toEqual([]);
  });

  it("lists broken sources in the digest's Sources needing attention, and renders them in its mail", async () => {
    const t = await tracked();
    site.set(t.path, { status: 404, body: "gone" });
    await fetchNow(t.sourceId);
    const digest = await app.http.post("/digests?period_type=daily").set("Authorization", t.member.bearer).expect(201);
    expect(digest.body.payload_json.sources_needing_attention).toEqual([
      {
        source_id: t.sourceId,
        source_url: site.url(t.path),
        source_type: "pricing",
        competitor: { id: t.competitorId, name: "Acme" },
        reason: "not_found",
        detail: expect.stringMatching(/404/),
        action: expect.stringMatching(/re-run discovery/),
        since: expect.any(String),
      },
    ]);
    const mail = digestEmail(digest.body.payload_json, { email: t.member.email, name: "Test User" }, "https://x/u");
    expect(mail.text).toContain(`SOURCES NEEDING ATTENTION\n\n- Acme: ${site.url(t.path)}`);
    expect(mail.html).toContain("Sources needing attention");

    site.set(t.path, { body: PLANS(49) });
    await fetchNow(t.sourceId);
    const later = await app.http.post("/digests?period_type=daily").set("Authorization", t.member.bearer).expect(201);
    expect(later.body.payload_json.sources_needing_attention).toEqual([]);
  });
});

describe("muting", () => {
  it("lets an owner mute a source's notices: its state still shows, nothing is told, not even in the digest", async () => {
    const t = await tracked();
    await app.http
      .patch(`/sources/${t.sourceId}/health`)
      .set("Authorization", t.member.bearer)
      .send({ notices_muted: true })
      .expect(403);
    const muted = await app.http
      .patch(`/sources/${t.sourceId}/health`)
      .set("Authorization", t.owner.bearer)
      .send({ notices_muted: true })
      .expect(200);
    expect(muted.body).toMatchObject({ id: t.sourceId, health_notices_muted: true, health_state: "healthy" });

    site.set(t.path, { status: 404, body: "gone" });
    await fetchNow(t.sourceId);
    await settled();
    expect(await sourceOf(t)).toMatchObject({ health_state: "broken", health_reason: "not_found" });
    expect(await notices(t.member)).toEqual([]);
    expect(await knex()("source_notices").where({ source_id: t.sourceId })).toEqual([]);
    const digest = await app.http.post("/digests?period_type=daily").set("Authorization", t.member.bearer).expect(201);
    expect(digest.body.payload_json.sources_needing_attention).toEqual([]);

    // Unmuted while broken: the state is listed again; its recovery is told.
    await app.http
      .patch(`/sources/${t.sourceId}/health`)
      .set("Authorization", t.owner.bearer)
      .send({ notices_muted: false })
      .expect(200);
    const again = await app.http.post("/digests?period_type=daily").set("Authorization", t.member.bearer).expect(201);
    expect(again.body.payload_json.sources_needing_attention).toHaveLength(1);
    site.set(t.path, { body: PLANS(49) });
    await fetchNow(t.sourceId);
    expect((await notices(t.member)).map((n) => n.notice_type)).toEqual(["source_recovered"]);
    await settled();
    await waitFor(async () => hooks(t).length >= 1, 10_000, "the recovered webhook");
    expect(hooks(t).map((r) => JSON.parse(r.rawBody).event.type)).toEqual(["source_recovered"]);
  });

  it("answers 422 for a body without notices_muted", async () => {
    const t = await tracked();
    const res = await app.http
      .patch(`/sources/${t.sourceId}/health`)
      .set("Authorization", t.owner.bearer)
      .send({ muted: true })
      .expect(422);
    expect(res.body.detail[0].loc).toEqual(["body", "notices_muted"]);
  });
});

describe("the notice list", () => {
  it("filters by competitor, source and type, pages, and answers 422 for a bad limit", async () => {
    const t = await tracked();
    site.set(t.path, { status: 404, body: "gone" });
    await fetchNow(t.sourceId);
    site.set(t.path, { body: PLANS(49) });
    await fetchNow(t.sourceId);
    expect(await notices(t.member, `?notice_type=source_broken`)).toHaveLength(1);
    expect(await notices(t.member, `?source_id=${t.sourceId}&limit=1`)).toHaveLength(1);
    expect(await notices(t.member, `?source_id=${t.sourceId}&offset=1`)).toHaveLength(1);
    expect(await notices(t.member, `?competitor_id=${t.competitorId}`)).toHaveLength(2);
    await app.http.get("/source-notices?limit=0").set("Authorization", t.member.bearer).expect(422);
    await app.http.get("/source-notices").expect(401);
  });
});

describe("tenancy", () => {
  it("never shows or changes another workspace's source health", async () => {
    const t = await tracked();
    site.set(t.path, { status: 404, body: "gone" });
    await fetchNow(t.sourceId);
    const other = await createWorkspace(app, { plan: "growth" });
    expect(await notices(other)).toEqual([]);
    expect(await notices(other, `?source_id=${t.sourceId}`)).toEqual([]);
    await app.http
      .patch(`/sources/${t.sourceId}/health`)
      .set("Authorization", other.bearer)
      .send({ notices_muted: true })
      .expect(404);
    const digest = await app.http.post("/digests?period_type=daily").set("Authorization", other.bearer).expect(201);
    expect(digest.body.payload_json.sources_needing_attention).toEqual([]);
    expect(await notices(t.member)).toHaveLength(1);
  });
});
