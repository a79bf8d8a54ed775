/**
 * Partner monitor events: the monitor-type mapping, filters, cursor paging in ascending (detected_at, id) order, and
 * paging while events arrive (docs/product-rules.md#partner-api).
 */
import type { Knex } from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../../src/partner/cursor.js";
import { monitorTypesOf } from "../../src/partner/monitor-types.js";
import {
  createCompetitor,
  createEvent,
  createEvents,
  createEvidence,
  createSource,
  createWorkspace,
  type EventFields,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const knex = () => app.service.services.knex;
let partner: TestMember;
let stranger: TestMember;
beforeAll(async () => {
  [partner, stranger] = await Promise.all([
    createWorkspace(app, { plan: "growth" }),
    createWorkspace(app, { plan: "enterprise" }),
  ]);
});

async function child(email: string, monitors: Record<string, boolean>): Promise<string> {
  const res = await app.http
    .post("/v1/workspaces")
    .set("Authorization", partner.bearer)
    .send({ company_name: "Customer", customer_email: email })
    .expect(201);
  await Promise.all(
    Object.entries(monitors).map(([monitor_type, enabled]) =>
      app.http
        .post(`/v1/workspaces/${res.body.id}/monitors`)
        .set("Authorization", partner.bearer)
        .send({ workspace_id: res.body.id, monitor_type, enabled })
        .expect(201),
    ),
  );
  return res.body.id;
}

type Page = { events: Array<Record<string, any>>; next_cursor: string | null };
function page(workspaceId: string, query: Record<string, string | number> = {}, caller = partner) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return app.http.get(`/v1/workspaces/${workspaceId}/events${qs ? `?${qs}` : ""}`).set("Authorization", caller.bearer);
}
async function okPage(workspaceId: string, query: Record<string, string | number> = {}): Promise<Page> {
  return (await page(workspaceId, query).expect(200)).body;
}
/** Every page of a listing, following next_cursor. */
async function allPages(workspaceId: string, query: Record<string, string | number> = {}): Promise<Page["events"]> {
  const items: Page["events"] = [];
  let cursor: string | null = null;
  do {
    const body: Page = await okPage(workspaceId, { ...query, ...(cursor ? { cursor } : {}) });
    items.push(...body.events);
    cursor = body.next_cursor;
  } while (cursor);
  return items;
}
const secondsAgo = (s: number) => new Date(Date.now() - s * 1000);

