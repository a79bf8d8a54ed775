/**
 * Dismissals teach detection (docs/product-rules.md#learned-rules): a homepage on the fixture site rotates its hero
 * banner while its headline and a pricing page change for real; the events a member dismisses with a reason decide
 * what later fetches, and re-analysis, raise. Everything is seen through the public API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventFanOut } from "../../src/delivery/consumers.js";
import { applyLearnedRules, LOWERED_BY_LEARNED_RULE } from "../../src/sources/learned-rules.js";
import type { EventDraft } from "../../src/detection/types.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { addMember, createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let site: FixtureSite;
beforeAll(async () => {
  [app, site] = await Promise.all([startTestApp(), new FixtureSite().start()]);
});
afterAll(async () => {
  await app?.stop();
  await site?.stop();
});

const homepage = (headline: string, banner: string) =>
  `<html><head><title>Acme</title></head><body><main><h1>${headline}</h1><p>${banner}</p>` +
  `<section><h2>Why Acme</h2><p>Dashboards for every team, with alerts that matter.</p></section></main></body></html>`;

/** What the hero banner rotates through. */
const BANNERS = [
  "Spring sale on every annual plan",
  "New: the Slack integration is here",
  "Join our webinar on board reporting",
  "Customer story: how Globex grew",
] as const;

const pricingPage = (pro: number) =>
  `<html><body><main><h1>Pricing</h1><div class="plans">` +
  `<div class="plan"><h3>Starter</h3><p class="price">$9/month</p></div>` +
  `<div class="plan"><h3>Pro</h3><p class="price">$${pro}/month</p></div></div></main></body></html>`;

interface Tracked {
  member: TestMember;
  competitorId: string;
  sourceId: string;
  path: string;
}

let pathCounter = 0;
async function track(sourceType: "homepage" | "pricing", html: string): Promise<Tracked> {
  const member = await createWorkspace(app, { plan: "growth" });
  const competitor = await createCompetitor(app, member, { name: "Acme", domain: "acme.test" });
  const path = `/learned/${++pathCounter}`;
  site.set(path, html);
  const res = await app.http
    .post(`/competitors/${competitor.id}/sources`)
    .set("Authorization", member.bearer)
    .send({ source_type: sourceType, url: site.url(path), fetch_method: "http" })
    .expect(201);
  const t = { member, competitorId: competitor.id, sourceId: res.body.id, path };
  await fetchPage(t, html);
  return t;
}

/** Serves `html` and fetches it; the events the fetch created, newest first. */
async function fetchPage(t: Tracked, html: string) {
  const before = new Set((await feed(t.member)).map((event) => event.id));
  site.set(t.path, html);
  await app.service.pipeline.fetchSource(t.sourceId);
  return (await feed(t.member)).filter((event) => !before.has(event.id));
}

async function feed(member: TestMember) {
  const res = await app.http.get("/events").set("Authorization", member.bearer).expect(200);
  return res.body as { id: string; title: string; severity: string; event_type: string; tags_json: string[] }[];
}

const dismiss = (member: TestMember, eventId: string, reason?: string) =>
  app.http
    .patch(`/events/${eventId}/status`)
    .query(reason ? { status: "dismissed", reason } : { status: "dismissed" })
    .set("Authorization", member.bearer);

const rulesOf = async (t: Tracked, member = t.member) =>
  (await app.http.get(`/sources/${t.sourceId}/learned-rules`).set("Authorization", member.bearer).expect(200)).body;

