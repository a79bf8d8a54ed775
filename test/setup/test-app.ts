/**
 * One running service per test file, on its own database cloned from the migrated template, driven in-process with
 * supertest. Every response goes through the contract check (contract.ts).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import supertest from "supertest";
import { inject } from "vitest";
import { loadConfig, type Config } from "../../src/config.js";
import { ensureDatabase } from "../../src/db/database.js";
import { QUEUES } from "../../src/jobs/queues.js";
import { startService, type RunningService } from "../../src/server.js";
import { loadContract, matchesContract } from "./contract.js";
import { withDatabase } from "./global-setup.js";
import { queueSettled } from "./jobs.js";

export interface TestApp {
  service: RunningService;
  config: Readonly<Config>;
  /** supertest bound to the app; each request is checked against the contract. */
  http: ContractClient;
  /** supertest without the contract check: only for routes outside the contract (the /docs static assets). */
  unchecked: supertest.Agent;
  /** Where the app listens on 127.0.0.1, for clients other than supertest (the generated SDK). */
  baseUrl: string;
  stop(): Promise<void>;
}

export interface ContractClient {
  get(path: string): supertest.Test;
  post(path: string): supertest.Test;
  patch(path: string): supertest.Test;
  put(path: string): supertest.Test;
  delete(path: string): supertest.Test;
}

/** Environment for the test service; tests add provider URLs and secrets through `env`. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  await loadContract();
  const database = `t_${randomBytes(6).toString("hex")}`;
  const serverUrl = inject("postgresServerUrl");
  await ensureDatabase(serverUrl, database, inject("templateDatabase"));
  const config = loadConfig({
    DATABASE_URL: withDatabase(serverUrl, database),
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "rivalscope-test-data-")),
    JWT_SECRET: randomBytes(32).toString("hex"),
    ALLOW_PRIVATE_TARGETS: "1",
    LOG_LEVEL: "silent",
    // The scheduler ticks once at start and then hourly: tests that need it tick it themselves, with the clock they
    // need, so a periodic tick never races a test (say, queueing a CRM rollup before the test's events exist).
    SCHEDULER_TICK_SECONDS: "3600",
    ...env,
  });
  const service = await startService(config, {
    listen: false,
    log: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  });
  // The first tick starts with the service: let it finish, and let the digest runs it queued (the latest daily and
  // weekly slots) generate theirs, so neither sees the test's data half made (a workspace the test creates would
  // otherwise get a scheduled digest or not, depending on timing).
  if (service.scheduler) {
    await service.scheduler.idle();
    await queueSettled(service.services.knex, QUEUES.digestGenerate, {}, 30_000);
  }
  return await testAppOf(service, config);
}

/**
 * Another API process (`ROLE=api`) on the same database as `app`, with its own pools and caches, as a second
 * process behind a load balancer would be.
 */
export async function startSecondApi(app: TestApp): Promise<TestApp> {
  const config = { ...app.config, role: "api" as const };
  const service = await startService(config, {
    listen: false,
    log: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  });
  return await testAppOf(service, config);
}

async function testAppOf(service: RunningService, config: Readonly<Config>): Promise<TestApp> {
  // One server for the file, listening before the first request: given the bare app, supertest would listen on a new
  // port and close it again around every request (about a millisecond each, thousands of times in the fuzz test).
  const server = createServer(service.app!);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const agent = supertest.agent(server);
  const http: ContractClient = {
    get: (p) => agent.get(p).expect(matchesContract),
    post: (p) => agent.post(p).expect(matchesContract),
    patch: (p) => agent.patch(p).expect(matchesContract),
    put: (p) => agent.put(p).expect(matchesContract),
    delete: (p) => agent.delete(p).expect(matchesContract),
  };
  const stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await service.stop();
  };
  const { port } = server.address() as AddressInfo;
  return { service, config, http, unchecked: agent, baseUrl: `http://127.0.0.1:${port}`, stop };
}
