/**
 * Values the JSON schema allows but Postgres refuses must be a 422 naming the field, never a 500
 * (docs/product-rules.md#validation).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStorableDateTime } from "../../src/http/formats.js";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

describe("isStorableDateTime", () => {
  it("accepts RFC 3339 date-times Postgres stores, and refuses year 0000 and offsets beyond ±14:00", () => {
    for (const ok of [
      "2026-11-24T10:00:00Z",
      "0001-01-01T00:00:00Z",
      "2026-11-24T10:00:00.123+14:00",
      "2026-01-01T00:00:00-12:00",
    ]) {
      expect(isStorableDateTime(ok), ok).toBe(true);
    }
    for (const bad of [
      "0000-01-01T00:00:00Z",
      "2024-01-01T00:00:00+23:00",
      "2024-01-01T00:00:00-14:01",
      "2024-02-30T00:00:00Z",
      "2024-01-01",
    ]) {
      expect(isStorableDateTime(bad), bad).toBe(false);
    }
  });
});

describe("values Postgres cannot store", () => {
  let app: TestApp;
  let owner: TestMember;

  beforeAll(async () => {
    app = await startTestApp();
    owner = await createWorkspace(app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const locsOf = (res: { body: { detail: { loc: unknown[] }[] } }) => res.body.detail.map((d) => d.loc.join("."));

  it("answers 422 at query.since for year 0000 and for a +23:00 offset (both were 500s)", async () => {
    for (const since of ["0000-01-01T00:00:00Z", "2024-01-01T00:00:00+23:00"]) {
      const res = await app.http.get("/events").query({ since }).set("authorization", owner.bearer).expect(422);
      expect(locsOf(res)).toEqual(["query.since"]);
    }
  });

  it("answers 422 naming the field for a NUL character in a query, a body field and an array item", async () => {
    const search = await app.http.get("/events").query({ search: "a\u0000b" }).set("authorization", owner.bearer);
    expect(search.status).toBe(422);
    expect(locsOf(search)).toEqual(["query.search"]);

    const competitor = await app.http
      .post("/competitors")
      .set("authorization", owner.bearer)
      .send({ name: "Acme\u0000", domain: "acme.com" })
      .expect(422);
    expect(locsOf(competitor)).toEqual(["body.name"]);

    const existing = await createCompetitor(app, owner);
    const renamed = await app.http
      .patch(`/competitors/${existing.id}`)
      .set("authorization", owner.bearer)
      .send({ name: "Acme", aliases: ["ok", "bad\u0000"] })
      .expect(422);
    expect(locsOf(renamed)).toEqual(["body.aliases.1"]);
  });
});