describe("GET /v1/workspaces/{id}/events: what is listed", () => {
  let ws: string;
  const ids: Record<string, string> = {};
  const monitorIds: Record<string, string> = {};
  let sources: Record<string, string> = {};
  beforeAll(async () => {
    ws = await child("events@mapping.example", {
      pricing: true,
      product: true,
      narrative: true,
      news: true,
      social: true,
      reviews: true,
      funding: true,
      hiring: false,
    });
    for (const m of await knex()("partner_monitors").where({ workspace_id: ws })) monitorIds[m.monitor_type] = m.id;
    const member = { workspaceId: ws };
    const acme = await createCompetitor(app, member, { name: "Acme" });
    sources = {};
    for (const type of ["pricing", "news", "social", "reviews", "blog"]) {
      sources[type] = (await createSource(app, member, { competitorId: acme.id, source_type: type })).id;
    }
    const make = async (key: string, seconds: number, fields: Partial<EventFields>, tags?: string[]) => {
      ids[key] = (
        await createEvent(app, member, { competitorId: acme.id, detected_at: secondsAgo(seconds), ...fields })
      ).id;
      if (tags)
        await knex()("events")
          .where({ id: ids[key] })
          .update({ tags_json: JSON.stringify(tags) });
    };
    await make("price", 100, { severity: "medium", source_id: sources.pricing });
    await make("newsProduct", 90, { event_type: "product_change", severity: "high", source_id: sources.news });
    await make("socialNarrative", 80, {
      event_type: "narrative_change",
      severity: "low",
      source_id: sources.social,
    });
    await make("review", 70, { event_type: "narrative_change", severity: "critical", source_id: sources.reviews });
    await make("funding", 60, { event_type: "product_change", source_id: sources.blog }, ["product", "funding"]);
    // A mention tagged `social` (no source row behind it) is seen through `social` too.
    await make("taggedMention", 50, { event_type: "narrative_change" }, ["narrative", "hn", "social"]);
    await make("hiring", 40, { event_type: "hiring_change", severity: "high" });
    await make("ancient", 400 * 86400, { severity: "critical" });
    await createEvidence(app, { eventId: ids.price!, source_url: "https://acme.com/pricing", excerpt: "Pro $59" });
  });

  it("lists each event once per enabled monitor type it is seen through, oldest first", async () => {
    const items = await allPages(ws);
    const expected = [
      ["price", "pricing"],
      ["newsProduct", "product"],
      ["newsProduct", "news"],
      ["socialNarrative", "narrative"],
      ["socialNarrative", "social"],
      ["review", "narrative"],
      ["review", "reviews"],
      ["funding", "product"],
      ["funding", "funding"],
      ["taggedMention", "narrative"],
      ["taggedMention", "social"],
      // `hiring` is disabled, and `ancient` is older than the plan's 365 days of history.
    ];
    expect(items.map((e) => [e.id, e.monitor_type])).toEqual(expected.map(([key, type]) => [ids[key!], type]));
    for (const item of items) expect(item.monitor_id).toBe(monitorIds[item.monitor_type]);

    // The TypeScript rule (alert matching) and the SQL rule (this listing) agree.
    const rows = await knex()("events as e")
      .leftJoin("sources as s", "s.id", "e.source_id")
      .where("e.workspace_id", ws)
      .whereNot("e.id", ids.ancient!)
      .select("e.id", "e.event_type", "e.tags_json", "s.source_type");
    const byRule = rows.flatMap((row) =>
      monitorTypesOf({ event_type: row.event_type, source_type: row.source_type, tags: row.tags_json })
        .filter((type) => type !== "hiring")
        .map((type) => `${row.id} ${type}`),
    );
    expect(items.map((e) => `${e.id} ${e.monitor_type}`).sort()).toEqual(byRule.sort());
  });

  it("shows the event's fields, its competitor as subject and its evidence", async () => {
    const [first] = (await okPage(ws, { limit: 1 })).events;
    const stored = await knex()("events").where({ id: ids.price }).first();
    expect(first).toEqual({
      id: ids.price,
      workspace_id: ws,
      monitor_id: monitorIds.pricing,
      monitor_type: "pricing",
      severity: "medium",
      subject: "Acme",
      title: stored.title,
      summary: stored.summary,
      confidence: 0.85,
      detected_at: new Date(stored.detected_at).toISOString(),
      evidence: [
        {
          captured_at: expect.any(String),
          excerpt: "Pro $59",
          title: "Pro plan price",
          url: "https://acme.com/pricing",
        },
      ],
    });
  });

  it("filters by monitor type, minimum severity (inclusive) and since (inclusive), combined", async () => {
    const types = (items: Page["events"]) => items.map((e) => `${e.id} ${e.monitor_type}`);
    expect((await allPages(ws, { monitor_type: "narrative" })).map((e) => e.id)).toEqual([
      ids.socialNarrative,
      ids.review,
      ids.taggedMention,
    ]);
    expect(types(await allPages(ws, { min_severity: "high" }))).toEqual([
      `${ids.newsProduct} product`,
      `${ids.newsProduct} news`,
      `${ids.review} narrative`,
      `${ids.review} reviews`,
    ]);
    const review = await knex()("events").where({ id: ids.review }).first("detected_at");
    const since = new Date(review.detected_at).toISOString();
    expect((await allPages(ws, { since, monitor_type: "narrative" })).map((e) => e.id)).toEqual([
      ids.review,
      ids.taggedMention,
    ]);
    expect(await allPages(ws, { monitor_type: "hiring" })).toEqual([]);
  });

  it("pages with an opaque cursor, next_cursor null on the last page", async () => {
    const everything = await allPages(ws);
    const seen: Page["events"] = [];
    let body = await okPage(ws, { limit: 4 });
    const sizes = [body.events.length];
    seen.push(...body.events);
    while (body.next_cursor) {
      expect(body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      body = await okPage(ws, { limit: 4, cursor: body.next_cursor });
      sizes.push(body.events.length);
      seen.push(...body.events);
    }
    expect(sizes).toEqual([4, 4, 3]);
    expect(seen).toEqual(everything);
    // A page that ends exactly at the last event has no next cursor either.
    expect((await okPage(ws, { limit: everything.length })).next_cursor).toBeNull();
    expect((await okPage(ws, { limit: everything.length - 1 })).next_cursor).not.toBeNull();
  });

  it("answers 422 for a malformed cursor and a limit outside 1-200", async () => {
    const forged = [
      "not base64!",
      Buffer.from("hello").toString("base64url"),
      Buffer.from("v1|2026-02-31T00:00:00.000000Z|00000000-0000-0000-0000-000000000000|1").toString("base64url"),
      Buffer.from("v1|2026-01-01T00:00:00.000000Z|nope|1").toString("base64url"),
      encodeCursor({ detected_at: "2026-01-01T00:00:00.000000Z", event_id: ids.price!, rank: 9 }),
    ];
    for (const cursor of forged) {
      const res = await page(ws, { cursor }).expect(422);
      expect(res.body.detail).toEqual([
        {
          loc: ["query", "cursor"],
          msg: "Invalid cursor: pass back a next_cursor exactly as it was received",
          type: "value_error",
        },
      ]);
    }
    for (const limit of [0, 201, "x"]) {
      const res = await page(ws, { limit }).expect(422);
      expect(res.body.detail[0].loc).toEqual(["query", "limit"]);
    }
    await page(ws, { min_severity: "urgent", monitor_type: "weather", since: "yesterday" }).expect(422);
  });

  it("answers 404 for a workspace the caller cannot reach and 403 without api_access", async () => {
    await page(ws, {}, stranger).expect(404);
    await page(stranger.workspaceId).expect(404);
    const starter = await createWorkspace(app, { plan: "starter" });
    await page(starter.workspaceId, {}, starter).expect(403);
  });
});

/** Events inserted the way detection stores them: `detected_at` is the inserting transaction's `now()`. */
async function insertLive(db: Knex | Knex.Transaction, workspaceId: string, competitorId: string, n = 1) {
  const rows = await createEvents(
    app,
    { workspaceId },
    Array.from({ length: n }, () => ({ competitorId })),
    db,
  );
  const ids = rows.map((row) => row.id);
  await db("events").whereIn("id", ids).update({ detected_at: db.fn.now(), observed_at: db.fn.now() });
  return ids;
}

describe("GET /v1/workspaces/{id}/events while events arrive", () => {
  it("holds back events that a still-open detection could sort before, then lists them in order", async () => {
    const ws = await child("events@horizon.example", { pricing: true });
    const acme = await createCompetitor(app, { workspaceId: ws });
    const settled = await createEvent(app, { workspaceId: ws }, { competitorId: acme.id, detected_at: secondsAgo(5) });

    const open = await knex().transaction();
    try {
      const [early] = await insertLive(open, ws, acme.id);
      // Committed after `early` was stamped, so it sorts after it.
      const [late] = await insertLive(knex(), ws, acme.id);
      const first = await okPage(ws);
      // Listing `late` now would let a cursor move past `early`, which commits afterwards.
      expect(first.events.map((e) => e.id)).toEqual([settled.id]);
      expect(first.next_cursor).toBeNull();
      await open.commit();

      const since = first.events[0]!.detected_at;
      const next = await waitFor(async () => {
        const body = await okPage(ws, { since });
        return body.events.length === 3 && body;
      }, 5000);
      expect(next.events.map((e) => e.id)).toEqual([settled.id, early, late]);
    } finally {
      if (!open.isCompleted()) await open.rollback();
    }
  });

  it("sees every event exactly once while others are inserted concurrently", async () => {
    const ws = await child("events@concurrent.example", { pricing: true });
    const acme = await createCompetitor(app, { workspaceId: ws });
    await createEvents(
      app,
      { workspaceId: ws },
      Array.from({ length: 10 }, (_, i) => ({ competitorId: acme.id, detected_at: secondsAgo(60 - i) })),
    );

    // Three writers, as three detection workers: each event commits in its own transaction, some held open for a
    // while after `detected_at` was stamped, so commits land out of `detected_at` order.
    let writing = true;
    const written: string[] = [];
    const writer = async (w: number) => {
      for (let i = 0; i < 12; i++) {
        await knex().transaction(async (trx) => {
          written.push(...(await insertLive(trx, ws, acme.id, 1 + (i % 2))));
          // Some longer than the listing's settling margin (SETTLE_MARGIN_MS), so only the open-transaction rule covers them.
          const holdMs = (i + w) % 5 === 0 ? 400 : (i + w) % 3 === 0 ? 20 : 0;
          if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
        });
      }
    };
    const writers = Promise.all([0, 1, 2].map(writer)).finally(() => {
      writing = false;
    });

    // The partner: follows next_cursor; when it is null, calls again with `since` = the last detected_at seen and
    // drops the ids it has seen (which can only be the ones detected at exactly that instant).
    const seen: string[] = [];
    const seenSet = new Set<string>();
    const lastAt = new Map<string, string>();
    let cursor: string | null = null;
    let since: string | null = null;
    const read = async () => {
      const query: Record<string, string | number> = { limit: 10 };
      if (cursor) query.cursor = cursor;
      else if (since) query.since = since;
      const body = await okPage(ws, query);
      for (const event of body.events) {
        if (seenSet.has(event.id)) {
          // Only a `since` restart may repeat an event, and only one detected at that very instant.
          expect(cursor).toBeNull();
          expect(event.detected_at).toBe(since);
          continue;
        }
        seen.push(event.id);
        seenSet.add(event.id);
        lastAt.set(event.id, event.detected_at);
      }
      if (body.events.length > 0) since = body.events.at(-1)!.detected_at;
      cursor = body.next_cursor;
    };
    while (writing) await read();
    await writers;
    // Everything written is committed now: read until it has all been listed (at most a settling margin later).
    await waitFor(
      async () => {
        await read();
        return seenSet.size === written.length + 10;
      },
      10_000,
      "every event to be listed",
    );
    expect(new Set(written).size).toBe(3 * 18);
    expect(seen).toHaveLength(new Set(seen).size);
    for (const id of written) expect(seenSet.has(id)).toBe(true);
    // And in ascending detected_at order.
    const times = seen.map((id) => lastAt.get(id)!);
    expect([...times].sort()).toEqual(times);
  });
});