describe("dismissals teach detection", () => {
  it("stops a rotating banner dismissed as noise, while a new headline still arrives", async () => {
    const t = await track("homepage", homepage("Analytics for teams", "Spring sale: 20% off"));
    const [banner] = await fetchPage(t, homepage("Analytics for teams", "New: the Slack integration"));
    expect(banner!.title).toContain("hero copy");

    const res = await dismiss(t.member, banner!.id, "noise").expect(200);
    expect(res.body).toEqual({ id: banner!.id, status: "dismissed", learned_rule_id: expect.any(String) });

    // Every later rotation is suppressed…
    expect(await fetchPage(t, homepage("Analytics for teams", "Webinar on Thursday"))).toEqual([]);
    expect(await fetchPage(t, homepage("Analytics for teams", "Customer story: Globex"))).toEqual([]);
    // …a real change elsewhere on the page is not, even when the banner rotates with it.
    const [headline] = await fetchPage(t, homepage("Analytics for every company", "Spring sale: 20% off"));
    expect(headline!.title).toContain("headline");
    expect(headline!.severity).toBe("medium");

    expect(await rulesOf(t)).toEqual([
      {
        id: res.body.learned_rule_id,
        source_id: t.sourceId,
        event_id: banner!.id,
        event_title: banner!.title,
        reason: "noise",
        effect: "suppress",
        event_type: "narrative_change",
        subject: "narrative:hero",
        created_at: expect.any(String),
      },
    ]);
  });

  it("suppresses a kind of change dismissed as wrong, and keeps one rule per kind with the latest reason", async () => {
    const t = await track("homepage", homepage("Analytics for teams", BANNERS[0]));
    const [first] = await fetchPage(t, homepage("Analytics for teams", BANNERS[1]));
    const taught = (await dismiss(t.member, first!.id, "not_relevant").expect(200)).body.learned_rule_id;
    const [second] = await fetchPage(t, homepage("Analytics for teams", BANNERS[2]));
    expect(second!.severity).toBe("low");

    const again = (await dismiss(t.member, second!.id, "wrong").expect(200)).body.learned_rule_id;
    expect(again).toBe(taught);
    expect(await rulesOf(t)).toEqual([
      expect.objectContaining({ id: taught, event_id: second!.id, reason: "wrong", effect: "suppress" }),
    ]);
    expect(await fetchPage(t, homepage("Analytics for teams", BANNERS[3]))).toEqual([]);
  });

  it("lowers a kind of change dismissed as not relevant by one level, out of immediate alerts", async () => {
    const t = await track("homepage", homepage("Analytics for teams", BANNERS[0]));
    await app.http
      .post("/alert-rules")
      .set("Authorization", t.member.bearer)
      .send({
        frequency: "immediate",
        severity_threshold: "low",
        confidence_threshold: 0,
        delivery_channels: ["email"],
      })
      .expect(201);
    const [first] = await fetchPage(t, homepage("Analytics for teams", BANNERS[1]));
    expect(first!.severity).toBe("medium");
    await dismiss(t.member, first!.id, "not_relevant").expect(200);

    const [lowered] = await fetchPage(t, homepage("Analytics for teams", BANNERS[2]));
    expect(lowered).toMatchObject({ severity: "low", event_type: "narrative_change" });
    expect(lowered!.tags_json).toContain(LOWERED_BY_LEARNED_RULE);
    const detail = await app.http.get(`/events/${lowered!.id}`).set("Authorization", t.member.bearer).expect(200);
    expect(detail.body.event.confidence_reasoning).toContain("dismissed this kind of change on this source");

    // The immediate rule matches low events, but the lowered one is not sent; the headline change is.
    const knex = app.service.services.knex;
    await new EventFanOut(app.service.services).deliver(lowered!.id);
    expect(await knex("alert_deliveries").where({ event_id: lowered!.id })).toEqual([]);
    const [headline] = await fetchPage(t, homepage("Analytics for everyone", BANNERS[2]));
    await new EventFanOut(app.service.services).deliver(headline!.id);
    expect(await knex("alert_deliveries").where({ event_id: headline!.id }).pluck("channel")).toEqual(["email"]);
  });

  it("never learns from a price change: the next one arrives whatever the reason given", async () => {
    const t = await track("pricing", pricingPage(49));
    const [raise] = await fetchPage(t, pricingPage(59));
    expect(raise!.title).toBe("Acme raised Pro from $49 to $59/month");
    const res = await dismiss(t.member, raise!.id, "noise").expect(200);
    expect(res.body).toEqual({ id: raise!.id, status: "dismissed" });
    expect(await rulesOf(t)).toEqual([]);
    const [next] = await fetchPage(t, pricingPage(69));
    expect(next!.title).toBe("Acme raised Pro from $59 to $69/month");
  });

  it("forgets a deleted rule: the change raises events again, live and in re-analysis", async () => {
    const t = await track("homepage", homepage("Analytics for teams", BANNERS[0]));
    const [first] = await fetchPage(t, homepage("Analytics for teams", BANNERS[1]));
    const ruleId = (await dismiss(t.member, first!.id, "noise").expect(200)).body.learned_rule_id;
    expect(await fetchPage(t, homepage("Analytics for teams", BANNERS[2]))).toEqual([]);

    // Re-analysis replays the snapshots under the rule: the suppressed change stays suppressed.
    const reanalyze = () =>
      app.http.post(`/insights/reanalyze/${t.competitorId}`).set("Authorization", t.member.bearer).expect(200);
    expect((await reanalyze()).body.events_generated).toBe(0);

    await app.http
      .delete(`/sources/${t.sourceId}/learned-rules/${ruleId}`)
      .set("Authorization", t.member.bearer)
      .expect(204);
    expect(await rulesOf(t)).toEqual([]);
    await app.http
      .delete(`/sources/${t.sourceId}/learned-rules/${ruleId}`)
      .set("Authorization", t.member.bearer)
      .expect(404, { detail: "Learned rule not found" });

    // Without it, re-analysis finds the change it had suppressed, and the next rotation is an event again.
    expect((await reanalyze()).body.events_generated).toBe(1);
    expect(await fetchPage(t, homepage("Analytics for teams", BANNERS[3]))).toHaveLength(1);
  });

  it("lets any member list and delete rules, and shows no other workspace's", async () => {
    const t = await track("homepage", homepage("Analytics for teams", BANNERS[0]));
    const [first] = await fetchPage(t, homepage("Analytics for teams", BANNERS[1]));
    const member = await addMember(app, t.member.workspaceId);
    const ruleId = (await dismiss(member, first!.id, "noise").expect(200)).body.learned_rule_id;
    expect(await rulesOf(t, member)).toHaveLength(1);

    const other = await createWorkspace(app, { plan: "growth" });
    await app.http.get(`/sources/${t.sourceId}/learned-rules`).set("Authorization", other.bearer).expect(404);
    await app.http
      .delete(`/sources/${t.sourceId}/learned-rules/${ruleId}`)
      .set("Authorization", other.bearer)
      .expect(404);
    expect(await rulesOf(t)).toHaveLength(1);
  });

  it("answers 422 to a reason without a dismissal, or a reason it does not know", async () => {
    const t = await track("homepage", homepage("Analytics for teams", BANNERS[0]));
    const [first] = await fetchPage(t, homepage("Analytics for teams", BANNERS[1]));
    const acknowledged = await app.http
      .patch(`/events/${first!.id}/status`)
      .query({ status: "acknowledged", reason: "noise" })
      .set("Authorization", t.member.bearer)
      .expect(422);
    expect(acknowledged.body.detail[0]).toMatchObject({ loc: ["query", "reason"] });
    await dismiss(t.member, first!.id, "boring").expect(422);
    expect(await rulesOf(t)).toEqual([]);
  });
});

describe("applyLearnedRules", () => {
  const draft = (event_type: EventDraft["event_type"], subject: string): EventDraft =>
    ({ event_type, subject, severity: "high", tags: [], confidence_reasoning: "Read." }) as unknown as EventDraft;

  it("covers a narrative change only when every changed field is the rule's", () => {
    const rules = [{ event_type: "narrative_change", subject: "narrative:h1+hero", effect: "suppress" as const }];
    expect(applyLearnedRules(rules, [draft("narrative_change", "narrative:hero")])).toEqual([]);
    expect(applyLearnedRules(rules, [draft("narrative_change", "narrative:hero+title")])).toHaveLength(1);
    expect(applyLearnedRules(rules, [draft("product_change", "narrative:hero")])).toHaveLength(1);
  });

  it("never touches a pricing event", () => {
    const rules = [{ event_type: "pricing_change", subject: "pricing:plan:pro", effect: "suppress" as const }];
    expect(applyLearnedRules(rules, [draft("pricing_change", "pricing:plan:pro")])).toHaveLength(1);
  });
});
