/**
 * A password reset ends every session of the account: access tokens issued before it stop working at once, even one
 * the service verified (and cached) moments before, while a login after it works at once
 * (docs/product-rules.md#tokens-and-passwords).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, TEST_PASSWORD } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const me = (token: string) => app.http.get("/auth/me").set("Authorization", `Bearer ${token}`);

async function resetTokenMailedTo(email: string): Promise<string> {
  await app.http.post("/auth/forgot-password").send({ email }).expect(200);
  const mail = await waitFor(
    () => app.service.services.knex("email_outbox").where({ to_address: email }).first(),
    10_000,
    `the reset mail to ${email}`,
  );
  return /token=([\w-]+)/.exec(mail.text_body)![1]!;
}

describe("password reset and access tokens", () => {
  it("answers 401 to tokens issued before a reset, cached or not, and accepts a login right after it", async () => {
    const member = await createWorkspace(app);
    // Verified once, so the caller is cached (src/auth/context.ts).
    await me(member.token).expect(200);
    const loggedIn = await app.http.post("/auth/login").send({ email: member.email, password: TEST_PASSWORD });
    const earlier = loggedIn.body.access_token as string;
    await me(earlier).expect(200);

    const resetToken = await resetTokenMailedTo(member.email);
    await app.http.post("/auth/reset-password").send({ token: resetToken, password: "a fresh password" }).expect(200);

    for (const token of [member.token, earlier]) {
      const res = await me(token).expect(401);
      expect(res.headers["www-authenticate"]).toBe("Bearer");
      expect(res.body).toEqual({ detail: "Not authenticated" });
    }
    // Issued within the same second as the reset, most likely: it must work all the same.
    const after = await app.http
      .post("/auth/login")
      .send({ email: member.email, password: "a fresh password" })
      .expect(200);
    const res = await me(after.body.access_token).expect(200);
    expect(res.body.user.email).toBe(member.email);
  }, 120_000);

  it("leaves the tokens of other accounts alone", async () => {
    const member = await createWorkspace(app);
    const other = await createWorkspace(app);
    await me(other.token).expect(200);
    const resetToken = await resetTokenMailedTo(member.email);
    await app.http.post("/auth/reset-password").send({ token: resetToken, password: "a fresh password" }).expect(200);
    await me(member.token).expect(401);
    await me(other.token).expect(200);
  }, 120_000);
});
