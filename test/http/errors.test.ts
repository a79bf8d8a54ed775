/** Cross-cutting HTTP behaviour: error envelopes, routing, access rules, pending operations. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pendingReply } from "../../src/handlers.js";
import { PENDING_OPERATIONS } from "../../src/pending.js";
import { addMember, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

describe("error envelopes", () => {
  it("answers unknown routes with a JSON 404", async () => {
    const res = await app.http.get("/no/such/route").expect(404);
    expect(res.body).toEqual({ detail: "Not Found" });
    expect(res.headers["content-type"]).toMatch(/application\/json/);
  });

  it("answers a known path with an unsupported method with a JSON 405", async () => {
    const res = await app.http.put("/competitors").expect(405);
    expect(res.body).toEqual({ detail: "Method Not Allowed" });
  });

  it("answers malformed JSON with a 422 json_invalid, never a stack trace", async () => {
    const member = await createWorkspace(app);
    const res = await app.http
      .post("/competitors")
      .set("Authorization", member.bearer)
      .set("Content-Type", "application/json")
      .send('{"name": "Acme", ')
      .expect(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it("answers a body of the wrong content type with 422", async () => {
    const member = await createWorkspace(app);
    const res = await app.http
      .post("/competitors")
      .set("Authorization", member.bearer)
      .set("Content-Type", "text/plain")
      .send("name=Acme")
      .expect(422);
    expect(res.body.detail[0].loc[0]).toBe("body");
  });

  it("reports every missing body field with FastAPI-style locations", async () => {
    const res = await app.http.post("/auth/login").send({}).expect(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ["body", "email"], msg: "Field required", type: "missing" },
        { loc: ["body", "password"], msg: "Field required", type: "missing" },
      ]),
    );
  });

  it("validates scalar query parameters as scalars and reports them under query", async () => {
    const admin = await createWorkspace(app, { isAdmin: true });
    const tooMany = await app.http.get("/admin/jobs?limit=5000").set("Authorization", admin.bearer).expect(422);
    expect(tooMany.body.detail).toEqual([
      expect.objectContaining({ loc: ["query", "limit"], type: "less_than_equal" }),
    ]);
    const notANumber = await app.http.get("/admin/jobs?limit=many").set("Authorization", admin.bearer).expect(422);
    expect(notANumber.body.detail[0]).toMatchObject({ loc: ["query", "limit"], type: "integer_type" });
    await app.http.get("/admin/jobs?limit=5").set("Authorization", admin.bearer).expect(200);
  });

  it("answers a malformed percent-encoding in the path with 422 on a known route and 404 elsewhere", async () => {
    const member = await createWorkspace(app);
    const known = await app.http
      .delete("/digests/suppressions/%E0%A4%A")
      .set("Authorization", member.bearer)
      .expect(422);
    expect(known.body.detail[0]).toMatchObject({ loc: ["path"], type: "value_error" });
    await app.http.get("/nowhere/%E0%A4%A").expect(404);
  });

  it("carries a request id on every response, echoing a valid incoming one", async () => {
    const res = await app.http.get("/health").set("X-Request-Id", "trace-123").expect(200);
    expect(res.headers["x-request-id"]).toBe("trace-123");
    const generated = await app.http.get("/health").expect(200);
    expect(generated.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("access rules (docs/product-rules.md#access-and-roles)", () => {
  it("answers 401 before anything else on authenticated operations", async () => {
    await app.http.get("/admin/jobs").expect(401);
    await app.http.post("/competitors").send({ bad: true }).expect(401);
  });

  it("answers 403 to non-admins on /admin/* and /support/*, before validation", async () => {
    const member = await createWorkspace(app, { plan: "enterprise" });
    const jobs = await app.http.get("/admin/jobs?limit=5000").set("Authorization", member.bearer).expect(403);
    expect(jobs.body.detail).toMatch(/administrators/);
    await app.http.get("/support/threads").set("Authorization", member.bearer).expect(403);
  });

  it("answers 403 on the partner API without api_access", async () => {
    const member = await createWorkspace(app, { plan: "starter" });
    const res = await app.http
      .get(`/v1/workspaces/${member.workspaceId}`)
      .set("Authorization", member.bearer)
      .expect(403);
    expect(res.body.detail).toMatch(/API access/);
  });

  it("keeps billing and the deliveries view for owners", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const member = await addMember(app, owner.workspaceId);
    await app.http.post("/billing/portal").set("Authorization", member.bearer).expect(403);
    await app.http.post("/billing/checkout").set("Authorization", member.bearer).send({ plan: "growth" }).expect(403);
  });
});

describe("operations in the contract before their code", () => {
  it("answer 501 with a detail naming the operation, while listed in src/pending.ts", () => {
    // Every operation is built today (PENDING_OPERATIONS is empty); the reply an operation added contract-first gets.
    expect(PENDING_OPERATIONS).toEqual([]);
    expect(pendingReply("getMyPlan")).toEqual({ status: 501, body: { detail: "getMyPlan is not available yet" } });
  });
});
