/**
 * The CRM clients follow a vendor's paging cursor for at most MAX_PAGES pages (src/crm/client.ts): a vendor that keeps
 * offering another page (empty pages, pages of unusable ids) stops the listing with a clear error instead of being
 * followed for ever, and a sync that meets it fails with that message rather than retrying into the same loop.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PAGES } from "../../src/crm/client.js";
import { clientFor } from "../../src/crm/connections.js";
import { SALESFORCE_API } from "../../src/crm/salesforce.js";
import { CrmSync } from "../../src/crm/sync.js";
import { createHttpClient, type HttpClient } from "../../src/lib/http-client.js";
import { FakeHubSpot } from "../fakes/hubspot.js";
import { FakeSalesforce } from "../fakes/salesforce.js";
import { createCrmSync } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { connect, deliveryDeps, newEvent, workspaceWithCompetitor } from "./helpers.js";

let app: TestApp;
let hs: FakeHubSpot;
let sf: FakeSalesforce;
let http: HttpClient;
beforeAll(async () => {
  [app, hs, sf] = await Promise.all([startTestApp(), new FakeHubSpot().start(), new FakeSalesforce().start()]);
  http = createHttpClient({ allowPrivateTargets: true });
});
afterAll(async () => {
  await http?.close();
  await app?.stop();
  await Promise.all([hs?.stop(), sf?.stop()]);
});

const hubspot = () =>
  // A plaintext token (not sealed: the client opens it as it reads), of no stored row.
  clientFor({ http, config: app.config }, { id: "none", provider: "hubspot", base_url: hs.baseUrl, token: hs.token });
const salesforce = () =>
  clientFor(
    { http, config: app.config },
    { id: "none", provider: "salesforce", base_url: sf.baseUrl, token: sf.token },
  );
const COMPANY_SEARCH = "/crm/v3/objects/companies/search";
const DEAL_SEARCH = "/crm/v3/objects/deals/search";
/** A search page with nothing on it and a cursor to the next, for ever. */
const endlessSearchPage = { status: 200, body: { total: 0, results: [], paging: { next: { after: "100" } } } };

describe("CRM paging bound", () => {
  it("stops a HubSpot search whose cursor never ends after MAX_PAGES pages", async () => {
    hs.answer({ method: "POST", path: COMPANY_SEARCH }, endlessSearchPage, Infinity);
    hs.clearRequests();
    await expect(hubspot().findAccounts({ filter: { industry: "SOFTWARE" } })).rejects.toThrow(
      `HubSpot kept offering another page of the companies search after ${MAX_PAGES} pages; stopped following its cursor`,
    );
    expect(hs.requestsTo({ path: COMPANY_SEARCH })).toHaveLength(MAX_PAGES);
  });

  it("stops a HubSpot list whose memberships page on for ever", async () => {
    const list = hs.addList([]);
    const path = `/crm/v3/lists/${list}/memberships`;
    hs.answer(
      { method: "GET", path },
      { status: 200, body: { results: [], paging: { next: { after: "x" } } } },
      Infinity,
    );
    hs.clearRequests();
    await expect(hubspot().findAccounts({ view_id: list })).rejects.toThrow(`list ${list}'s members`);
    expect(hs.requestsTo({ path })).toHaveLength(MAX_PAGES);
  });

  it("stops a Salesforce query whose nextRecordsUrl never ends", async () => {
    const cursor = `${SALESFORCE_API}/query/01gD0000002HU6KIAW-2000`;
    const endless = { status: 200, body: { totalSize: 0, done: false, records: [], nextRecordsUrl: cursor } };
    sf.answer({ method: "GET", path: `${SALESFORCE_API}/query` }, endless, Infinity);
    sf.answer({ method: "GET", path: cursor }, endless, Infinity);
    sf.clearRequests();
    await expect(salesforce().findAccounts({ filter: { Industry: "Software" } })).rejects.toThrow(
      `Salesforce kept offering another page of the query results after ${MAX_PAGES} pages`,
    );
    expect(sf.requestsTo({ path: /\/query/ })).toHaveLength(MAX_PAGES);
  });

  it("stops a Salesforce list view that answers rows without ids and `done: false` for ever", async () => {
    const view = sf.addListView([]);
    const path = `${SALESFORCE_API}/sobjects/Account/listviews/${view}/results`;
    const rowWithoutId = { columns: [{ fieldNameOrPath: "Name", value: "Acme" }] };
    sf.answer({ method: "GET", path }, { status: 200, body: { done: false, records: [rowWithoutId] } }, Infinity);
    sf.clearRequests();
    await expect(salesforce().findAccounts({ view_id: view })).rejects.toThrow(`list view ${view}'s results`);
    expect(sf.requestsTo({ path })).toHaveLength(MAX_PAGES);
  });

  it("fails the sync with the paging error instead of retrying it", async () => {
    const setup = await workspaceWithCompetitor(app);
    const company = hs.addCompany();
    hs.answer({ method: "POST", path: DEAL_SEARCH }, endlessSearchPage, Infinity);
    const connection = await connect(app, setup, "hubspot", hs, { [setup.competitor.id]: { account_ids: [company] } });
    const event = await newEvent(app, setup);
    const sync = await createCrmSync(app, { connectionId: connection.id, eventId: event.id });

    expect(await new CrmSync(deliveryDeps(app)).run(sync.id)).toBe("failed");
    const row = await app.service.services.knex("crm_syncs").where({ id: sync.id }).first();
    expect(row).toMatchObject({ status: "failed", locked_until: null });
    expect(row.last_error).toMatch(/HubSpot kept offering another page of the deals search after \d+ pages/);
  });
});
