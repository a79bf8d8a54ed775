/**
 * Opens the service's database: `DATABASE_URL` when set, otherwise the embedded Postgres under `<dataDir>/pg`
 * (docs/architecture.md#embedded-postgres). Either way the schema is migrated before anything uses it.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Knex } from "knex";
import pg from "pg";
import type { Config } from "../config.js";
import { startEmbeddedPostgres } from "./embedded-postgres.js";
import { bindModels, createKnex, migrateLatest } from "./knex.js";

export interface Database {
  url: string;
  knex: Knex;
  close(): Promise<void>;
}

const EMBEDDED_DATABASE = "rivalscope";
/** Where the process that started the embedded Postgres leaves its URL for other processes on this data dir. */
const EMBEDDED_URL_FILE = "postgres-url";

async function runningEmbeddedUrl(dataDir: string): Promise<string | null> {
  const file = path.join(dataDir, EMBEDDED_URL_FILE);
  if (!existsSync(file)) return null;
  const url = readFileSync(file, "utf8").trim();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return url;
  } catch {
    return null; // left behind by a process that did not shut down cleanly
  } finally {
    await client.end().catch(() => {});
  }
}

export async function openDatabase(
  config: Pick<Config, "databaseUrl" | "dataDir">,
  onLog?: (m: string) => void,
): Promise<Database> {
  let url = config.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | null = null;
  if (url === null) {
    // Another process (a running `npm start`) may already serve this data directory: share its server, since
    // Postgres allows one postmaster per directory. That also lets the admin CLI run beside the service.
    url = await runningEmbeddedUrl(config.dataDir);
  }
  if (url === null) {
    const embedded = await startEmbeddedPostgres({ dir: path.join(config.dataDir, "pg"), onLog });
    await ensureDatabase(embedded.url, EMBEDDED_DATABASE);
    url = embedded.url.replace(/\/postgres$/, `/${EMBEDDED_DATABASE}`);
    const urlFile = path.join(config.dataDir, EMBEDDED_URL_FILE);
    writeFileSync(urlFile, url, { mode: 0o600 });
    stopEmbedded = async () => {
      rmSync(urlFile, { force: true });
      await embedded.stop();
    };
  }
  const knex = createKnex(url);
  try {
    await migrateLatest(knex);
  } catch (error) {
    await knex.destroy();
    await stopEmbedded?.();
    throw error;
  }
  bindModels(knex);
  return {
    url,
    knex,
    async close() {
      await knex.destroy();
      await stopEmbedded?.();
    },
  };
}

/** Creates `name` on the server unless it exists (CREATE DATABASE cannot run inside a transaction or take binds). */
export async function ensureDatabase(serverUrl: string, name: string, template?: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe database name ${name}`);
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
  } finally {
    await client.end();
  }
}
