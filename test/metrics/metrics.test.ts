/**
 * `GET /metrics` (docs/operations.md#metrics) after real traffic: HTTP requests by operationId and status, a source
 * fetch and its job, an email sent by its job, pool and queue gauges, the event loop's lag; the scrape's access rule
 * (METRICS_TOKEN, loopback only without it) and a worker's own metrics server.
 */
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { scrapeRefusal, startMetricsServer } from "../../src/metrics/endpoint.js";
import { QUEUES } from "../../src/jobs/queues.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { createCompetitor, createWorkspace } from "../setup/factories.js";
import { queueSettled } from "../setup/jobs.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
let site: FixtureSite;
beforeAll(async () => {
  [app, site] = await Promise.all([startTestApp(), new FixtureSite().start()]);
});
afterAll(async () => {
  await app?.stop();
  await site?.stop();
});

/** The value of one series in the exposition text (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

async function scrape(): Promise<string> {
  // Outside the contract (an operator endpoint), so through the unchecked client.
  const res = await app.unchecked.get("/metrics").expect(200);
  expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

describe("GET /metrics", () => {
  it("counts requests by operationId and status, with latency histograms", async () => {
    const member = await createWorkspace(app);
    const before = await scrape();
    const okSeries = 'rivalscope_http_requests_total{operation="getCurrentUser",status="200"}';
    const deniedSeries = 'rivalscope_http_requests_total{operation="listCompetitors",status="401"}';
    for (let i = 0; i < 3; i++) await app.http.get("/auth/me").set("Authorization", member.bearer).expect(200);
    await app.http.get("/competitors").expect(401);
    await app.http.get("/no/such/route").expect(404);

    const after = await scrape();
    expect(sample(after, okSeries) - sample(before, okSeries)).toBe(3);
    expect(sample(after, deniedSeries) - sample(before, deniedSeries)).toBe(1);
    expect(sample(after, 'rivalscope_http_requests_total{operation="unmatched",status="404"}')).toBeGreaterThanOrEqual(
      1,
    );
    expect(
      sample(after, 'rivalscope_http_request_duration_seconds_count{operation="getCurrentUser"}'),
    ).toBeGreaterThanOrEqual(3);
    expect(after).toContain('rivalscope_http_request_duration_seconds_bucket{le="0.005",operation="getCurrentUser"}');
    // The process's own gauges.
    expect(after).toMatch(/^rivalscope_nodejs_eventloop_lag_seconds \d/m);
    expect(after).toMatch(/^rivalscope_db_pool_connections\{state="used"\} \d+/m);
    expect(after).toMatch(/^rivalscope_db_pool_connections\{state="free"\} \d+/m);
  });

  it("counts a fetch by outcome, its job by queue, an email by kind, and shows queue depth", async () => {
    const member = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, member, { name: "Acme", domain: "acme.test" });
    site.serveFixture("/metrics/pricing", "pricing-v1.html");
    const source = await app.http
      .post(`/competitors/${competitor.id}/sources`)
      .set("Authorization", member.bearer)
      .send({ source_type: "pricing", url: site.url("/metrics/pricing") })
      .expect(201);
    const before = await scrape();
    await app.http.post(`/sources/${source.body.id}/run-now`).set("Authorization", member.bearer).expect(202);
    const fetched = await waitFor(
      () => app.service.services.knex("sources").where({ id: source.body.id }).whereNotNull("last_fetched_at").first(),
      45_000,
      "the fetch",
    );
    expect(fetched.error_message).toBeNull();
    await app.http.post("/auth/forgot-password").send({ email: member.email }).expect(200);
    await queueSettled(app.service.services.knex, QUEUES.emailSend);

    const after = await waitFor(
      async () => {
        const text = await scrape();
        const fetched = 'rivalscope_jobs_total{queue="source-fetch",outcome="completed"}';
        return sample(text, fetched) > sample(before, fetched) && text;
      },
      10_000,
      "the fetch job's count",
    );
    const changed = 'rivalscope_source_fetches_total{outcome="changed"}';
    expect(sample(after, changed) - sample(before, changed)).toBe(1);
    const sent = 'rivalscope_emails_total{kind="message",outcome="sent"}';
    expect(sample(after, sent) - sample(before, sent)).toBeGreaterThanOrEqual(1);
    expect(after).toContain('rivalscope_job_batch_duration_seconds_count{queue="source-fetch"}');
    expect(after).toContain("# TYPE rivalscope_queue_depth gauge");
  });

  it("needs METRICS_TOKEN as a bearer when it is set, and a loopback client when it is not", () => {
    const from = (address: string, authorization?: string) =>
      ({ socket: { remoteAddress: address }, headers: authorization ? { authorization } : {} }) as IncomingMessage;
    const open = { ...app.config, metricsToken: null };
    expect(scrapeRefusal(open, from("127.0.0.1"))).toBeNull();
    expect(scrapeRefusal(open, from("::ffff:127.0.0.1"))).toBeNull();
    expect(scrapeRefusal(open, from("10.1.2.3"))).toMatchObject({ status: 403 });
    const guarded = { ...app.config, metricsToken: "s3cret-token" };
    expect(scrapeRefusal(guarded, from("10.1.2.3", "Bearer s3cret-token"))).toBeNull();
    expect(scrapeRefusal(guarded, from("127.0.0.1"))).toMatchObject({ status: 401 });
    expect(scrapeRefusal(guarded, from("127.0.0.1", "Bearer s3cret-tokem"))).toMatchObject({ status: 401 });
  });

  it("without METRICS_TOKEN, refuses a loopback peer that relays for someone else (a reverse proxy on the host)", async () => {
    const via = (headers: Record<string, string>) =>
      ({ socket: { remoteAddress: "127.0.0.1" }, headers }) as unknown as IncomingMessage;
    const open = { ...app.config, metricsToken: null };
    // A scraper on the host itself, however it names it.
    for (const host of ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", "localhost"]) {
      expect(scrapeRefusal(open, via({ host }))).toBeNull();
    }
    expect(scrapeRefusal(open, via({}))).toBeNull();
    // A proxy says whom it relays for, or passes the public host name on: either way the client is not local.
    const relayed: Record<string, string>[] = [
      { host: "127.0.0.1:8000", "x-forwarded-for": "203.0.113.9" },
      { host: "127.0.0.1:8000", forwarded: "for=203.0.113.9;proto=https" },
      { host: "127.0.0.1:8000", "x-real-ip": "203.0.113.9" },
      { host: "127.0.0.1:8000", via: "1.1 proxy" },
      { host: "127.0.0.1:8000", "x-forwarded-host": "api.rivalscope.example" },
      { host: "api.rivalscope.example" },
    ];
    for (const headers of relayed) {
      expect(scrapeRefusal(open, via(headers))).toMatchObject({ status: 403 });
    }
    // Over real HTTP too (this app has no METRICS_TOKEN).
    await app.unchecked.get("/metrics").set("X-Forwarded-For", "203.0.113.9").expect(403);
    await app.unchecked.get("/metrics").set("Host", "api.rivalscope.example").expect(403);
  });

  it("is served by a worker's own server on METRICS_PORT, with the token checked over real HTTP", async () => {
    const server = await startMetricsServer({ ...app.config, metricsToken: "worker-token" }, 0);
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const denied = await request(`${base}/metrics`);
      expect(denied.statusCode).toBe(401);
      expect(await denied.body.json()).toEqual({ detail: "Metrics need Authorization: Bearer <METRICS_TOKEN>" });
      const ok = await request(`${base}/metrics`, { headers: { authorization: "Bearer worker-token" } });
      expect(ok.statusCode).toBe(200);
      expect(await ok.body.text()).toContain("rivalscope_jobs_total");
      const other = await request(`${base}/elsewhere`);
      expect(other.statusCode).toBe(404);
      await other.body.dump();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
