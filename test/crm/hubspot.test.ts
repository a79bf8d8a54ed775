/**
 * CRM write-back to HubSpot end to end: connections made with the admin CLI, events handed to the CRM consumer,
 * syncs run by the real worker against a fake HubSpot on 127.0.0.1 that records every request. Retry base 1 s so
 * pg-boss's backoff is observable within a test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventFanOut } from "../../src/delivery/consumers.js";
import { CrmRollup, CrmRollupSchedule } from "../../src/crm/rollup.js";
import { CrmSync } from "../../src/crm/sync.js";
import type { DeliveryDeps } from "../../src/delivery/types.js";
import { FakeHubSpot } from "../fakes/hubspot.js";
import { createCompetitor, createCrmSync } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";
import {
  addSource,
  admin,
  connect,
  deliveryDeps,
  newEvent,
  settled,
  syncOf,
  workspaceWithCompetitor,
  writesOf,
} from "./helpers.js";

let app: TestApp;
let hs: FakeHubSpot;
let deps: DeliveryDeps;
beforeAll(async () => {
  [app, hs] = await Promise.all([startTestApp({ WEBHOOK_RETRY_BASE_SECONDS: "1" }), new FakeHubSpot().start()]);
  deps = deliveryDeps(app);
});
afterAll(async () => {
  await app?.stop();
  await hs?.stop();
});

const knex = () => app.service.services.knex;
const dealPath = (id: string) => `/crm/v3/objects/deals/${id}`;
const NOTES = "/crm/v3/objects/notes";
const DEAL_SEARCH = "/crm/v3/objects/deals/search";
/** The deal searches for this company (the fake is shared by the file's tests). */
const dealSearchesFor = (companyId: string) =>
  hs.requestsTo({ method: "POST", path: DEAL_SEARCH }).filter((r) => JSON.stringify(r.body).includes(`"${companyId}"`));
const notesOn = (dealId: string) =>
  hs.requestsTo({ method: "POST", path: NOTES }).filter((r) => r.body.associations?.[0]?.to?.id === dealId);

