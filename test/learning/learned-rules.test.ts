/**
 * Dismissals teach the engine (docs/product-rules.md#learned-rules), end to end through real fetches of a fixture site:
 * a homepage whose banner and testimonial rotate, with two real changes (test/detection/rotating-history.ts). One
 * dismissal per kind of noise suppresses every later change of that kind, and both real changes still arrive; each
 * reason does what it says; a price change is never covered; rules are listed, undone, respected by re-analysis, and
 * never cross workspaces.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventFanOut } from "../../src/delivery/consumers.js";
import { DEMOTED_TAG } from "../../src/learning/rules.js";
import { REAL_CHANGES, ROTATING_HISTORY, rotatingPage } from "../detection/rotating-history.js";
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

const knex = () => app.service.services.knex;

interface Tracked {
  owner: TestMember;
  member: TestMember;
  competitorId: string;
  sourceId: string;
  path: string;
}

let counter = 0;
async function tracked(): Promise<Tracked> {
  const owner = await createWorkspace(app, { plan: "growth" });
  const member = await addMember(app, owner.workspaceId);
  const competitor = await createCompetitor(app, owner, { name: "Acme", domain: "acme.test" });
  const path = `/learn/${++counter}/`;
  site.set(path, { body: rotatingPage(ROTATING_HISTORY[0]!) });
  const res = await app.http
    .post(`/competitors/${competitor.id}/sources`)
    .set("Authorization", owner.bearer)
    .send({ source_type: "homepage", url: site.url(path) })
    .expect(201);
  return { owner, member, competitorId: competitor.id, sourceId: res.body.id, path };
}

/** Fetches the history's steps `from`..`to` (inclusive) of the source. */
async function replay(t: Tracked, from: number, to: number): Promise<void> {
  for (let step = from; step <= to; step++) {
    site.set(t.path, { body: rotatingPage(ROTATING_HISTORY[step]!) });
    await app.service.pipeline.fetchSource(t.sourceId);
  }
}

async function events(t: Tracked): Promise<any[]> {
  const res = await app.http.get("/events?limit=200").set("Authorization", t.member.bearer).expect(200);
  return res.body.reverse();
}

const isNoise = (event: { title: string }) => /rewrote/.test(event.title);

async function dismiss(t: Tracked, eventId: string, reason?: string, who: TestMember = t.member) {
  const res = await app.http
    .patch(`/events/${eventId}/status?status=dismissed${reason ? `&reason=${reason}` : ""}`)
    .set("Authorization", who.bearer)
    .expect(200);
  return res.body as { id: string; status: string; learned_rule_ids: string[] };
}

async function rules(t: Tracked, who: TestMember = t.member): Promise<any[]> {
  const res = await app.http.get(`/sources/${t.sourceId}/learned-rules`).set("Authorization", who.bearer).expect(200);
  return res.body;
}

