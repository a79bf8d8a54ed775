/**
 * The bench's database: a fresh database on the server of DATABASE_URL when it is set (dropped at the end),
 * otherwise on an ephemeral embedded PostgreSQL in the bench's temp folder (deleted with it).
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import pino from "pino";
import { ensureDatabase } from "../src/db/database.js";
import { startEmbeddedPostgres } from "../src/db/embedded-postgres.js";
import { startJobs, type Jobs } from "../src/jobs/boss.js";
import type { Cleanup } from "./cleanup.js";

export interface BenchDatabase {
  /** Connection string of the bench database. */
  url: string;
  /** Where the server came from, for the report. */
  server: "embedded (ephemeral, fsync off)" | "DATABASE_URL";
}

export async function openBenchDatabase(
  cleanup: Cleanup,
  tmpDir: string,
  serverUrlFromEnv: string | undefined,
): Promise<BenchDatabase> {
  let serverUrl = serverUrlFromEnv;
  if (!serverUrl) {
    const postgres = await startEmbeddedPostgres({ dir: path.join(tmpDir, "pg"), ephemeral: true });
    cleanup.add("stop the embedded Postgres", () => postgres.stop());
    serverUrl = postgres.url;
  }
  const name = `rivalscope_bench_${randomBytes(4).toString("hex")}`;
  await ensureDatabase(serverUrl, name);
  // An embedded server is deleted with its data; on someone else's server, remove what the bench created.
  if (serverUrlFromEnv) cleanup.add(`drop database ${name}`, () => dropDatabase(serverUrlFromEnv, name));
  return {
    url: withDatabase(serverUrl, name),
    server: serverUrlFromEnv ? "DATABASE_URL" : "embedded (ephemeral, fsync off)",
  };
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * The bench's own send-only pg-boss client, for queueing jobs as the service does (inside the bench's transactions).
 * `stop` may be called early and again by the cleanup: it stops the client once.
 */
export async function openBenchJobs(
  databaseUrl: string,
  cleanup: Cleanup,
): Promise<{ jobs: Jobs; stop: () => Promise<void> }> {
  const jobs = await startJobs({ connectionString: databaseUrl, log: pino({ level: "silent" }), worker: false });
  let stopped: Promise<void> | null = null;
  const stop = () => (stopped ??= jobs.stop());
  cleanup.add("stop the bench's pg-boss client", stop);
  return { jobs, stop };
}