describe("HubSpot write-back", () => {
  it("sends exactly the spec's requests for one event: deal search, PATCH of the three properties, a note associated with type 214", async () => {
    const setup = await workspaceWithCompetitor(app);
    const company = hs.addCompany();
    const open = hs.addDeal([company]);
    const closed = hs.addDeal([company], { hs_is_closed: "true" });
    const connection = await connect(app, setup, "hubspot", hs, { [setup.competitor.id]: { account_ids: [company] } });
    const event = await newEvent(app, setup, {
      severity: "critical",
      title: "Acme raised Pro from $49 to $59/month",
      confidence_score: 0.9,
      detected_at: new Date("2026-11-20T23:30:00.000Z"),
    });

    await new EventFanOut(deps).deliver(event.id);
    const sync = await settled(app, connection.id, event.id, "done");

    const requests = hs.requests.filter(
      (r) =>
        JSON.stringify(r.body).includes(`"${company}"`) ||
        [open, closed].some((id) => r.rawBody.includes(id) || r.path.includes(id)),
    );
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST ${DEAL_SEARCH}`,
      `PATCH ${dealPath(open)}`,
      `POST ${NOTES}`,
    ]);
    const [search, patch, note] = requests as [(typeof requests)[0], (typeof requests)[0], (typeof requests)[0]];
    for (const request of requests) {
      expect(request.headers.authorization).toBe(`Bearer ${hs.token}`);
      expect(request.headers["content-type"]).toBe("application/json");
    }
    expect(search.body).toEqual({
      filterGroups: [
        {
          filters: [
            { propertyName: "associations.company", operator: "EQ", value: company },
            { propertyName: "hs_is_closed", operator: "EQ", value: "false" },
          ],
        },
      ],
      properties: ["hs_object_id"],
      limit: 100,
    });
    expect(patch.body).toEqual({
      properties: {
        competitor_last_move: "Acme raised Pro from $49 to $59/month",
        competitor_last_move_date: "2026-11-20",
        competitor_last_move_severity: "critical",
      },
    });
    expect(note.body).toEqual({
      properties: {
        crm_timestamp: "2026-11-20T23:30:00.000Z",
        crm_note_body: [
          "Acme raised Pro from $49 to $59/month",
          "Acme · pricing change · severity critical",
          `Source: ${setup.sourceUrl}`,
          "Confidence: 90%",
        ].join("\n"),
      },
      associations: [{ to: { id: open }, types: [{ associationCategory: "CRM_DEFINED", associationTypeId: 214 }] }],
    });
    expect(hs.deals.get(open)!.properties).toMatchObject({
      competitor_last_move_severity: "critical",
      dealstage: "appointmentscheduled",
      amount: "50000",
    });
    const [write] = await writesOf(app, sync.id);
    expect(write).toMatchObject({ record_id: open, status: "done", note_id: [...hs.notes.keys()].at(-1) });
  });

  it("resolves a filter mapping with a companies search, following paging.next.after for companies and deals", async () => {
    const setup = await workspaceWithCompetitor(app);
    const [first, second] = [
      hs.addCompany({ industry: "COMPUTER_SOFTWARE", is_target: "true" }),
      hs.addCompany({ industry: "COMPUTER_SOFTWARE", is_target: "true" }),
    ];
    const other = hs.addCompany({ industry: "COMPUTER_SOFTWARE", is_target: "false" });
    const deals = [hs.addDeal([first]), hs.addDeal([second]), hs.addDeal([second])];
    const untouched = hs.addDeal([other]);
    const connection = await connect(app, setup, "hubspot", hs, {
      [setup.competitor.id]: { filter: { industry: "COMPUTER_SOFTWARE", is_target: true } },
    });
    const event = await newEvent(app, setup);
    hs.pageSize = 1;
    try {
      await new EventFanOut(deps).deliver(event.id);
      await settled(app, connection.id, event.id, "done");
    } finally {
      hs.pageSize = 100;
    }

    const searches = hs
      .requestsTo({ method: "POST", path: "/crm/v3/objects/companies/search" })
      .filter((r) => r.body.filterGroups[0].filters.some((f: any) => f.propertyName === "is_target"));
    expect(searches.map((r) => r.body)).toEqual([
      {
        filterGroups: [
          {
            filters: [
              { propertyName: "industry", operator: "EQ", value: "COMPUTER_SOFTWARE" },
              { propertyName: "is_target", operator: "EQ", value: "true" },
            ],
          },
        ],
        properties: ["hs_object_id"],
        limit: 100,
      },
      expect.objectContaining({ after: "1" }),
    ]);
    expect(dealSearchesFor(second).map((r) => r.body.after)).toEqual([undefined, "1"]);
    const patched = hs.requestsTo({ method: "PATCH" }).map((r) => r.path.split("/").at(-1));
    expect(patched).toEqual(expect.arrayContaining(deals));
    expect(patched).not.toContain(untouched);
  });

  it("resolves a list mapping through the list's memberships", async () => {
    const setup = await workspaceWithCompetitor(app);
    const companies = [hs.addCompany(), hs.addCompany(), hs.addCompany()];
    const list = hs.addList(companies);
    const deals = companies.map((company) => hs.addDeal([company]));
    const connection = await connect(app, setup, "hubspot", hs, { [setup.competitor.id]: { view_id: list } });
    const event = await newEvent(app, setup);
    hs.pageSize = 2;
    try {
      await new EventFanOut(deps).deliver(event.id);
      await settled(app, connection.id, event.id, "done");
    } finally {
      hs.pageSize = 100;
    }

    expect(hs.requestsTo({ method: "GET", path: `/crm/v3/lists/${list}/memberships` }).map((r) => r.query)).toEqual([
      { limit: "250" },
      { limit: "250", after: "2" },
    ]);
    const sync = await syncOf(app, connection.id, event.id);
    expect((await writesOf(app, sync!.id)).map((w) => w.record_id)).toEqual([...deals].sort());
  });

  it("writes events at or above the connection's severity threshold only (inclusive)", async () => {
    const setup = await workspaceWithCompetitor(app);
    const company = hs.addCompany();
    const deal = hs.addDeal([company]);
    const connection = await connect(app, setup, "hubspot", hs, { [setup.competitor.id]: { account_ids: [company] } });
    const medium = await newEvent(app, setup, { severity: "medium" });
    const high = await newEvent(app, setup, { severity: "high" });
    for (const event of [medium, high]) await new EventFanOut(deps).deliver(event.id);

    // The default threshold is high.
    expect(await syncOf(app, connection.id, medium.id)).toBeUndefined();
    await settled(app, connection.id, high.id, "done");
    const patches = hs.requestsTo({ method: "PATCH", path: dealPath(deal) });
    expect(patches.map((r) => r.body.properties.competitor_last_move_severity)).toEqual(["high"]);
  });

  it("needs api_access: a downgraded workspace's events are not written", async () => {
    const setup = await workspaceWithCompetitor(app, { plan: "enterprise" });
    const company = hs.addCompany();
    hs.addDeal([company]);
    const connection = await connect(app, setup, "hubspot", hs, { [setup.competitor.id]: { account_ids: [company] } });
    await admin(app, "set-plan", setup.owner.workspaceId, "free");
    const event = await newEvent(app, setup);
    await new EventFanOut(deps).deliver(event.id);

    expect(await syncOf(app, connection.id, event.id)).toBeUndefined();
    expect(dealSearchesFor(company)).toEqual([]);
  });

  it("is idempotent: the consumer and the job run again write each record once", async () => {
    const setup = await workspaceWithCompetitor(app);
    const company = hs.addCompany();
    const deal = hs.addDeal([company]);
    const connection = await connect(app, setup, "hubspot", hs, { [setup.competitor.id]: { account_ids: [company] } });
    const event = await newEvent(app, setup);

    await Promise.all([new EventFanOut(deps).deliver(event.id), new EventFanOut(deps).deliver(event.id)]);
    const sync = await settled(app, connection.id, event.id, "done");
    await new EventFanOut(deps).deliver(event.id);
    expect(await new CrmSync(deps).run(sync.id)).toBe("skipped");

    expect(await knex()("crm_syncs").where({ event_id: event.id }).select("id")).toHaveLength(1);
    expect(dealSearchesFor(company)).toHaveLength(1);
    expect(hs.requestsTo({ path: dealPath(deal) })).toHaveLength(1);
    expect(notesOn(deal)).toHaveLength(1);
  });

  it("a 401 marks the connection errored with HubSpot's reason, shown by crm-status; its pending syncs stop without calls", async () => {
    const setup = await workspaceWithCompetitor(app);
    const company = hs.addCompany();
    hs.addDeal([company]);
    const mapping = { [setup.competitor.id]: { account_ids: [company] } };
    const connection = await connect(
      app,
      setup,
      "hubspot",
      { baseUrl: hs.baseUrl, token: "pat-na1-revoked-0000" },
      mapping,
    );
    const event = await newEvent(app, setup);
    await new EventFanOut(deps).deliver(event.id);

    const reason =
      "HubSpot rejected the token (401 INVALID_AUTHENTICATION: Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview)";
    const sync = await settled(app, connection.id, event.id, "stopped");
    expect(sync.last_error).toBe(reason);
    expect(dealSearchesFor(company)).toHaveLength(1);

    // A sync queued before the 401 (inserted here as the consumer did) stops without calling HubSpot.
    const second = await newEvent(app, setup, { title: "Acme dropped the Team plan" });
    const queued = await createCrmSync(app, { connectionId: connection.id, eventId: second.id });
    expect(await new CrmSync(deps).run(queued.id)).toBe("stopped");
    expect(await knex()("crm_syncs").where({ id: queued.id }).first()).toMatchObject({
      status: "stopped",
      last_error: `HubSpot connection is errored: ${reason}`,
    });
    expect(dealSearchesFor(company)).toHaveLength(1);

    const [status] = (await admin(app, "crm-status", setup.owner.workspaceId)) as any[];
    expect(status).toMatchObject({ provider: "hubspot", status: "errored", last_error: reason, token_hint: "…0000" });
    expect(JSON.stringify(status)).not.toContain("pat-na1-revoked");
    const all = (await admin(app, "crm-status")) as any[];
    expect(all.find((c) => c.id === connection.id)).toMatchObject({ status: "errored" });
  });

  it("waits out a 429's Retry-After, and a 500 is retried by pg-boss without writing finished records again", async () => {
    const setup = await workspaceWithCompetitor(app);
    const company = hs.addCompany();
    const [first, second] = [hs.addDeal([company]), hs.addDeal([company])].sort() as [string, string];
    const connection = await connect(app, setup, "hubspot", hs, { [setup.competitor.id]: { account_ids: [company] } });
    const event = await newEvent(app, setup);
    hs.fail(
      { method: "POST", path: NOTES },
      {
        status: 429,
        headers: { "retry-after": "1" },
        body: {
          status: "error",
          message: "You have reached your secondly limit.",
          errorType: "RATE_LIMIT",
          correlationId: "c0a8b1f2-5f0e-4f55-9d8c-2f1c3a8a9d01",
          policyName: "SECONDLY",
          category: "RATE_LIMITS",
        },
      },
    );
    hs.fail(
      { method: "PATCH", path: dealPath(second) },
      {
        status: 502,
        body: {
          status: "error",
          message: "Bad Gateway",
          correlationId: "8e3a3b2e-2a7c-4a53-bb2b-0c9c5f3d2a11",
          category: "INTERNAL_ERROR",
        },
      },
    );

    await new EventFanOut(deps).deliver(event.id);
    const sync = await settled(app, connection.id, event.id, "done");

    const firstNotes = hs
      .requestsTo({ method: "POST", path: NOTES })
      .filter((r) => r.body.associations[0].to.id === first);
    expect(firstNotes).toHaveLength(2);
    expect(firstNotes[1]!.receivedAt - firstNotes[0]!.receivedAt).toBeGreaterThanOrEqual(1000);
    expect(hs.requestsTo({ path: dealPath(first) })).toHaveLength(1);
    expect(hs.requestsTo({ path: dealPath(second) })).toHaveLength(2);
    expect(notesOn(second)).toHaveLength(1);
    expect(sync).toMatchObject({ attempts: 2, records_total: 2, records_failed: 0, last_error: null });
  });

  it("records a refused deal with HubSpot's message and writes the others", async () => {
    const setup = await workspaceWithCompetitor(app);
    const company = hs.addCompany();
    const [a, b] = [hs.addDeal([company]), hs.addDeal([company])].sort() as [string, string];
    const connection = await connect(app, setup, "hubspot", hs, { [setup.competitor.id]: { account_ids: [company] } }, [
      "--fields",
      JSON.stringify({
        last_move: "competitor_last_move",
        last_move_date: "competitor_move_date",
        last_move_severity: "competitor_last_move_severity",
      }),
    ]);
    // The renamed date property exists on deal a only (HubSpot: PROPERTY_DOESNT_EXIST for b).
    hs.fail(
      { method: "PATCH", path: dealPath(b) },
      {
        status: 400,
        body: {
          status: "error",
          message:
            'Property values were not valid: [{"isValid":false,"message":"Property \\"competitor_move_date\\" does not exist","error":"PROPERTY_DOESNT_EXIST","name":"competitor_move_date"}]',
          correlationId: "3b1f0c1e-6c55-4bb1-9e3c-9c8f6d1f0a22",
          category: "VALIDATION_ERROR",
        },
      },
    );
    hs.dealProperties.add("competitor_move_date");
    const event = await newEvent(app, setup);

    await new EventFanOut(deps).deliver(event.id);
    const sync = await settled(app, connection.id, event.id, "done");

    const writes = await writesOf(app, sync.id);
    expect(writes.map((w) => [w.record_id, w.status])).toEqual([
      [a, "done"],
      [b, "failed"],
    ]);
    expect(writes[1]!.error).toBe(
      `HubSpot refused PATCH ${dealPath(b)}: 400 VALIDATION_ERROR: Property values were not valid: [{"isValid":false,"message":"Property \\"competitor_move_date\\" does not exist","error":"PROPERTY_DOESNT_EXIST","name":"competitor_move_date"}]`,
    );
    expect(hs.deals.get(a)!.properties.competitor_move_date).toBe(new Date().toISOString().slice(0, 10));
    expect(notesOn(a)).toHaveLength(1);
    expect(notesOn(b)).toHaveLength(0);
    expect(sync).toMatchObject({ records_total: 2, records_failed: 1 });
  });

  it("adds one rollup note per matched company per UTC day, associated with type 190, even when the job runs twice at once", async () => {
    const setup = await workspaceWithCompetitor(app);
    const beta = await createCompetitor(app, setup.owner, { name: "Beta", domain: "beta.com" });
    const betaSource = await addSource(app, setup.owner, beta);
    const shared = hs.addCompany({ domain: "shared.example" });
    const acmeOnly = hs.addCompany();
    const connection = await connect(app, setup, "hubspot", hs, {
      [setup.competitor.id]: { account_ids: [shared, acmeOnly] },
      [beta.id]: { filter: { domain: "shared.example" } },
    });
    const day = "2026-02-01";
    await newEvent(app, setup, {
      severity: "high",
      title: "Acme launched an API",
      detected_at: new Date(`${day}T10:00:00Z`),
    });
    await newEvent(app, setup, {
      competitorId: beta.id,
      sourceId: betaSource.sourceId,
      severity: "critical",
      title: "Beta cut prices by half",
      detected_at: new Date(`${day}T00:00:00Z`),
    });
    await newEvent(app, setup, {
      severity: "medium",
      title: "Acme below threshold",
      detected_at: new Date(`${day}T11:00:00Z`),
    });

    const now = new Date("2026-02-02T06:00:00Z");
    expect(await new CrmRollupSchedule(deps).enqueueDue(now)).toBeGreaterThanOrEqual(1);
    expect(await new CrmRollupSchedule(deps).enqueueDue(now)).toBe(0);
    const run = await knex()("crm_rollup_runs").where({ connection_id: connection.id }).first("id");
    await Promise.all([new CrmRollup(deps).run(run.id), new CrmRollup(deps).run(run.id)]);
    await waitFor(async () => (await knex()("crm_rollup_runs").where({ id: run.id }).first()).status === "done");
    await new CrmRollup(deps).run(run.id);

    const rollups = hs
      .requestsTo({ method: "POST", path: NOTES })
      .filter((r) => r.body.associations[0].types[0].associationTypeId === 190)
      .filter((r) => [shared, acmeOnly].includes(r.body.associations[0].to.id));
    const association = (id: string) => [
      { to: { id }, types: [{ associationCategory: "CRM_DEFINED", associationTypeId: 190 }] },
    ];
    expect(
      rollups.map((r) => r.body).sort((x, y) => x.associations[0].to.id.localeCompare(y.associations[0].to.id)),
    ).toEqual(
      [
        {
          properties: {
            crm_timestamp: "2026-02-01T00:00:00.000Z",
            crm_note_body: [
              "Competitor activity 2026-02-01",
              `[critical] Beta · pricing change: Beta cut prices by half (${betaSource.sourceUrl})`,
              `[high] Acme · pricing change: Acme launched an API (${setup.sourceUrl})`,
            ].join("\n"),
          },
          associations: association(shared),
        },
        {
          properties: {
            crm_timestamp: "2026-02-01T00:00:00.000Z",
            crm_note_body: [
              "Competitor activity 2026-02-01",
              `[high] Acme · pricing change: Acme launched an API (${setup.sourceUrl})`,
            ].join("\n"),
          },
          associations: association(acmeOnly),
        },
      ].sort((x, y) => x.associations[0]!.to.id.localeCompare(y.associations[0]!.to.id)),
    );
  });
});
