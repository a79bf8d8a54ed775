/** With the guard on (ALLOW_PRIVATE_TARGETS unset), sources pointing at private addresses are refused, clearly. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixtureSite } from "../fakes/fixture-site.js";
import { createCompetitor, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let site: FixtureSite;
beforeAll(async () => {
  [app, site] = await Promise.all([startTestApp({ ALLOW_PRIVATE_TARGETS: "0" }), new FixtureSite().start()]);
  site.serveFixture("/pricing", "pricing-v1.html");
});
afterAll(async () => {
  await app?.stop();
  await site?.stop();
});

describe("the SSRF guard on source fetches", () => {
  it.each([
    [
      "a loopback literal",
      (port: string) => `http://127.0.0.1:${port}/pricing`,
      "blocked: 127.0.0.1 is a private address",
    ],
    [
      "a name resolving to loopback",
      (port: string) => `http://localhost:${port}/pricing`,
      "blocked: localhost resolves to a private address",
    ],
    [
      "the cloud metadata address",
      () => "http://169.254.169.254/latest/meta-data/",
      "blocked: 169.254.169.254 is a private address",
    ],
  ])("refuses %s without retrying and without fetching", async (_label, url, message) => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member);
    const res = await app.http
      .post(`/competitors/${competitor.id}/sources`)
      .set("Authorization", member.bearer)
      .send({ source_type: "pricing", url: url(new URL(site.baseUrl).port) })
      .expect(201);
    const before = site.requests.length;
    expect(await app.service.pipeline.fetchSource(res.body.id)).toMatchObject({ kind: "failed", retryable: false });
    expect(site.requests.length).toBe(before);
    const source = await app.service.services.knex("sources").where({ id: res.body.id }).first();
    expect(source.error_message).toContain(message);
  });
});
