/**
 * The Digests operations over the `log` transport (mail lands in `email_outbox`): generation and its payload,
 * list/get with `delivery_summary`, sending with suppressions and idempotency, the owners' deliveries view, and the
 * 404/403/422 answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UnsubscribeLinks } from "../../src/digests/unsubscribe.js";
import { suppress } from "../../src/suppressions/service.js";
import { addMember, createCompetitor, createEvent, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

const PUBLIC_BASE_URL = "https://app.rivalscope.test";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ PUBLIC_BASE_URL });
});
afterAll(async () => {
  await app?.stop();
});

const knex = () => app.service.services.knex;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000);

async function createDigest(member: TestMember, periodType: "daily" | "weekly" = "daily") {
  const res = await app.http.post(`/digests?period_type=${periodType}`).set("Authorization", member.bearer).expect(201);
  return res.body;
}

/** Acme (pricing high, hiring low), Globex (product critical), events outside the period and a dismissed one. */
async function workspaceWithEvents() {
  const owner = await createWorkspace(app, { plan: "growth", name: "Northwind" });
  const acme = await createCompetitor(app, owner, { name: "Acme", domain: "acme.com" });
  const globex = await createCompetitor(app, owner, { name: "Globex", domain: "globex.com" });
  const pricing = await createEvent(app, owner, {
    competitorId: acme.id,
    severity: "high",
    title: "Acme raised Pro to $59",
    detected_at: hoursAgo(2),
  });
  const hiring = await createEvent(app, owner, {
    competitorId: acme.id,
    event_type: "hiring_change",
    severity: "low",
    title: "Acme opened 3 sales roles",
    detected_at: hoursAgo(1),
  });
  const product = await createEvent(app, owner, {
    competitorId: globex.id,
    event_type: "product_change",
    severity: "critical",
    title: "Globex launched an AI assistant",
    detected_at: hoursAgo(5),
  });
  await createEvent(app, owner, { competitorId: acme.id, title: "Two days ago", detected_at: hoursAgo(48) });
  await createEvent(app, owner, {
    competitorId: acme.id,
    title: "Dismissed",
    status: "dismissed",
    detected_at: hoursAgo(3),
  });
  return { owner, acme, globex, pricing, hiring, product };
}

