/**
 * Pages that fetch fine but cannot be stored or read as they are: every such failure is recorded on the source with a
 * clear message (docs/product-rules.md#detection), so the scheduler waits the source's frequency before trying again
 * and the customer sees why. Before, any error other than a FetchError skipped the record: the source was queued again
 * on every scheduler tick and showed no error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixtureSite } from "../fakes/fixture-site.js";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
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

/** The first bytes of a PNG file: its signature and the start of its header chunk, NUL bytes included. */
const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x01,
  0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x06, 0x00, 0x00, 0x00, 0x5c, 0x72, 0xa8, 0x66, 0x00, 0x00, 0x00, 0x01, 0x73,
]);

let counter = 0;
async function track(
  page: Parameters<FixtureSite["set"]>[1],
): Promise<{ member: TestMember; competitorId: string; sourceId: string }> {
  const member = await createWorkspace(app, { plan: "growth" });
  const competitor = await createCompetitor(app, member, { name: "Acme", domain: "acme.test" });
  const path = `/failures/${++counter}`;
  site.set(path, page);
  const res = await app.http
    .post(`/competitors/${competitor.id}/sources`)
    .set("Authorization", member.bearer)
    .send({ source_type: "pricing", url: site.url(path) })
    .expect(201);
  return { member, competitorId: competitor.id, sourceId: res.body.id };
}

const sourceRow = (id: string) => app.service.services.knex("sources").where({ id }).first();

describe("pages that cannot be read", () => {
  it("records 'not a text page' for an image, so the scheduler waits the source's frequency", async () => {
    const { member, competitorId, sourceId } = await track({ bytes: PNG, contentType: "image/png" });
    expect(await app.service.pipeline.fetchSource(sourceId)).toEqual({
      kind: "failed",
      message: "not a text page: image/png",
      retryable: false,
    });
    const source = await sourceRow(sourceId);
    expect(source).toMatchObject({ error_message: "not a text page: image/png", consecutive_failures: 1 });
    // last_fetched_at is what the scheduler adds the frequency to.
    expect(source.last_fetched_at).not.toBeNull();
    expect(await app.service.services.knex("snapshots").where({ source_id: sourceId })).toEqual([]);
    const listed = await app.http
      .get(`/competitors/${competitorId}/sources`)
      .set("Authorization", member.bearer)
      .expect(200);
    expect(listed.body[0].error_message).toBe("not a text page: image/png");
  });

  it("records binary content served as HTML as not a text page", async () => {
    const junk = Buffer.alloc(4096, 0);
    const { sourceId } = await track({ bytes: junk, contentType: "text/html" });
    expect(await app.service.pipeline.fetchSource(sourceId)).toMatchObject({
      kind: "failed",
      message: "not a text page: binary content sent as text/html",
    });
    expect((await sourceRow(sourceId)).error_message).toBe("not a text page: binary content sent as text/html");
  });

  it("stores a page with stray NUL bytes without them, and reads it", async () => {
    const page =
      '<html><body><div class="plans"><div class="plan card"><h3>Pro\u0000</h3><p class="price">$49/mo</p></div>' +
      '<div class="plan card"><h3>Team</h3><p class="price">$9\u00009/mo</p></div></div></body></html>';
    const { sourceId } = await track(page);
    expect(await app.service.pipeline.fetchSource(sourceId)).toMatchObject({ kind: "changed" });
    const snapshot = await app.service.services.knex("snapshots").where({ source_id: sourceId }).first();
    expect(snapshot.body).not.toContain("\u0000");
    expect(
      snapshot.extraction.pricing.map((plan: { name: string; amount: number }) => [plan.name, plan.amount]),
    ).toEqual([
      ["Pro", 49],
      ["Team", 99],
    ]);
    expect((await sourceRow(sourceId)).error_message).toBeNull();
  });

  it("stores structured data whose strings Postgres would refuse (a lone surrogate, an escaped NUL)", async () => {
    const jsonLd =
      '{"@type":"Product","name":"P","offers":[{"@type":"Offer","name":"Pro\\ud800","price":"49","priceCurrency":"USD"},' +
      '{"@type":"Offer","name":"Team\\u0000","price":"99","priceCurrency":"USD"}]}';
    const { sourceId } = await track(`<html><head><script type="application/ld+json">${jsonLd}</script></head></html>`);
    expect(await app.service.pipeline.fetchSource(sourceId)).toMatchObject({ kind: "changed" });
    const snapshot = await app.service.services.knex("snapshots").where({ source_id: sourceId }).first();
    expect(snapshot.extraction.pricing.map((plan: { name: string }) => plan.name)).toEqual(["Pro\ufffd", "Team"]);
  });
});
