/**
 * docs/product-rules.md#read-only-allowlist: read-only outside those fields and the note, and a test proves no request
 * ever carries stage, owner, amount or close date. Several events go the whole way (the `event-created` job, the CRM
 * consumer, the worker's syncs, the daily rollup) through both fake CRMs, whose records do hold those fields; then
 * every recorded request — path, query, headers, every key and value of its body, and the decoded note content — is
 * searched for them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CrmRollupSchedule } from "../../src/crm/rollup.js";
import type { DeliveryDeps } from "../../src/delivery/types.js";
import { QUEUES } from "../../src/jobs/queues.js";
import type { RecordedRequest } from "../fakes/crm-server.js";
import { FakeHubSpot } from "../fakes/hubspot.js";
import { FakeSalesforce } from "../fakes/salesforce.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";
import { connect, deliveryDeps, newEvent, workspaceWithCompetitor } from "./helpers.js";

const FORBIDDEN = [
  "StageName",
  "OwnerId",
  "Amount",
  "CloseDate",
  "dealstage",
  "hubspot_owner_id",
  "amount",
  "closedate",
];

let app: TestApp;
let sf: FakeSalesforce;
let hs: FakeHubSpot;
let deps: DeliveryDeps;
beforeAll(async () => {
  [app, sf, hs] = await Promise.all([startTestApp(), new FakeSalesforce().start(), new FakeHubSpot().start()]);
  deps = deliveryDeps(app);
});
afterAll(async () => {
  await app?.stop();
  await sf?.stop();
  await hs?.stop();
});

/** Every string a request carries where a property name could hide: keys and values, however deep. */
function strings(request: RecordedRequest): string[] {
  const found: string[] = [request.path, ...Object.keys(request.query), ...Object.values(request.query)];
  for (const [name, value] of Object.entries(request.headers)) found.push(name, String(value));
  const walk = (value: unknown): void => {
    if (typeof value === "string") found.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        found.push(key);
        walk(inner);
      }
    }
  };
  walk(request.body);
  // The Salesforce note's text travels base64-encoded.
  if (typeof request.body?.Content === "string")
    found.push(Buffer.from(request.body.Content, "base64").toString("utf8"));
  return found;
}

describe("CRM write-back allowlist", () => {
  it("never sends stage, owner, amount or close date to Salesforce or HubSpot, in any request", async () => {
    const setup = await workspaceWithCompetitor(app);
    const sfAccounts = [sf.addAccount({ Industry: "Software" }), sf.addAccount({ Industry: "Software" })];
    for (const account of sfAccounts) {
      sf.addOpportunity(account);
      sf.addOpportunity(account, { IsClosed: true });
    }
    const view = sf.addListView(sfAccounts);
    const hsCompanies = [hs.addCompany({ industry: "SOFTWARE" }), hs.addCompany({ industry: "SOFTWARE" })];
    for (const company of hsCompanies) {
      hs.addDeal([company]);
      hs.addDeal([company], { hs_is_closed: "true" });
    }
    const sfConnection = await connect(app, setup, "salesforce", sf, { [setup.competitor.id]: { view_id: view } }, [
      "--severity-threshold",
      "low",
      "--fields",
      JSON.stringify({
        last_move: "Rival_Move__c",
        last_move_date: "Rival_Move_On__c",
        last_move_severity: "Rival_Level__c",
      }),
    ]);
    sf.opportunityFields.add("Rival_Move__c").add("Rival_Move_On__c").add("Rival_Level__c");
    const hsConnection = await connect(app, setup, "hubspot", hs, {
      [setup.competitor.id]: { filter: { industry: "SOFTWARE" } },
    });

    // One clock for the events and the rollup, so the test holds across midnight UTC (the rollup is of the day before).
    const now = new Date();
    const day = new Date(now.getTime() - 24 * 3600 * 1000);
    const events: { id: string }[] = [];
    for (const [severity, title] of [
      ["critical", "Acme raised Pro from $49 to $59/month"],
      ["high", "Acme opened 12 sales roles in Berlin"],
      ["low", "Acme renamed its Starter plan"],
    ] as const) {
      events.push(await newEvent(app, setup, { severity, title, detected_at: day }));
    }
    // Through the `event-created` job, as detection queues it: the consumer list includes the CRM.
    for (const event of events) await deps.jobs.send(QUEUES.eventCreated, { event_id: event.id });
    await waitFor(
      async () => {
        const syncs = await app.service.services
          .knex("crm_syncs")
          .whereIn(
            "event_id",
            events.map((e) => e.id),
          )
          .pluck("status");
        // Salesforce (threshold low): 3 events; HubSpot (default high): 2.
        return syncs.length === 5 && syncs.every((status) => status === "done");
      },
      30_000,
      "every sync done",
    );
    expect(await new CrmRollupSchedule(deps).enqueueDue(now)).toBe(2);
    await waitFor(
      async () => {
        const runs = await app.service.services
          .knex("crm_rollup_runs")
          .whereIn("connection_id", [sfConnection.id, hsConnection.id])
          .pluck("status");
        return runs.length === 2 && runs.every((status) => status === "done");
      },
      20_000,
      "rollups done",
    );

    // The syncs and rollups did write: PATCHes, notes and rollup engagements on both sides.
    expect(sf.requestsTo({ method: "PATCH" })).toHaveLength(3 * 2);
    expect(sf.requestsTo({ path: "/services/data/v60.0/sobjects/Task" })).toHaveLength(2);
    expect(hs.requestsTo({ method: "PATCH" })).toHaveLength(2 * 2);
    expect(hs.requestsTo({ path: "/crm/v3/objects/notes" })).toHaveLength(2 * 2 + 2);
    expect(sf.requestsTo({ method: "PATCH" })[0]!.body).toEqual({
      Rival_Move__c: expect.any(String),
      Rival_Move_On__c: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      Rival_Level__c: expect.any(String),
    });

    const requests = [...sf.requests, ...hs.requests];
    expect(requests.length).toBeGreaterThan(20);
    const leaks = requests.flatMap((request) =>
      strings(request)
        .filter((text) => FORBIDDEN.some((name) => text.toLowerCase().includes(name.toLowerCase())))
        .map((text) => `${request.method} ${request.path}: ${text}`),
    );
    expect(leaks).toEqual([]);
    // The fakes' records still hold the values nobody may touch.
    expect([...sf.opportunities.values()].every((o) => o.StageName === "Prospecting" && o.Amount === 50000)).toBe(true);
    expect([...hs.deals.values()].every((d) => d.properties.dealstage === "appointmentscheduled")).toBe(true);
  });
});
