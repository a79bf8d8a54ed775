import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, createWorkspace, TEST_PASSWORD } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { SignJWT } from "jose";
import { untilCallerSees, waitFor } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const signUp = (email: string, extra: Record<string, unknown> = {}) =>
  app.http.post("/auth/signup").send({ email, name: "Ada Lovelace", password: "s3cret-enough", ...extra });

describe("POST /auth/signup", () => {
  it("creates a user and a free workspace owned by them, and returns a bearer token", async () => {
    const res = await signUp("ada@example.com").expect(201);
    expect(res.body.token_type).toBe("bearer");
    const me = await app.http.get("/auth/me").set("Authorization", `Bearer ${res.body.access_token}`).expect(200);
    expect(me.body.user).toMatchObject({ email: "ada@example.com", name: "Ada Lovelace", is_admin: false });
    const knex = app.service.services.knex;
    const workspace = await knex("workspaces").where({ id: me.body.workspace_id }).first();
    expect(workspace.plan).toBe("free");
    const membership = await knex("memberships")
      .where({ workspace_id: workspace.id, user_id: me.body.user.id })
      .first();
    expect(membership.role).toBe("owner");
    const user = await knex("users").where({ id: me.body.user.id }).first();
    expect(user.password_hash).toMatch(/^scrypt\$/);
    expect(user.password_hash).not.toContain("s3cret-enough");
  });

  it("answers 409 for an email that already has an account, whatever its case", async () => {
    await signUp("grace@example.com").expect(201);
    const res = await signUp("Grace@Example.com").expect(409);
    expect(res.body.detail).toMatch(/already exists/);
  });

  it("answers 422 for an invalid email, a short password and missing fields, all at once", async () => {
    const res = await app.http.post("/auth/signup").send({ email: "not-an-email", password: "short" }).expect(422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.email", "body.password", "body.name"]));
  });

  it("answers 422 for an unknown time zone and stores a known one", async () => {
    const bad = await signUp("tz@example.com", { digest_timezone: "Mars/Olympus" }).expect(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "digest_timezone"]);
    const good = await signUp("tz@example.com", { digest_timezone: "Europe/Paris" }).expect(201);
    expect(good.body.access_token).toBeTruthy();
  });
});

