/**
 * The marketing beacon (docs/product-rules.md#public-stats): validated, written to the application log as one
 * structured line, nothing stored, 204; rate limited per client address.
 */
import pino from "pino";
import supertest from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MARKETING_EVENTS_PER_MINUTE } from "../../src/marketing/service.js";
import { startService, type RunningService } from "../../src/server.js";
import { matchesContract } from "../setup/contract.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ROLE: "api" });
});
afterAll(async () => app?.stop());

const knex = () => app.service.services.knex;
let clients = 0;
/** A client address of its own for each test (`trust proxy` is `loopback`: the address comes from X-Forwarded-For). */
const newClient = () => `198.51.100.${++clients}`;
const beacon = (body: unknown, ip: string) =>
  app.http
    .post("/marketing/events")
    .set("X-Forwarded-For", ip)
    .send(body as object);

/** Rows in every table of the schema but the rate-limit counters, which the beacon does write (one statement). */
async function storedRows(): Promise<Record<string, number>> {
  const { rows } = await knex().raw(
    `SELECT table_name AS name,
            (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I.%I', table_schema, table_name),
                                                 false, true, '')))[1]::text::int AS n
     FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'rate_limit_buckets'`,
  );
  return Object.fromEntries(rows.map((r: { name: string; n: number }) => [r.name, r.n]));
}

/** Fills a client's counter for the current window, as that many earlier beacons would have. */
async function alreadySent(key: string, count: number): Promise<void> {
  await knex()("rate_limit_buckets").insert({
    key: `marketing:client:${key}`,
    window_started_at: new Date(),
    count,
    expires_at: new Date(Date.now() + 60_000),
  });
}

describe("POST /marketing/events", () => {
  it("answers 204 with no body, without a token, and stores nothing", async () => {
    const before = await storedRows();
    const ip = newClient();
    const full = {
      event: "cta_click",
      location: "https://rivalscope.io/pricing",
      event_id: "e-1",
      source_hostname: "rivalscope.io",
    };
    const res = await beacon(full, ip).expect(204);
    expect(res.text).toBe("");
    await beacon({ event: "pricing_view", location: "/pricing", event_id: null, source_hostname: null }, ip).expect(
      204,
    );
    await beacon({ event: "pricing_view", location: "/pricing" }, ip).expect(204);
    expect(await storedRows()).toEqual(before);
  });

  it("answers 422 naming each invalid field", async () => {
    const ip = newClient();
    const cases: [unknown, string[][]][] = [
      [
        {},
        [
          ["body", "event"],
          ["body", "location"],
        ],
      ],
      [{ event: "", location: "/" }, [["body", "event"]]],
      [{ event: "x".repeat(101), location: "/" }, [["body", "event"]]],
      [{ event: "a", location: "" }, [["body", "location"]]],
      [{ event: "a", location: "/".repeat(2049) }, [["body", "location"]]],
      [{ event: 1, location: "/" }, [["body", "event"]]],
      [{ event: "a", location: "/", event_id: "x".repeat(101) }, [["body", "event_id"]]],
      [{ event: "a", location: "/", source_hostname: 7 }, [["body", "source_hostname"]]],
    ];
    for (const [body, locs] of cases) {
      const res = await beacon(body, ip).expect(422);
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual(locs);
    }
    const malformed = await app.http
      .post("/marketing/events")
      .set("X-Forwarded-For", ip)
      .set("Content-Type", "application/json")
      .send("{not json")
      .expect(422);
    expect(malformed.body.detail[0].type).toBe("json_invalid");
  });

  it(`accepts ${MARKETING_EVENTS_PER_MINUTE.limit} events a minute from one client, then answers 429 with Retry-After`, async () => {
    const ip = newClient();
    const body = { event: "scroll", location: "/" };
    // Two real beacons, then the counter as if the rest of the minute's allowance but one had been sent.
    await beacon(body, ip).expect(204);
    await beacon(body, ip).expect(204);
    await knex()("rate_limit_buckets")
      .where({ key: `marketing:client:${ip}` })
      .update({ count: MARKETING_EVENTS_PER_MINUTE.limit - 1 });
    await beacon(body, ip).expect(204);
    const limited = await beacon(body, ip).expect(429);
    expect(limited.body.detail).toMatch(/too many/i);
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another client is not affected.
    await beacon(body, newClient()).expect(204);
  });

  it("counts an IPv6 client by its /64", async () => {
    await alreadySent("2001:db8:1:2::/64", MARKETING_EVENTS_PER_MINUTE.limit);
    await beacon({ event: "a", location: "/" }, "2001:db8:1:2::99").expect(429);
    await beacon({ event: "a", location: "/" }, "2001:db8:1:3::99").expect(204);
  });
});

describe("the log line", () => {
  /** A second API process on the same database whose application log (pino, at `info`) is kept in `lines`. */
  const lines: string[] = [];
  let logged: RunningService;
  beforeAll(async () => {
    logged = await startService(
      { ...app.config, role: "api", logLevel: "info" },
      { listen: false, log: pino({ level: "info" }, { write: (line: string) => lines.push(line) }) },
    );
  });
  afterAll(async () => logged?.stop());

  it("writes each beacon as one JSON line with its four fields and nothing else of the body", async () => {
    const body = {
      event: "cta_click",
      location: 'https://rivalscope.io/?q=x\n{"msg":"forged line","level":50}',
      event_id: "evt-42",
      source_hostname: "rivalscope.io",
      injected: "not logged",
    };
    const res = await supertest(logged.app!)
      .post("/marketing/events")
      .set("X-Request-Id", "beacon-log-test")
      .send(body)
      .expect(matchesContract)
      .expect(204);
    expect(res.text).toBe("");
    const log = lines.join("");
    const beaconLines = log.split("\n").filter((line) => line.includes('"msg":"marketing event"'));
    expect(beaconLines).toHaveLength(1);
    const line = JSON.parse(beaconLines[0]!);
    expect(line).toMatchObject({
      level: 30,
      msg: "marketing event",
      requestId: "beacon-log-test",
      marketing_event: {
        event: "cta_click",
        location: body.location,
        event_id: "evt-42",
        source_hostname: "rivalscope.io",
      },
    });
    expect(Object.keys(line.marketing_event).sort()).toEqual(["event", "event_id", "location", "source_hostname"]);
    expect(log).not.toContain("not logged");
    expect(log.split("\n").filter((l) => l.startsWith('{"msg":"forged line"'))).toEqual([]);
  });

  it("logs nothing for a refused beacon", async () => {
    await alreadySent("203.0.113.9", MARKETING_EVENTS_PER_MINUTE.limit);
    const before = lines.length;
    await supertest(logged.app!)
      .post("/marketing/events")
      .set("X-Forwarded-For", "203.0.113.9")
      .send({ event: "refused_one", location: "/" })
      .expect(matchesContract)
      .expect(429);
    expect(lines.slice(before).join("")).not.toContain("refused_one");
  });
});
