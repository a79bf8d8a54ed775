/**
 * The real entry point (`src/main.ts`) as a child process: roles, and graceful shutdown on SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueEmail } from "../../src/email/outbox.js";
import { startServiceProcess, type Role } from "../setup/service-process.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  // This in-process app sends only (ROLE=api), so the child processes alone decide who works the queues.
  app = await startTestApp({ ROLE: "api" });
});
afterAll(async () => app?.stop());

const startChild = (role: Role) => startServiceProcess(app, role);

const outboxHas = (subject: string, timeoutMs: number) =>
  waitFor(() => app.service.services.knex("email_outbox").where({ subject }).first(), timeoutMs).then(
    () => true,
    () => false,
  );

describe("roles", () => {
  it("ROLE=api serves HTTP and leaves jobs to workers; ROLE=worker works them and serves no HTTP", async () => {
    const api = await startChild("api");
    try {
      const health = await fetch(`${api.baseUrl}/health`);
      expect(await health.json()).toEqual({ service: "rivalscope", status: "ok" });
      const { jobs, knex } = app.service.services;
      await enqueueEmail(jobs, { to: "role@example.com", subject: "role test", text: "hi" }, knex);
      expect(await outboxHas("role test", 2000)).toBe(false);

      const worker = await startChild("worker");
      try {
        await expect(fetch(`${worker.baseUrl}/health`)).rejects.toThrow();
        expect(await outboxHas("role test", 10_000)).toBe(true);
      } finally {
        worker.process.kill("SIGTERM");
        expect(await worker.exited).toBe(0);
      }
    } finally {
      api.process.kill("SIGTERM");
      expect(await api.exited).toBe(0);
    }
  }, 180_000);
});

describe("graceful shutdown", () => {
  it("finishes an in-flight request after SIGTERM, then refuses new ones and exits 0", async () => {
    const child = await startChild("all");
    const base = child.baseUrl;
    // Sign-up hashes a password (~0.4 s): long enough to still be in flight when the signal arrives.
    const inFlight = fetch(`${base}/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: `sigterm-${Date.now()}@example.com`, name: "Sig Term", password: "long enough" }),
    });
    await new Promise((r) => setTimeout(r, 100));
    child.process.kill("SIGTERM");
    const response = await inFlight;
    expect(response.status).toBe(201);
    expect((await response.json()).token_type).toBe("bearer");
    expect(await child.exited).toBe(0);
    await expect(fetch(`${base}/health`)).rejects.toThrow();
    expect(child.output()).toMatch(/"msg":"stopped"/);
  }, 180_000);
});
