/**
 * The public auth operations cannot be used to exhaust the process: password hashes are computed only for requests
 * that may succeed, at most two at a time, and sign-up, login and reset-password are rate limited per email address
 * and per client address (docs/product-rules.md#tokens-and-passwords). The client address is the one express derives
 * (`trust proxy` is `loopback`, so the tests name it with `X-Forwarded-For`).
 */
import { gzip } from "node:zlib";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, TEST_PASSWORD } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";
import { watchScrypt, type ScryptProbe } from "./scrypt-probe.js";

let app: TestApp;
let probe: ScryptProbe | undefined;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());
afterEach(() => {
  probe?.restore();
  probe = undefined;
});

const from = (ip: string) => ({
  signUp: (email: string) =>
    app.http
      .post("/auth/signup")
      .set("X-Forwarded-For", ip)
      .send({ email, name: "Mallory", password: "a long enough password" }),
  logIn: (email: string, password: string) =>
    app.http.post("/auth/login").set("X-Forwarded-For", ip).send({ email, password }),
  resetPassword: (token: string) =>
    app.http
      .post("/auth/reset-password")
      .set("X-Forwarded-For", ip)
      .send({ token, password: "a long enough password" }),
});

const expectRetryAfter = (res: { headers: Record<string, string> }) =>
  expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);

describe("password hashing", () => {
  it("rejects an unknown reset token without computing a password hash", async () => {
    probe = watchScrypt();
    const res = await from("192.0.2.10").resetPassword("not-a-real-token").expect(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ["body", "token"], type: "value_error" });
    expect(probe.started).toBe(0);
  });

  it("runs at most two hashes at once, keeps the thread pool free for other work, and answers 429 when too many wait", async () => {
    // Factory users' hashes are cheap (test/setup/factories.ts): their logins fill the queue without lengthening the test.
    const members = await Promise.all(Array.from({ length: 10 }, () => createWorkspace(app)));
    probe = watchScrypt();
    const watching = probe;
    // Four hashes at full cost: enough to occupy all four threads of libuv's pool if nothing held them back.
    const signUps = Array.from({ length: 4 }, (_, i) =>
      from(`198.51.100.${i + 1}`)
        .signUp(`burst-${i}@example.com`)
        .then((res) => res),
    );
    await waitFor(async () => watching.active >= 2, 30_000, "two hashes to start");
    // Two sign-ups wait for a slot, and these logins after them: ten places in the queue for twelve requests.
    const logIns = members.map((member, i) =>
      from(`198.51.100.${i + 101}`)
        .logIn(member.email, TEST_PASSWORD)
        .then((res) => res),
    );
    // zlib runs on the thread pool too: with threads to spare it finishes before any hash that was running, rather
    // than waiting behind them. libuv hands completions to the event loop in the order they finished, so this holds
    // however slow the loop itself is.
    const finishedBefore = probe.finished;
    await promisify(gzip)(Buffer.alloc(1024, "a"));
    const finishedDuringGzip = probe.finished - finishedBefore;

    const signedUp = await Promise.all(signUps);
    const loggedIn = await Promise.all(logIns);
    expect(probe.peak).toBeLessThanOrEqual(2);
    expect(finishedDuringGzip).toBe(0);
    // Twelve requests for ten places in the queue: some are refused, whichever came last.
    const answers = [...signedUp, ...loggedIn];
    expect(answers.every((res) => [200, 201, 429].includes(res.status))).toBe(true);
    expect(signedUp.filter((res) => res.status === 201).length).toBeGreaterThanOrEqual(2);
    const refused = answers.filter((res) => res.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const res of refused) expectRetryAfter(res);
  }, 120_000);
});

describe("rate limits", () => {
  it("limits sign-up attempts per client address", async () => {
    const existing = await Promise.all(Array.from({ length: 10 }, () => createWorkspace(app)));
    const client = from("203.0.113.20");
    for (const member of existing) await client.signUp(member.email).expect(409);
    const limited = await client.signUp("fresh-address@example.com").expect(429);
    expectRetryAfter(limited);
    expect(limited.body.detail).toEqual(expect.any(String));
    // Another client address is not affected.
    await from("203.0.113.21").signUp("fresh-address@example.com").expect(201);
  }, 120_000);

  it("limits sign-up attempts per email address, from any client address", async () => {
    const member = await createWorkspace(app);
    for (let i = 1; i <= 5; i++)
      await from(`203.0.113.${100 + i}`)
        .signUp(member.email)
        .expect(409);
    expectRetryAfter(await from("203.0.113.120").signUp(member.email.toUpperCase()).expect(429));
  }, 120_000);

  it("limits reset-password attempts per client address", async () => {
    const client = from("203.0.113.30");
    for (let i = 0; i < 20; i++) await client.resetPassword(`guess-${i}`).expect(422);
    expectRetryAfter(await client.resetPassword("guess-20").expect(429));
    await from("203.0.113.31").resetPassword("guess-21").expect(422);
  }, 120_000);

  it("locks out failed logins per email and client address, so others' failures cannot lock the owner out", async () => {
    const owner = await createWorkspace(app);
    const attacker = from("203.0.113.40");
    for (let i = 0; i < 10; i++) await attacker.logIn(owner.email, `wrong-${i}`).expect(401);
    expectRetryAfter(await attacker.logIn(owner.email, TEST_PASSWORD).expect(429));

    const res = await from("198.51.100.200").logIn(owner.email, TEST_PASSWORD).expect(200);
    expect(res.body.token_type).toBe("bearer");
  }, 120_000);
});
