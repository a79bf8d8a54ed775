/**
 * Once per test run: a real Postgres (DATABASE_URL when set, otherwise an ephemeral embedded one) with a template
 * database that is migrated and has pg-boss's schema installed. Each test file clones it (test-app.ts).
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import type { TestProject } from "vitest/node";
import { ensureDatabase } from "../../src/db/database.js";
import { startEmbeddedPostgres } from "../../src/db/embedded-postgres.js";
import { createKnex, migrateLatest } from "../../src/db/knex.js";
import { startJobs } from "../../src/jobs/boss.js";

export const TEMPLATE_DATABASE = "rivalscope_test_template";

declare module "vitest" {
  export interface ProvidedContext {
    postgresServerUrl: string;
    templateDatabase: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let serverUrl = process.env.DATABASE_URL ?? null;
  let stopPostgres: (() => Promise<void>) | null = null;
  let dataDir: string | null = null;
  if (!serverUrl) {
    dataDir = mkdtempSync(path.join(tmpdir(), "rivalscope-test-pg-"));
    // mkdtemp makes the folder private to root; the server runs as the `postgres` user and must reach its data dir.
    chmodSync(dataDir, 0o755);
    const postgres = await startEmbeddedPostgres({ dir: path.join(dataDir, "pg"), ephemeral: true });
    serverUrl = postgres.url;
    stopPostgres = postgres.stop;
  }
  const admin = createKnex(serverUrl, { max: 1 });
  await admin.raw(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
  await admin.destroy();
  await ensureDatabase(serverUrl, TEMPLATE_DATABASE);

  const templateUrl = withDatabase(serverUrl, TEMPLATE_DATABASE);
  const knex = createKnex(templateUrl, { max: 2 });
  await migrateLatest(knex);
  await knex.destroy();
  const jobs = await startJobs({
    connectionString: templateUrl,
    log: pino({ level: "silent" }),
    worker: false,
  });
  await jobs.stop();

  project.provide("postgresServerUrl", serverUrl);
  project.provide("templateDatabase", TEMPLATE_DATABASE);

  return async () => {
    await stopPostgres?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
}

export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