describe("POST /digests", () => {
  it("builds the last 24 hours into per-competitor sections ordered by severity then time", async () => {
    const { owner, acme, globex, pricing, hiring, product } = await workspaceWithEvents();
    const before = Date.now();
    const digest = await createDigest(owner);

    expect(digest.workspace_id).toBe(owner.workspaceId);
    expect(digest.period_type).toBe("daily");
    const end = Date.parse(digest.period_end);
    expect(end).toBeGreaterThanOrEqual(before - 1000);
    expect(end - Date.parse(digest.period_start)).toBe(24 * 3600_000);
    expect(digest.delivered_at).toBeNull();
    expect(digest.delivery_summary).toEqual({
      bounced: 0,
      complained: 0,
      delivered: 0,
      failed: 0,
      opened: 0,
      opens: 0,
      pending: 0,
      sent: 0,
      suppressed: 0,
      total: 0,
    });

    const payload = digest.payload_json;
    expect(payload.headline).toBe("3 changes from 2 competitors in the last 24 hours");
    expect(payload.counts).toEqual({
      total: 3,
      competitors: 2,
      by_type: { pricing_change: 1, product_change: 1, hiring_change: 1, narrative_change: 0 },
      by_severity: { low: 1, medium: 0, high: 1, critical: 1 },
    });
    // Globex leads: its event is the most severe of the period.
    expect(payload.sections.map((s: any) => s.competitor)).toEqual([
      { id: globex.id, name: "Globex", domain: "globex.com" },
      { id: acme.id, name: "Acme", domain: "acme.com" },
    ]);
    expect(payload.sections[1].events.map((e: any) => e.id)).toEqual([pricing.id, hiring.id]);
    expect(payload.sections[1].counts).toEqual({
      total: 2,
      by_type: { pricing_change: 1, product_change: 0, hiring_change: 1, narrative_change: 0 },
    });
    expect(payload.sections[0].events[0]).toMatchObject({
      id: product.id,
      severity: "critical",
      title: "Globex launched an AI assistant",
      url: `${PUBLIC_BASE_URL}/events/${product.id}`,
      app_url: `${PUBLIC_BASE_URL}/app/events/${product.id}`,
      source_url: "https://globex.com",
    });
    // The default rule (daily, medium+) picks the highlights: critical and high, not low.
    expect(payload.highlights.map((e: any) => e.id)).toEqual([product.id, pricing.id]);
  });

  it("highlights what the workspace's weekly rules select for a weekly digest", async () => {
    const { owner, hiring } = await workspaceWithEvents();
    await app.http
      .post("/alert-rules")
      .set("Authorization", owner.bearer)
      .send({ frequency: "weekly", event_types: ["hiring_change"], severity_threshold: "low" })
      .expect(201);
    const digest = await createDigest(owner, "weekly");
    expect(Date.parse(digest.period_end) - Date.parse(digest.period_start)).toBe(7 * 24 * 3600_000);
    expect(digest.payload_json.counts.total).toBe(4);
    expect(digest.payload_json.highlights.map((e: any) => e.id)).toEqual([hiring.id]);
  });

  it("says so when nothing changed", async () => {
    const owner = await createWorkspace(app);
    const digest = await createDigest(owner);
    expect(digest.payload_json.headline).toBe("No competitor changes in the last 24 hours");
    expect(digest.payload_json.sections).toEqual([]);
  });

  it("requires period_type and rejects unknown values with 422", async () => {
    const owner = await createWorkspace(app);
    const missing = await app.http.post("/digests").set("Authorization", owner.bearer).expect(422);
    expect(missing.body.detail[0].loc).toEqual(["query", "period_type"]);
    await app.http.post("/digests?period_type=monthly").set("Authorization", owner.bearer).expect(422);
    await app.http.post("/digests?period_type=daily").expect(401);
  });
});

describe("GET /digests and /digests/{id}", () => {
  it("lists the caller's digests newest first and hides other workspaces' with 404", async () => {
    const owner = await createWorkspace(app);
    const first = await createDigest(owner);
    const second = await createDigest(owner, "weekly");
    const other = await createWorkspace(app);
    await createDigest(other);

    const list = await app.http.get("/digests").set("Authorization", owner.bearer).expect(200);
    expect(list.body.map((d: any) => d.id)).toEqual([second.id, first.id]);

    const one = await app.http.get(`/digests/${first.id}`).set("Authorization", owner.bearer).expect(200);
    expect(one.body).toEqual(first);
    await app.http.get(`/digests/${first.id}`).set("Authorization", other.bearer).expect(404);
    await app.http.get("/digests/not-a-uuid").set("Authorization", owner.bearer).expect(422);
  });
});

