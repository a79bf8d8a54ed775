/**
 * CRM write-back to Salesforce end to end: connections made with the admin CLI, events handed to the CRM consumer,
 * syncs run by the real worker against a fake Salesforce on 127.0.0.1 that records every request. Retry base 1 s so
 * pg-boss's backoff is observable within a test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventFanOut } from "../../src/delivery/consumers.js";
import { CrmRollup, CrmRollupSchedule } from "../../src/crm/rollup.js";
import { CrmSync } from "../../src/crm/sync.js";
import type { DeliveryDeps } from "../../src/delivery/types.js";
import { FakeSalesforce } from "../fakes/salesforce.js";
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
import { createCompetitor } from "../setup/factories.js";

const API = "/services/data/v60.0";

let app: TestApp;
let sf: FakeSalesforce;
let deps: DeliveryDeps;
beforeAll(async () => {
  [app, sf] = await Promise.all([startTestApp({ WEBHOOK_RETRY_BASE_SECONDS: "1" }), new FakeSalesforce().start()]);
  deps = deliveryDeps(app);
});
afterAll(async () => {
  await app?.stop();
  await sf?.stop();
});

const knex = () => app.service.services.knex;
const decode = (base64: string) => Buffer.from(base64, "base64").toString("utf8");
/** The requests that concern these opportunities or accounts (the fake is shared by the file's tests). */
const about = (ids: string[]) =>
  sf.requests.filter((r) =>
    ids.some((id) => r.path.includes(id) || (r.query.q ?? "").includes(id) || r.rawBody.includes(id)),
  );

