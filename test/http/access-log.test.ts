/**
 * The access log (src/app.ts `requestLog`): one line per request, whose URL never carries a credential. An
 * unsubscribe link's `?token=` is valid for 90 days and a log is read by more people, and kept longer, than the mail
 * it came in (docs/operations.md#access-log).
 */
import pino from "pino";
import supertest from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactUrl } from "../../src/http/redact.js";
import { startService, type RunningService } from "../../src/server.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let logged: RunningService;
const lines: string[] = [];
beforeAll(async () => {
  app = await startTestApp({ ROLE: "api" });
  // A second API process on the same database whose application log (pino, at `info`) is kept in `lines`.
  logged = await startService(
    { ...app.config, role: "api", logLevel: "info" },
    { listen: false, log: pino({ level: "info" }, { write: (line: string) => lines.push(line) }) },
  );
});
afterAll(async () => {
  await logged?.stop();
  await app?.stop();
});

const accessLines = () =>
  lines
    .join("")
    .split("\n")
    .filter((line) => line.includes('"msg":"request completed"'))
    .map((line) => JSON.parse(line) as { req: { url: string } });

describe("the access log", () => {
  it("redacts tokens and other credentials in logged URLs, and keeps every other parameter", async () => {
    const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1bnN1YnNjcmliZSJ9.c2lnbmF0dXJl";
    await supertest(logged.app!).get(`/unsubscribe?token=${token}`);
    await supertest(logged.app!).get(`/no-such-route?lang=en&access_token=abc123&API_KEY=k3y&signature=s1g#frag`);
    await supertest(logged.app!).get("/events?limit=5&offset=10");
    const urls = accessLines().map((line) => line.req.url);
    expect(urls).toEqual(
      expect.arrayContaining([
        "/unsubscribe?token=[redacted]",
        "/no-such-route?lang=en&access_token=[redacted]&API_KEY=[redacted]&signature=[redacted]",
        "/events?limit=5&offset=10",
      ]),
    );
    const log = lines.join("");
    for (const secret of [token, "abc123", "k3y", "s1g"]) expect(log).not.toContain(secret);
  });

  it("leaves URLs without credentials as they are, and redacts whatever a parameter's value holds", () => {
    expect(redactUrl("/competitors")).toBe("/competitors");
    expect(redactUrl("/x?token")).toBe("/x?token");
    expect(redactUrl("/x?token=a%20b&token=c")).toBe("/x?token=[redacted]&token=[redacted]");
    expect(redactUrl("/x?q=token%3Dabc")).toBe("/x?q=token%3Dabc");
    expect(redactUrl("/x?password=p&code=c&client_secret=s&limit=1")).toBe(
      "/x?password=[redacted]&code=[redacted]&client_secret=[redacted]&limit=1",
    );
  });
});
