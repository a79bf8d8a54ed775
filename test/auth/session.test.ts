/**
 * The web app's browser session (POST/DELETE /auth/session, docs/product-rules.md#web-app-sessions): the token in an
 * HttpOnly, SameSite=Strict cookie, usable for unsafe methods only with the web client's header.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, TEST_PASSWORD } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

describe("browser sessions", () => {
  it("sets the token as an HttpOnly cookie, never in the body, and authenticates reads with it", async () => {
    const member = await createWorkspace(app);
    const res = await app.http.post("/auth/session").send({ email: member.email, password: TEST_PASSWORD }).expect(204);
    expect(res.text).toBe("");
    const cookie = res.headers["set-cookie"]![0]!;
    expect(cookie).toMatch(
      /^rivalscope_session=[\w-]+\.[\w-]+\.[\w-]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=86400$/,
    );
    const session = cookie.split(";")[0]!;
    const me = await app.http.get("/auth/me").set("Cookie", session).expect(200);
    expect(me.body.user.email).toBe(member.email);
  });

  it("ignores the cookie on a change without the web client's header (a forged cross-site request)", async () => {
    const member = await createWorkspace(app);
    const res = await app.http.post("/auth/session").send({ email: member.email, password: TEST_PASSWORD });
    const session = res.headers["set-cookie"]![0]!.split(";")[0]!;
    await app.http.post("/competitors").set("Cookie", session).send({ name: "Acme", domain: "acme.com" }).expect(401);
    await app.http
      .post("/competitors")
      .set("Cookie", session)
      .set("X-Rivalscope-Client", "web")
      .send({ name: "Acme", domain: "acme.com" })
      .expect(201);
  });

  it("refuses a wrong password like login, and closing the session expires the cookie", async () => {
    const member = await createWorkspace(app);
    await app.http.post("/auth/session").send({ email: member.email, password: "wrong password" }).expect(401);
    const closed = await app.http.delete("/auth/session").expect(204);
    expect(closed.headers["set-cookie"]![0]).toMatch(
      /^rivalscope_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0$/,
    );
  });
});
