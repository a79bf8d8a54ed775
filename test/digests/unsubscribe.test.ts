/**
 * One-click unsubscribe (RFC 8058, docs/product-rules.md#one-click-unsubscribe): the link of a real digest mail, the
 * confirmation page, the POST a mail client sends, and the 404/422 answers for bad tokens.
 */
import { createHmac, createSecretKey } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UnsubscribeLinks } from "../../src/digests/unsubscribe.js";
import { createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ PUBLIC_BASE_URL: "https://app.rivalscope.test" });
});
afterAll(async () => {
  await app?.stop();
});

const knex = () => app.service.services.knex;

/** The token of the unsubscribe link in the digest mail `owner` received. */
async function tokenFromMail(owner: TestMember): Promise<string> {
  const digest = await app.http.post("/digests?period_type=weekly").set("Authorization", owner.bearer).expect(201);
  await app.http.post(`/digests/${digest.body.id}/send`).set("Authorization", owner.bearer).expect(200);
  const mail = await knex()("email_outbox").where({ to_address: owner.email }).first();
  const link = /^<(.+)>$/.exec(mail.headers["List-Unsubscribe"])![1]!;
  return new URL(link).searchParams.get("token")!;
}

const NOT_FOUND = { detail: "Unsubscribe link is invalid or has expired" };

describe("GET /unsubscribe", () => {
  it("shows a confirmation page naming the address, with a button that POSTs, and changes nothing", async () => {
    const owner = await createWorkspace(app, { name: "Northwind <Ops>" });
    const token = await tokenFromMail(owner);
    const res = await app.http.get(`/unsubscribe?token=${token}`).expect(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.text).toContain(`<strong>${owner.email}</strong>`);
    expect(res.text).toContain("Northwind &lt;Ops&gt;");
    expect(res.text).toContain('<form method="post">');
    expect(await knex()("suppressed_emails").where({ workspace_id: owner.workspaceId })).toEqual([]);
  });

  it("answers 404 for a tampered token and 422 without one", async () => {
    const owner = await createWorkspace(app);
    const token = await tokenFromMail(owner);
    const res = await app.http.get(`/unsubscribe?token=${token.slice(0, -2)}xx`).expect(404);
    expect(res.body).toEqual(NOT_FOUND);
    await app.http.get("/unsubscribe").expect(422);
  });
});

describe("POST /unsubscribe", () => {
  it("suppresses the address as a mail client's one-click POST does, idempotently", async () => {
    const owner = await createWorkspace(app);
    const token = await tokenFromMail(owner);
    const res = await app.http
      .post(`/unsubscribe?token=${token}`)
      .set("content-type", "application/x-www-form-urlencoded")
      .send("List-Unsubscribe=One-Click")
      .expect(200);
    expect(res.body).toEqual({ email: owner.email, suppressed: true });

    const list = await app.http.get("/digests/suppressions").set("Authorization", owner.bearer).expect(200);
    expect(list.body).toMatchObject([{ email: owner.email, reason: "unsubscribe", detail: null }]);

    await app.http.post(`/unsubscribe?token=${token}`).expect(200);
    const again = await app.http.get("/digests/suppressions").set("Authorization", owner.bearer).expect(200);
    expect(again.body).toEqual(list.body);

    // The next digest reaches the owner as a `suppressed` delivery, without mail.
    const digest = await app.http.post("/digests?period_type=daily").set("Authorization", owner.bearer).expect(201);
    const sent = await app.http.post(`/digests/${digest.body.id}/send`).set("Authorization", owner.bearer).expect(200);
    expect(sent.body.delivery_summary).toMatchObject({ suppressed: 1, sent: 0, total: 1 });
  });

  it("keeps an existing suppression's reason", async () => {
    const owner = await createWorkspace(app);
    const token = await tokenFromMail(owner);
    await app.http
      .post("/digests/suppressions")
      .set("Authorization", owner.bearer)
      .send({ email: owner.email, reason: "manual" })
      .expect(201);
    await app.http.post(`/unsubscribe?token=${token}`).expect(200);
    const list = await app.http.get("/digests/suppressions").set("Authorization", owner.bearer).expect(200);
    expect(list.body).toMatchObject([{ reason: "manual" }]);
  });

  it("rejects expired tokens, tokens signed with another key and access tokens with 404", async () => {
    const owner = await createWorkspace(app);
    const links = new UnsubscribeLinks(app.config);
    const expired = new URL(
      await links.url({ workspaceId: owner.workspaceId, email: owner.email }, new Date(Date.now() - 91 * 86_400_000)),
    ).searchParams.get("token")!;
    expect((await app.http.post(`/unsubscribe?token=${expired}`).expect(404)).body).toEqual(NOT_FOUND);

    const otherKey = createSecretKey(createHmac("sha256", "another secret").update("rivalscope:unsubscribe").digest());
    const forged = await new SignJWT({ wid: owner.workspaceId, email: owner.email })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(app.config.jwtIssuer)
      .setAudience("rivalscope:unsubscribe")
      .setExpirationTime("1h")
      .sign(otherKey);
    await app.http.post(`/unsubscribe?token=${forged}`).expect(404);
    await app.http.post(`/unsubscribe?token=${owner.token}`).expect(404);
    await app.http.post("/unsubscribe?token=not-a-token").expect(404);
    await app.http.post("/unsubscribe").expect(422);
    expect(await knex()("suppressed_emails").where({ workspace_id: owner.workspaceId })).toEqual([]);
  });
});