describe("POST /auth/login", () => {
  it("returns a token for the right password and the same 401 for a wrong password or an unknown email", async () => {
    const member = await createWorkspace(app);
    const res = await app.http.post("/auth/login").send({ email: member.email, password: TEST_PASSWORD }).expect(200);
    expect(res.body.token_type).toBe("bearer");
    const wrong = await app.http.post("/auth/login").send({ email: member.email, password: "nope" }).expect(401);
    const unknown = await app.http
      .post("/auth/login")
      .send({ email: "nobody@example.com", password: "nope" })
      .expect(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it("rate limits failed logins per email with 429 and Retry-After", async () => {
    const member = await createWorkspace(app);
    for (let i = 0; i < 10; i++) {
      await app.http.post("/auth/login").send({ email: member.email, password: "wrong" }).expect(401);
    }
    const limited = await app.http
      .post("/auth/login")
      .send({ email: member.email, password: TEST_PASSWORD })
      .expect(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
  });
});

describe("bearer tokens", () => {
  it("answers 401 with WWW-Authenticate without a token, with a malformed one, or with a tampered one", async () => {
    const member = await createWorkspace(app);
    for (const header of [undefined, "Bearer", "Bearer abc.def.ghi", "Basic dXNlcjpwYXNz", `Bearer ${member.token}x`]) {
      const req = app.http.get("/auth/me");
      if (header) req.set("Authorization", header);
      const res = await req.expect(401);
      expect(res.headers["www-authenticate"]).toBe("Bearer");
      expect(res.body).toEqual({ detail: "Not authenticated" });
    }
  });

  it("rejects a token signed with another algorithm, another issuer, or without exp", async () => {
    const member = await createWorkspace(app);
    const secret = Buffer.from(app.config.jwtSecret);
    const base = () => new SignJWT({ wid: member.workspaceId }).setSubject(member.userId).setIssuedAt();
    const tokens = [
      await base()
        .setProtectedHeader({ alg: "HS512" })
        .setIssuer("rivalscope")
        .setAudience("rivalscope-api")
        .setExpirationTime("1h")
        .sign(secret),
      await base()
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer("someone-else")
        .setAudience("rivalscope-api")
        .setExpirationTime("1h")
        .sign(secret),
      await base()
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer("rivalscope")
        .setAudience("other-api")
        .setExpirationTime("1h")
        .sign(secret),
      await base()
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer("rivalscope")
        .setAudience("rivalscope-api")
        .sign(secret),
      await base()
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer("rivalscope")
        .setAudience("rivalscope-api")
        .setExpirationTime("-1m")
        .sign(secret),
    ];
    for (const token of tokens) await app.http.get("/auth/me").set("Authorization", `Bearer ${token}`).expect(401);
  });

  it("stops working once the user is no longer a member of the token's workspace", async () => {
    const owner = await createWorkspace(app);
    const member = await addMember(app, owner.workspaceId);
    await app.http.get("/auth/me").set("Authorization", member.bearer).expect(200);
    await app.service.services.knex("memberships").where({ user_id: member.userId }).delete();
    // The removal's notice drops the cached caller (test/auth/consistency.test.ts).
    await untilCallerSees(() => app.http.get("/auth/me").set("Authorization", member.bearer), 401);
  });
});

describe("password reset", () => {
  const outbox = (to: string) =>
    app.service.services.knex("email_outbox").where({ to_address: to }).orderBy("created_at");

  const waitForMail = (to: string, count: number) =>
    waitFor(
      async () => {
        const mails = await outbox(to);
        return mails.length >= count && mails;
      },
      10_000,
      `${count} mail(s) to ${to}`,
    );

  it("answers the same for known and unknown addresses and mails a single-use link to known ones", async () => {
    const member = await createWorkspace(app);
    const known = await app.http.post("/auth/forgot-password").send({ email: member.email }).expect(200);
    const unknown = await app.http.post("/auth/forgot-password").send({ email: "ghost@example.com" }).expect(200);
    expect(known.body).toEqual(unknown.body);

    const [mail] = await waitForMail(member.email, 1);
    const token = /token=([\w-]+)/.exec(mail.text_body)![1]!;
    expect(mail.html_body).toContain(token);
    expect(await outbox("ghost@example.com")).toHaveLength(0);
    const stored = await app.service.services.knex("password_reset_tokens").where({ user_id: member.userId });
    expect(stored[0].token_hash).not.toBe(token);

    await app.http.post("/auth/reset-password").send({ token, password: "a brand new password" }).expect(200);
    await app.http.post("/auth/login").send({ email: member.email, password: "a brand new password" }).expect(200);
    await app.http.post("/auth/login").send({ email: member.email, password: TEST_PASSWORD }).expect(401);

    const reused = await app.http
      .post("/auth/reset-password")
      .send({ token, password: "another password" })
      .expect(422);
    expect(reused.body.detail[0]).toMatchObject({ loc: ["body", "token"], type: "value_error" });
  });

  it("invalidates an earlier link when a new one is requested, and rejects expired tokens", async () => {
    const member = await createWorkspace(app);
    const tokenIn = (mail: { text_body: string }) => /token=([\w-]+)/.exec(mail.text_body)![1]!;
    await app.http.post("/auth/forgot-password").send({ email: member.email }).expect(200);
    const first = tokenIn((await waitForMail(member.email, 1))[0]);
    await app.http.post("/auth/forgot-password").send({ email: member.email }).expect(200);
    const second = (await waitForMail(member.email, 2)).map(tokenIn).find((token) => token !== first)!;
    await app.http.post("/auth/reset-password").send({ token: first, password: "new password 1" }).expect(422);
    await app.service.services
      .knex("password_reset_tokens")
      .where({ user_id: member.userId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    await app.http.post("/auth/reset-password").send({ token: second, password: "new password 2" }).expect(422);
  });

  it("rate limits reset requests per address", async () => {
    for (let i = 0; i < 5; i++)
      await app.http.post("/auth/forgot-password").send({ email: "flood@example.com" }).expect(200);
    const res = await app.http.post("/auth/forgot-password").send({ email: "flood@example.com" }).expect(429);
    expect(res.headers["retry-after"]).toBeDefined();
  });
});