describe("a page history with rotating content", () => {
  it("raises the noise of every rotation without dismissals", async () => {
    const t = await tracked();
    await replay(t, 0, ROTATING_HISTORY.length - 1);
    const all = await events(t);
    expect(all.filter(isNoise)).toHaveLength(8);
    expect(all.filter((e) => !isNoise(e)).map((e) => e.title)).toEqual([
      'Acme changed its homepage headline to "Ship safer software, faster"',
      "Acme raised Pro from $29 to $39/month",
    ]);
  });

  it("after one dismissal per kind of noise, suppresses every later noise change and still raises both real changes", async () => {
    const t = await tracked();
    // The banner rotates at fetch 1 (confirmed by fetch 2); the testimonial at fetch 3 (confirmed by 4).
    await replay(t, 0, 2);
    const [banner] = await events(t);
    expect(banner.title).toMatch(/rewrote/);
    const taught = await dismiss(t, banner.id, "noise");
    expect(taught).toMatchObject({ status: "dismissed", learned_rule_ids: [expect.any(String)] });
    await replay(t, 3, 4);
    const quote = (await events(t)).find((e) => e.id !== banner.id)!;
    expect(quote.title).toMatch(/rewrote/);
    await dismiss(t, quote.id, "noise");

    await replay(t, 5, ROTATING_HISTORY.length - 1);
    const all = await events(t);
    expect(all.map((e) => e.id).slice(0, 2)).toEqual([banner.id, quote.id]);
    const later = all.slice(2);
    expect(later.filter(isNoise)).toEqual([]);
    expect(later.map((e) => e.title)).toEqual([
      'Acme changed its homepage headline to "Ship safer software, faster"',
      "Acme raised Pro from $29 to $39/month",
    ]);
    expect(REAL_CHANGES).toHaveLength(2);

    const listed = await rules(t);
    expect(listed).toEqual([
      {
        id: expect.any(String),
        source_id: t.sourceId,
        event_id: quote.id,
        event_title: quote.title,
        reason: "noise",
        effect: "suppress",
        key: "text:what our customers say",
        description: 'Text changes in the "What our customers say" section',
        created_at: expect.any(String),
      },
      expect.objectContaining({
        event_id: banner.id,
        key: "text:top",
        description: "Text changes above the page's first heading",
        effect: "suppress",
      }),
    ]);
  });

  it("treats `wrong` as noise, and `not_relevant` as a severity level lower and out of immediate alerts", async () => {
    const t = await tracked();
    await app.http
      .post("/alert-rules")
      .set("Authorization", t.owner.bearer)
      .send({ frequency: "immediate", severity_threshold: "low", confidence_threshold: 0 })
      .expect(201);
    await replay(t, 0, 4);
    const [banner, quote] = await events(t);
    await dismiss(t, banner!.id, "not_relevant");
    await dismiss(t, quote!.id, "wrong");
    await replay(t, 5, 8);
    const later = (await events(t)).slice(2);
    // The banner (fetch 5) arrives demoted; the testimonial (fetch 7) does not arrive.
    expect(later).toHaveLength(1);
    expect(later[0]).toMatchObject({ severity: "low", tags_json: expect.arrayContaining([DEMOTED_TAG]) });
    expect((await rules(t)).map((r) => [r.key, r.reason, r.effect]).sort()).toEqual([
      ["text:top", "not_relevant", "demote"],
      ["text:what our customers say", "wrong", "suppress"],
    ]);
    const deliver = new EventFanOut(app.service.services);
    await deliver.deliver(later[0].id);
    await deliver.deliver(banner!.id);
    const sent = async (eventId: string) =>
      Number((await knex()("alert_deliveries").where({ event_id: eventId }).count("* as n").first())?.n);
    expect(await sent(later[0].id)).toBe(0);
    expect(await sent(banner!.id)).toBe(2);
  });

  it("never learns from a price change, and never suppresses one", async () => {
    const t = await tracked();
    await replay(t, 0, 16);
    const price = (await events(t)).find((e) => /raised Pro/.test(e.title))!;
    const taught = await dismiss(t, price.id, "noise");
    expect(taught.learned_rule_ids).toEqual([]);
    expect(await rules(t)).toEqual([]);
    // The next price move still arrives.
    site.set(t.path, { body: rotatingPage({ ...ROTATING_HISTORY[16]!, price: 49 }) });
    await app.service.pipeline.fetchSource(t.sourceId);
    expect((await events(t)).at(-1).title).toBe("Acme raised Pro from $39 to $49/month");
  });

  it("undoes a rule: an owner deletes it (members may not) and the noise it covered arrives again", async () => {
    const t = await tracked();
    await replay(t, 0, 2);
    const [banner] = await events(t);
    await dismiss(t, banner.id, "noise");
    const [rule] = await rules(t);
    await app.http
      .delete(`/sources/${t.sourceId}/learned-rules/${rule.id}`)
      .set("Authorization", t.member.bearer)
      .expect(403);
    await app.http
      .delete(`/sources/${t.sourceId}/learned-rules/${rule.id}`)
      .set("Authorization", t.owner.bearer)
      .expect(204);
    await app.http
      .delete(`/sources/${t.sourceId}/learned-rules/${rule.id}`)
      .set("Authorization", t.owner.bearer)
      .expect(404);
    expect(await rules(t)).toEqual([]);
    await replay(t, 3, 6);
    expect((await events(t)).filter(isNoise).length).toBeGreaterThan(1);
  });

  it("forgets what a dismissal taught when the event is set back to another status", async () => {
    const t = await tracked();
    await replay(t, 0, 2);
    const [banner] = await events(t);
    await dismiss(t, banner.id, "noise");
    expect(await rules(t)).toHaveLength(1);
    const res = await app.http
      .patch(`/events/${banner.id}/status?status=new`)
      .set("Authorization", t.member.bearer)
      .expect(200);
    expect(res.body).toEqual({ id: banner.id, status: "new", learned_rule_ids: [] });
    expect(await rules(t)).toEqual([]);
  });

  it("refuses a reason without status=dismissed, and an unknown reason (422)", async () => {
    const t = await tracked();
    await replay(t, 0, 2);
    const [banner] = await events(t);
    const wrong = await app.http
      .patch(`/events/${banner.id}/status?status=acknowledged&reason=noise`)
      .set("Authorization", t.member.bearer)
      .expect(422);
    expect(wrong.body.detail[0].loc).toEqual(["query", "reason"]);
    await app.http
      .patch(`/events/${banner.id}/status?status=dismissed&reason=boring`)
      .set("Authorization", t.member.bearer)
      .expect(422);
    // Dismissing without a reason teaches nothing.
    expect((await dismiss(t, banner.id)).learned_rule_ids).toEqual([]);
    expect(await rules(t)).toEqual([]);
  });

  it("is respected by re-analysis: a suppressed kind of change is not raised again", async () => {
    const t = await tracked();
    await replay(t, 0, ROTATING_HISTORY.length - 1);
    const all = await events(t);
    const [banner, quote] = all.filter(isNoise);
    await dismiss(t, banner.id, "noise");
    await dismiss(t, quote.id, "noise");
    // Forget the other events, as if they had never been raised, and replay the stored snapshots.
    await knex()("events").where({ source_id: t.sourceId }).whereNotIn("id", [banner.id, quote.id]).delete();
    await app.http.post(`/insights/reanalyze/${t.competitorId}`).set("Authorization", t.member.bearer).expect(200);
    const replayed = await events(t);
    expect(replayed.filter(isNoise).map((e) => e.id)).toEqual([banner.id, quote.id]);
    // Re-analysis stores its events in one transaction (one detected_at): compared without their order.
    expect(
      replayed
        .filter((e) => !isNoise(e))
        .map((e) => e.title)
        .sort(),
    ).toEqual([
      'Acme changed its homepage headline to "Ship safer software, faster"',
      "Acme raised Pro from $29 to $39/month",
    ]);
  });
});

describe("tenancy", () => {
  it("never lists or deletes another workspace's rules, and answers 404 for its source", async () => {
    const t = await tracked();
    await replay(t, 0, 2);
    const [banner] = await events(t);
    await dismiss(t, banner.id, "noise");
    const [rule] = await rules(t);
    const other = await createWorkspace(app, { plan: "growth" });
    await app.http.get(`/sources/${t.sourceId}/learned-rules`).set("Authorization", other.bearer).expect(404);
    await app.http
      .delete(`/sources/${t.sourceId}/learned-rules/${rule.id}`)
      .set("Authorization", other.bearer)
      .expect(404);
    await app.http
      .patch(`/events/${banner.id}/status?status=dismissed&reason=noise`)
      .set("Authorization", other.bearer)
      .expect(404);
    // Another source of the caller's own workspace does not reach the rule either.
    const mine = await tracked();
    await app.http
      .delete(`/sources/${mine.sourceId}/learned-rules/${rule.id}`)
      .set("Authorization", mine.owner.bearer)
      .expect(404);
    expect(await rules(t)).toHaveLength(1);
    await app.http.get(`/sources/${t.sourceId}/learned-rules`).expect(401);
  });
});
