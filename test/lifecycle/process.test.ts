/**
 * The real entry point (`src/main.ts`) as a child process: roles, and graceful shutdown on SIGTERM.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/db/embedded-postgres.js";
import { enqueueEmail } from "../../src/email/outbox.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  // This in-process app sends only (ROLE=api), so the child processes alone decide who works the queues.
  app = await startTestApp({ ROLE: "api" });
});
afterAll(async () => app?.stop());

interface Child {
  process: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function startChild(role: "all" | "api" | "worker"): Promise<Child> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: app.config.databaseUrl!,
      DATA_DIR: app.config.dataDir,
      JWT_SECRET: randomBytes(32).toString("hex"),
      PORT: String(port),
      ROLE: role,
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  for (let i = 0; i < 200 && !/"msg":"(listening|started)"/.test(output); i++) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!/"msg":"(listening|started)"/.test(output)) throw new Error(`child did not start:\n${output}`);
  return { process: child, port, output: () => output, exited };
}

const outboxHas = (subject: string, timeoutMs: number) =>
  waitFor(() => app.service.services.knex("email_outbox").where({ subject }).first(), timeoutMs).then(
    () => true,
    () => false,
  );

describe("roles", () => {
  it("ROLE=api serves HTTP and leaves jobs to workers; ROLE=worker works them and serves no HTTP", async () => {
    const api = await startChild("api");
    try {
      const health = await fetch(`http://127.0.0.1:${api.port}/health`);
      expect(await health.json()).toEqual({ service: "rivalscope", status: "ok" });
      const { jobs, knex } = app.service.services;
      await enqueueEmail(jobs, { to: "role@example.com", subject: "role test", text: "hi" }, knex);
      expect(await outboxHas("role test", 2000)).toBe(false);

      const worker = await startChild("worker");
      try {
        await expect(fetch(`http://127.0.0.1:${worker.port}/health`)).rejects.toThrow();
        expect(await outboxHas("role test", 10_000)).toBe(true);
      } finally {
        worker.process.kill("SIGTERM");
        expect(await worker.exited).toBe(0);
      }
    } finally {
      api.process.kill("SIGTERM");
      expect(await api.exited).toBe(0);
    }
  }, 60_000);
});

describe("graceful shutdown", () => {
  it("finishes an in-flight request after SIGTERM, then refuses new ones and exits 0", async () => {
    const child = await startChild("all");
    const base = `http://127.0.0.1:${child.port}`;
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
  }, 60_000);
});
