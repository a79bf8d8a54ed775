/**
 * A customer's first day, driven only through the generated SDK (generated/sdk.ts: openapi-fetch over the
 * openapi-typescript types of generated/openapi.json) against the running server over real HTTP. Every path, method,
 * parameter and body field below is checked by the compiler against the contract, and every response the SDK
 * receives goes through the contract check all tests use: a contract slip fails this file at compile or run time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRivalscopeClient, OPERATIONS, type RivalscopeClient } from "../../generated/sdk.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { checkResponse } from "../setup/contract.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
let site: FixtureSite;
/** Operations the journey called, by id, as the contract check matched them. */
const called = new Set<string>();

beforeAll(async () => {
  app = await startTestApp();
  site = await new FixtureSite().start();
});
afterAll(async () => {
  await site?.stop();
  await app?.stop();
});

/** The SDK as a customer builds it, plus the suite's contract check on every response it receives. */
function sdk(token?: string): RivalscopeClient {
  const client = createRivalscopeClient({ baseUrl: app.baseUrl, token });
  client.use({
    async onResponse({ request, response, schemaPath }) {
      const url = new URL(request.url);
      const text = await response.clone().text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      checkResponse({
        method: request.method,
        path: url.pathname + url.search,
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body,
        text,
      });
      const operation = Object.entries(OPERATIONS).find(
        ([, op]) => op.method === request.method && op.path === schemaPath,
      );
      if (operation) called.add(operation[0]);
      return response;
    },
  });
  return client;
}

describe("a customer journey through the generated SDK", () => {
  it("signs up, tracks a pricing page, sees its change as an event, acknowledges it and gets a digest", async () => {
    const email = `journey-${Date.now()}@example.com`;
    const signedUp = await sdk().POST("/auth/signup", {
      body: { email, name: "Journey Customer", password: "a long enough password" },
    });
    expect(signedUp.response.status).toBe(201);
    const token = signedUp.data!.access_token;
    const login = await sdk().POST("/auth/login", { body: { email, password: "a long enough password" } });
    expect(login.response.status).toBe(200);
    const api = sdk(token);

    const competitor = await api.POST("/competitors", { body: { name: "Acme Analytics", domain: "acme.test" } });
    expect(competitor.response.status).toBe(201);
    const competitorId = competitor.data!.id;

    site.serveFixture("/pricing", "pricing-v1.html");
    const source = await api.POST("/competitors/{competitor_id}/sources", {
      params: { path: { competitor_id: competitorId } },
      body: { source_type: "pricing", url: site.url("/pricing") },
    });
    expect(source.response.status).toBe(201);
    const sourceId = source.data!.id;

    const run = async () => {
      const queued = await api.POST("/sources/{source_id}/run-now", { params: { path: { source_id: sourceId } } });
      expect(queued.response.status).toBe(202);
      expect(["queued", "already_queued"]).toContain(queued.data!.status);
    };
    const fetchedAfter = (after: string | null) =>
      waitFor(
        async () => {
          const { data } = await api.GET("/competitors/{competitor_id}/sources", {
            params: { path: { competitor_id: competitorId } },
          });
          const tracked = data!.find((item) => item.id === sourceId);
          return tracked?.last_success_at && tracked.last_success_at !== after ? tracked.last_success_at : null;
        },
        30_000,
        "the source fetched",
      );

    // The first fetch (queued when the source was created, or by run-now) is the baseline: no events yet.
    await run();
    const baseline = await fetchedAfter(null);
    const none = await api.GET("/events", { params: { query: { competitor_id: competitorId } } });
    expect(none.data).toEqual([]);

    site.serveFixture("/pricing", "pricing-v2.html");
    await run();
    await fetchedAfter(baseline);
    const listed = await waitFor(
      async () => {
        const { data } = await api.GET("/events", {
          params: { query: { competitor_id: competitorId, event_type: "pricing_change" } },
        });
        return data && data.length > 0 ? data : null;
      },
      30_000,
      "a pricing event",
    );
    const event = listed[0]!;
    expect(event.competitor_id).toBe(competitorId);

    const detail = await api.GET("/events/{event_id}", { params: { path: { event_id: event.id } } });
    expect(detail.response.status).toBe(200);
    expect(detail.data!.event.id).toBe(event.id);
    expect(detail.data!.competitor_name).toBe("Acme Analytics");
    expect(detail.data!.source_url).toBe(site.url("/pricing"));

    const acknowledged = await api.PATCH("/events/{event_id}/status", {
      params: { path: { event_id: event.id }, query: { status: "acknowledged" } },
    });
    expect(acknowledged.data).toEqual({ id: event.id, status: "acknowledged", learned_rule_ids: [] });
    const reread = await api.GET("/events/{event_id}", { params: { path: { event_id: event.id } } });
    expect(reread.data!.event.status).toBe("acknowledged");

    const digest = await api.POST("/digests", { params: { query: { period_type: "daily" } } });
    expect(digest.response.status).toBe(201);
    const stored = await api.GET("/digests/{digest_id}", { params: { path: { digest_id: digest.data!.id } } });
    expect(stored.data!.id).toBe(digest.data!.id);

    // Errors come back typed too: another workspace's event is a 404 with the error envelope.
    const stranger = await sdk().POST("/auth/signup", {
      body: { email: `stranger-${Date.now()}@example.com`, name: "Stranger", password: "a long enough password" },
    });
    const foreign = await sdk(stranger.data!.access_token).GET("/events/{event_id}", {
      params: { path: { event_id: event.id } },
    });
    expect(foreign.response.status).toBe(404);
    expect(foreign.error).toMatchObject({ detail: expect.any(String) });

    expect([...called].sort()).toEqual(
      [
        "createCompetitor",
        "createCompetitorSource",
        "createDigest",
        "getDigest",
        "getEvent",
        "listCompetitorSources",
        "listEvents",
        "logIn",
        "runSourceNow",
        "signUp",
        "updateEventStatus",
      ].sort(),
    );
  }, 120_000);
});