describe("Salesforce write-back", () => {
  it("sends exactly the spec's requests for one event: SOQL for open opportunities, PATCH of the three fields, a base64 ContentNote shared V", async () => {
    const setup = await workspaceWithCompetitor(app);
    const account = sf.addAccount();
    const open = sf.addOpportunity(account);
    const closed = sf.addOpportunity(account, { IsClosed: true });
    const connection = await connect(app, setup, "salesforce", sf, {
      [setup.competitor.id]: { account_ids: [account] },
    });
    expect(connection).toMatchObject({ provider: "salesforce", severity_threshold: "high", status: "active" });
    const event = await newEvent(app, setup, {
      severity: "high",
      title: "Acme raised Pro from $49 to $59/month",
      confidence_score: 0.85,
      // 23:30 UTC: the date written is the UTC date of detected_at.
      detected_at: new Date("2026-11-20T23:30:00.000Z"),
    });

    await new EventFanOut(deps).deliver(event.id);
    const sync = await settled(app, connection.id, event.id, "done");

    const requests = about([account, open, closed]);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${API}/query`,
      `PATCH ${API}/sobjects/Opportunity/${open}`,
      `POST ${API}/sobjects/ContentNote`,
    ]);
    const [query, patch, note] = requests as [(typeof requests)[0], (typeof requests)[0], (typeof requests)[0]];
    expect(query.query).toEqual({
      q: `SELECT Id FROM Opportunity WHERE AccountId IN ('${account}') AND IsClosed = false`,
    });
    for (const request of requests) {
      expect(request.headers.authorization).toBe(`Bearer ${sf.token}`);
    }
    expect(patch.headers["content-type"]).toBe("application/json");
    expect(patch.body).toEqual({
      Competitor_Last_Move__c: "Acme raised Pro from $49 to $59/month",
      Competitor_Last_Move_Date__c: "2026-11-20",
      Competitor_Last_Move_Severity__c: "high",
    });
    expect(note.body).toEqual({
      Title: "Competitor move: Acme: Acme raised Pro from $49 to $59/month",
      Content: expect.any(String),
      FirstPublishLocationId: open,
      ShareType: "V",
    });
    expect(decode(note.body.Content)).toBe(
      [
        "Acme raised Pro from $49 to $59/month",
        "Acme · pricing change · severity high",
        `Source: ${setup.sourceUrl}`,
        "Confidence: 85%",
      ].join("\n"),
    );

    expect(sf.opportunities.get(open)).toMatchObject({
      Competitor_Last_Move__c: "Acme raised Pro from $49 to $59/month",
      StageName: "Prospecting",
      Amount: 50000,
    });
    expect(sync).toMatchObject({ records_total: 1, records_failed: 0, last_error: null, attempts: 1 });
    const [write] = await writesOf(app, sync.id);
    expect(write).toMatchObject({
      record_id: open,
      status: "done",
      error: null,
      note_id: [...sf.contentNotes.keys()].at(-1),
    });
  });

  it("resolves a filter mapping with an escaped SOQL WHERE on Account and follows nextRecordsUrl", async () => {
    const setup = await workspaceWithCompetitor(app);
    const industry = "O'Reilly\\Media";
    const first = sf.addAccount({ Industry: industry, NumberOfEmployees: 250 });
    const second = sf.addAccount({ Industry: industry, NumberOfEmployees: 250 });
    const other = sf.addAccount({ Industry: "O'Reilly", NumberOfEmployees: 250 });
    const opportunities = [sf.addOpportunity(first), sf.addOpportunity(second), sf.addOpportunity(second)];
    const untouched = sf.addOpportunity(other);
    const connection = await connect(app, setup, "salesforce", sf, {
      [setup.competitor.id]: { filter: { Industry: industry, NumberOfEmployees: 250 } },
    });
    const event = await newEvent(app, setup);
    sf.pageSize = 1;
    try {
      await new EventFanOut(deps).deliver(event.id);
      await settled(app, connection.id, event.id, "done");
    } finally {
      sf.pageSize = 2000;
    }

    const soql = sf.requestsTo({ method: "GET", path: `${API}/query` }).map((r) => r.query.q);
    expect(soql).toContain("SELECT Id FROM Account WHERE Industry = 'O\\'Reilly\\\\Media' AND NumberOfEmployees = 250");
    expect(soql).toContain(
      `SELECT Id FROM Opportunity WHERE AccountId IN ('${first}','${second}') AND IsClosed = false`,
    );
    // One page per record: the second account and the second and third opportunity came through nextRecordsUrl.
    expect(sf.requestsTo({ method: "GET", path: new RegExp(`^${API}/query/[\\w-]+$`) }).length).toBeGreaterThanOrEqual(
      3,
    );
    const patched = sf.requestsTo({ method: "PATCH" }).map((r) => r.path.split("/").at(-1));
    expect(patched).toEqual(expect.arrayContaining(opportunities));
    expect(patched).not.toContain(untouched);
  });

  it("resolves a list view mapping through the list view's results", async () => {
    const setup = await workspaceWithCompetitor(app);
    const accounts = [sf.addAccount(), sf.addAccount()];
    const view = sf.addListView(accounts);
    const opportunities = accounts.map((account) => sf.addOpportunity(account));
    const connection = await connect(app, setup, "salesforce", sf, { [setup.competitor.id]: { view_id: view } });
    const event = await newEvent(app, setup);

    await new EventFanOut(deps).deliver(event.id);
    const sync = await settled(app, connection.id, event.id, "done");

    const [listView] = sf.requestsTo({ path: `${API}/sobjects/Account/listviews/${view}/results` });
    expect(listView?.query).toEqual({ limit: "2000", offset: "0" });
    expect((await writesOf(app, sync.id)).map((w) => w.record_id)).toEqual([...opportunities].sort());
  });

  it("writes events at or above the connection's severity threshold only (inclusive)", async () => {
    const setup = await workspaceWithCompetitor(app);
    const account = sf.addAccount();
    const opportunity = sf.addOpportunity(account);
    const connection = await connect(
      app,
      setup,
      "salesforce",
      sf,
      { [setup.competitor.id]: { account_ids: [account] } },
      ["--severity-threshold", "medium"],
    );
    const low = await newEvent(app, setup, { severity: "low" });
    const medium = await newEvent(app, setup, { severity: "medium" });
    const critical = await newEvent(app, setup, { severity: "critical" });
    for (const event of [low, medium, critical]) await new EventFanOut(deps).deliver(event.id);

    expect(await syncOf(app, connection.id, low.id)).toBeUndefined();
    await settled(app, connection.id, medium.id, "done");
    await settled(app, connection.id, critical.id, "done");
    const patches = sf.requestsTo({ method: "PATCH", path: `${API}/sobjects/Opportunity/${opportunity}` });
    expect(patches.map((r) => r.body.Competitor_Last_Move_Severity__c).sort()).toEqual(["critical", "medium"]);
  });

  it("needs api_access: crm-connect refuses a Starter workspace, and a downgraded workspace's events are not written", async () => {
    const starter = await workspaceWithCompetitor(app, { plan: "starter" });
    await expect(
      connect(app, starter, "salesforce", sf, { [starter.competitor.id]: { account_ids: [sf.addAccount()] } }),
    ).rejects.toThrow(/starter plan; CRM write-back needs api_access \(growth or enterprise\)/);

    const setup = await workspaceWithCompetitor(app);
    const account = sf.addAccount();
    sf.addOpportunity(account);
    const connection = await connect(app, setup, "salesforce", sf, {
      [setup.competitor.id]: { account_ids: [account] },
    });
    await admin(app, "set-plan", setup.owner.workspaceId, "starter");
    const event = await newEvent(app, setup);
    await new EventFanOut(deps).deliver(event.id);

    expect(await syncOf(app, connection.id, event.id)).toBeUndefined();
    expect(about([account])).toEqual([]);
  });

  it("is idempotent: the consumer and the job run again write each record once", async () => {
    const setup = await workspaceWithCompetitor(app);
    const account = sf.addAccount();
    const opportunity = sf.addOpportunity(account);
    const connection = await connect(app, setup, "salesforce", sf, {
      [setup.competitor.id]: { account_ids: [account] },
    });
    const event = await newEvent(app, setup);

    await Promise.all([new EventFanOut(deps).deliver(event.id), new EventFanOut(deps).deliver(event.id)]);
    const sync = await settled(app, connection.id, event.id, "done");
    await new EventFanOut(deps).deliver(event.id);
    expect(await new CrmSync(deps).run(sync.id)).toBe("skipped");

    expect(await knex()("crm_syncs").where({ event_id: event.id }).select("id")).toHaveLength(1);
    expect(about([account, opportunity]).map((r) => r.method)).toEqual(["GET", "PATCH", "POST"]);
  });

  it("a 401 marks the connection errored with Salesforce's reason, shown by crm-status; no further calls until crm-connect runs again", async () => {
    const setup = await workspaceWithCompetitor(app);
    const account = sf.addAccount();
    sf.addOpportunity(account);
    const mapping = { [setup.competitor.id]: { account_ids: [account] } };
    const connection = await connect(
      app,
      setup,
      "salesforce",
      { baseUrl: sf.baseUrl, token: "00D5e000000AbCd!expired-session-token" },
      mapping,
    );
    const event = await newEvent(app, setup);

    await new EventFanOut(deps).deliver(event.id);
    const sync = await settled(app, connection.id, event.id, "stopped");
    const reason = "Salesforce rejected the token (401 INVALID_SESSION_ID: Session expired or invalid)";
    expect(sync.last_error).toBe(reason);
    expect(about([account])).toHaveLength(1);

    const [status] = (await admin(app, "crm-status", setup.owner.workspaceId)) as any[];
    expect(status).toMatchObject({ id: connection.id, status: "errored", last_error: reason, token_hint: "…oken" });
    expect(status.errored_at).toBeInstanceOf(Date);
    expect(JSON.stringify(status)).not.toContain("expired-session-token");

    // An errored connection takes no new syncs: no request reaches Salesforce.
    const later = await newEvent(app, setup);
    await new EventFanOut(deps).deliver(later.id);
    expect(await syncOf(app, connection.id, later.id)).toBeUndefined();
    expect(about([account])).toHaveLength(1);

    // Running crm-connect again (with a valid token) re-activates it.
    const fixed = await connect(app, setup, "salesforce", sf, mapping);
    expect(fixed).toMatchObject({ id: connection.id, status: "active", last_error: null, errored_at: null });
    const next = await newEvent(app, setup);
    await new EventFanOut(deps).deliver(next.id);
    await settled(app, connection.id, next.id, "done");
  });

  it("waits out a 429's Retry-After, and a 500 is retried by pg-boss without writing finished records again", async () => {
    const setup = await workspaceWithCompetitor(app);
    const account = sf.addAccount();
    const [first, second] = [sf.addOpportunity(account), sf.addOpportunity(account)].sort() as [string, string];
    const connection = await connect(app, setup, "salesforce", sf, {
      [setup.competitor.id]: { account_ids: [account] },
    });
    const event = await newEvent(app, setup);
    const limited = [{ message: "TotalRequests Limit exceeded.", errorCode: "REQUEST_LIMIT_EXCEEDED" }];
    sf.fail(
      { method: "PATCH", path: `${API}/sobjects/Opportunity/${first}` },
      { status: 429, body: limited, headers: { "retry-after": "1" } },
    );
    sf.fail(
      { method: "PATCH", path: `${API}/sobjects/Opportunity/${second}` },
      { status: 500, body: [{ message: "An unexpected error occurred.", errorCode: "UNKNOWN_EXCEPTION" }] },
    );

    await new EventFanOut(deps).deliver(event.id);
    const sync = await settled(app, connection.id, event.id, "done");

    const firstPatches = sf.requestsTo({ method: "PATCH", path: `${API}/sobjects/Opportunity/${first}` });
    expect(firstPatches.map((r) => r.body.Competitor_Last_Move_Severity__c)).toEqual(["high", "high"]);
    expect(firstPatches[1]!.receivedAt - firstPatches[0]!.receivedAt).toBeGreaterThanOrEqual(1000);
    expect(sf.requestsTo({ method: "PATCH", path: `${API}/sobjects/Opportunity/${second}` })).toHaveLength(2);
    const notes = sf.requestsTo({ method: "POST", path: `${API}/sobjects/ContentNote` });
    expect(notes.filter((r) => r.body.FirstPublishLocationId === first)).toHaveLength(1);
    expect(notes.filter((r) => r.body.FirstPublishLocationId === second)).toHaveLength(1);
    expect(sync).toMatchObject({ attempts: 2, records_total: 2, records_failed: 0, last_error: null });
  });

  it("records a refused opportunity with Salesforce's message and writes the others", async () => {
    const setup = await workspaceWithCompetitor(app);
    const account = sf.addAccount();
    const [a, b, c] = [sf.addOpportunity(account), sf.addOpportunity(account), sf.addOpportunity(account)].sort() as [
      string,
      string,
      string,
    ];
    const connection = await connect(app, setup, "salesforce", sf, {
      [setup.competitor.id]: { account_ids: [account] },
    });
    sf.fail(
      { method: "PATCH", path: `${API}/sobjects/Opportunity/${b}` },
      { status: 404, body: [{ errorCode: "NOT_FOUND", message: "The requested resource does not exist" }] },
    );
    const event = await newEvent(app, setup);

    await new EventFanOut(deps).deliver(event.id);
    const sync = await settled(app, connection.id, event.id, "done");

    const failure = `Salesforce refused PATCH ${API}/sobjects/Opportunity/${b}: 404 NOT_FOUND: The requested resource does not exist`;
    expect(
      (await writesOf(app, sync.id)).map(({ record_id, status, error }) => ({ record_id, status, error })),
    ).toEqual([
      { record_id: a, status: "done", error: null },
      { record_id: b, status: "failed", error: failure },
      { record_id: c, status: "done", error: null },
    ]);
    expect(sync).toMatchObject({
      records_total: 3,
      records_failed: 1,
      last_error: `1 of 3 record(s) failed; first: ${failure}`,
    });
    const noted = sf.requestsTo({ path: `${API}/sobjects/ContentNote` }).map((r) => r.body.FirstPublishLocationId);
    expect(noted).toEqual(expect.arrayContaining([a, c]));
    expect(noted).not.toContain(b);
  });

  it("adds one rollup Task per matched account per UTC day, even when the job runs twice at once", async () => {
    const setup = await workspaceWithCompetitor(app);
    const beta = await createCompetitor(app, setup.owner, { name: "Beta", domain: "beta.com" });
    const betaSource = await addSource(app, setup.owner, beta);
    const [shared, acmeOnly] = [sf.addAccount(), sf.addAccount()];
    const view = sf.addListView([shared]);
    const connection = await connect(app, setup, "salesforce", sf, {
      [setup.competitor.id]: { account_ids: [acmeOnly, shared] },
      [beta.id]: { view_id: view },
    });
    const day = "2026-03-14";
    await newEvent(app, setup, {
      severity: "high",
      title: "Acme launched an API",
      detected_at: new Date(`${day}T08:00:00Z`),
    });
    await newEvent(app, setup, {
      severity: "low",
      title: "Acme fixed a typo",
      detected_at: new Date(`${day}T09:00:00Z`),
    });
    await newEvent(app, setup, {
      competitorId: beta.id,
      sourceId: betaSource.sourceId,
      severity: "critical",
      title: "Beta cut prices by half",
      detected_at: new Date(`${day}T23:59:59Z`),
    });
    await newEvent(app, setup, {
      severity: "high",
      title: "Acme next day",
      detected_at: new Date("2026-03-15T00:00:00Z"),
    });

    const now = new Date("2026-03-15T00:01:00Z");
    expect(await new CrmRollupSchedule(deps).enqueueDue(now)).toBeGreaterThanOrEqual(1);
    expect(await new CrmRollupSchedule(deps).enqueueDue(now)).toBe(0);
    const run = await knex()("crm_rollup_runs").where({ connection_id: connection.id }).first("id");
    // The worker runs the queued job too: three runs race for the same (connection, day).
    await Promise.all([new CrmRollup(deps).run(run.id), new CrmRollup(deps).run(run.id)]);
    await waitFor(async () => (await knex()("crm_rollup_runs").where({ id: run.id }).first()).status === "done");
    await new CrmRollup(deps).run(run.id);

    const tasks = sf
      .requestsTo({ method: "POST", path: `${API}/sobjects/Task` })
      .filter((r) => [shared, acmeOnly].includes(r.body.WhatId));
    expect(tasks.map((r) => r.body).sort((x, y) => x.WhatId.localeCompare(y.WhatId))).toEqual(
      [
        {
          WhatId: acmeOnly,
          Subject: "Competitor activity 2026-03-14",
          Description: `[high] Acme · pricing change: Acme launched an API (${setup.sourceUrl})`,
          Status: "Completed",
          ActivityDate: "2026-03-14",
        },
        {
          WhatId: shared,
          Subject: "Competitor activity 2026-03-14",
          Description: [
            `[high] Acme · pricing change: Acme launched an API (${setup.sourceUrl})`,
            `[critical] Beta · pricing change: Beta cut prices by half (${betaSource.sourceUrl})`,
          ].join("\n"),
          Status: "Completed",
          ActivityDate: "2026-03-14",
        },
      ].sort((x, y) => x.WhatId.localeCompare(y.WhatId)),
    );
    const rows = await knex()("crm_rollups").where({ connection_id: connection.id }).orderBy("account_id");
    expect(rows.map((r) => [r.account_id, r.status, r.events_count])).toEqual(
      [
        [acmeOnly, "done", 1],
        [shared, "done", 2],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
  });
});
