/**
 * The real entry point (`src/main.ts`, as `npm start` runs it) in a child process on the test app's database, for
 * tests of roles, shutdown and many processes. It shares the app's data folder (so the same key for sealed secrets)
 * and JWT secret (so the factories' tokens work against it), and logs at `info` to a buffer tests can read.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "../../src/db/embedded-postgres.js";
import type { TestApp } from "./test-app.js";
import { waitFor } from "./wait.js";

export type Role = "all" | "api" | "worker";

export interface ServiceProcess {
  name: string;
  process: ChildProcess;
  /** `http://127.0.0.1:<port>`; a worker listens on nothing. */
  baseUrl: string;
  /** The last 20,000 characters of its stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Sends `signal` (SIGTERM by default) unless it has exited, and waits until it has. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startServiceProcess(
  app: TestApp,
  role: Role,
  options: { name?: string; env?: Record<string, string> } = {},
): Promise<ServiceProcess> {
  const name = options.name ?? role;
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: app.config.databaseUrl!,
      DATA_DIR: app.config.dataDir,
      JWT_SECRET: Buffer.from(app.config.jwtSecret).toString(),
      ALLOW_PRIVATE_TARGETS: "1",
      HOST: "127.0.0.1",
      PORT: String(port),
      ROLE: role,
      LOG_LEVEL: "info",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  // Ready once it says so: "listening" for the api roles, "started" for a worker (which serves no HTTP).
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited before it was ready:\n${output}`);
      return /"msg":"(listening|started)"/.test(output) ? true : null;
    },
    // Seconds alone; far longer beside the many-processes test, whose six children compile and start at once.
    90_000,
    `${name} to start`,
  ).catch(async (error) => {
    await stop("SIGKILL");
    throw error;
  });
  return { name, process: child, baseUrl: `http://127.0.0.1:${port}`, output: () => output, exited, stop };
}