describe("POST /digests/{id}/send", () => {
  it("emails every member once, skips suppressed addresses and counts the deliveries", async () => {
    const { owner } = await workspaceWithEvents();
    const member = await addMember(app, owner.workspaceId);
    const suppressed = await addMember(app, owner.workspaceId);
    await suppress(knex(), owner.workspaceId, suppressed.email.toUpperCase(), "manual");
    const digest = await createDigest(owner);

    const res = await app.http.post(`/digests/${digest.id}/send`).set("Authorization", member.bearer).expect(200);
    expect(res.body.delivered_at).not.toBeNull();
    expect(res.body.delivery_summary).toMatchObject({ sent: 2, suppressed: 1, total: 3, pending: 0, failed: 0 });

    const mails = await knex()("email_outbox").whereIn("to_address", [owner.email, member.email, suppressed.email]);
    expect(mails.map((m) => m.to_address).sort()).toEqual([owner.email, member.email].sort());
    const mail = mails.find((m) => m.to_address === owner.email)!;
    expect(mail.subject).toBe("Daily digest for Northwind: 3 changes from 2 competitors in the last 24 hours");
    expect(mail.text_body).toContain("Globex launched an AI assistant");
    expect(mail.text_body).toMatch(new RegExp(`Event: ${PUBLIC_BASE_URL}/app/events/[0-9a-f-]{36}`));
    expect(mail.html_body).toContain('<a href="https://app.rivalscope.test/app/events/');
    expect(mail.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    const unsubscribe = /^<(.+)>$/.exec(mail.headers["List-Unsubscribe"])![1]!;
    expect(unsubscribe.startsWith(`${PUBLIC_BASE_URL}/unsubscribe?token=`)).toBe(true);
    expect(mail.text_body).toContain(unsubscribe);
    expect(mail.html_body).toContain(unsubscribe);
    const claims = await new UnsubscribeLinks(app.config).verify(new URL(unsubscribe).searchParams.get("token")!);
    expect(claims).toEqual({ workspaceId: owner.workspaceId, email: owner.email });

    // Sending again reaches nobody twice.
    const again = await app.http.post(`/digests/${digest.id}/send`).set("Authorization", owner.bearer).expect(200);
    expect(again.body.delivery_summary).toEqual(res.body.delivery_summary);
    expect(again.body.delivered_at).toBe(res.body.delivered_at);
    expect(await knex()("email_outbox").where({ to_address: owner.email }).count({ n: "*" })).toEqual([{ n: 1 }]);
  });

  it("reaches a member who joined after the first send", async () => {
    const owner = await createWorkspace(app);
    const digest = await createDigest(owner);
    await app.http.post(`/digests/${digest.id}/send`).set("Authorization", owner.bearer).expect(200);
    const late = await addMember(app, owner.workspaceId);
    const res = await app.http.post(`/digests/${digest.id}/send`).set("Authorization", owner.bearer).expect(200);
    expect(res.body.delivery_summary).toMatchObject({ sent: 2, total: 2 });
    expect(await knex()("email_outbox").where({ to_address: late.email }).count({ n: "*" })).toEqual([{ n: 1 }]);
  });

  it("answers 404 for another workspace's digest and sends nothing", async () => {
    const owner = await createWorkspace(app);
    const digest = await createDigest(owner);
    const other = await createWorkspace(app);
    await app.http.post(`/digests/${digest.id}/send`).set("Authorization", other.bearer).expect(404);
    expect(await knex()("digest_deliveries").where({ digest_id: digest.id })).toEqual([]);
  });
});

describe("GET /digests/{id}/deliveries", () => {
  it("shows owners one row per recipient ordered by address, and refuses members with 403", async () => {
    const owner = await createWorkspace(app, { plan: "starter" });
    const member = await addMember(app, owner.workspaceId);
    await suppress(knex(), owner.workspaceId, member.email, "bounce", "550 no such user");
    const digest = await createDigest(owner);
    await app.http.post(`/digests/${digest.id}/send`).set("Authorization", owner.bearer).expect(200);

    const res = await app.http.get(`/digests/${digest.id}/deliveries`).set("Authorization", owner.bearer).expect(200);
    const expected = [
      { recipient_email: owner.email, status: "sent", provider: "log" },
      {
        recipient_email: member.email,
        status: "suppressed",
        provider: "log",
        provider_message_id: null,
        sent_at: null,
      },
    ].sort((a, b) => a.recipient_email.localeCompare(b.recipient_email));
    expect(res.body).toMatchObject(expected);
    const sent = res.body.find((d: any) => d.status === "sent");
    expect(sent).toMatchObject({
      digest_id: digest.id,
      recipient_name: "Test User",
      last_event: null,
      opens_count: 0,
      bounce_reason: null,
    });
    expect(sent.provider_message_id).toMatch(/^log-/);
    expect(Date.parse(sent.sent_at)).not.toBeNaN();

    await app.http.get(`/digests/${digest.id}/deliveries`).set("Authorization", member.bearer).expect(403);
    const other = await createWorkspace(app);
    await app.http.get(`/digests/${digest.id}/deliveries`).set("Authorization", other.bearer).expect(404);
  });
});
