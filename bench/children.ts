/**
 * Servers under test run in child processes of their own (docs/architecture.md#performance-targets: the load generator
 * must not share the server's event loop). Each child logs to a file in the bench's temp folder; its tail is shown when
 * it fails.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../src/db/embedded-postgres.js";
import type { Cleanup } from "./cleanup.js";
import { sleep } from "./util.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface RunningChild {
  name: string;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  pid: number;
  logFile: string;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface ChildOptions {
  name: string;
  /** TypeScript entry point, relative to the repository root; run with `node --import tsx` like `npm start`. */
  entry: string;
  /** The whole environment of the child (nothing of the bench's own environment leaks in but PATH and HOME). */
  env: Record<string, string>;
  logDir: string;
  /** Path answered with 2xx once the server is ready. */
  readyPath: string;
  readyHeaders?: Record<string, string>;
  cleanup: Cleanup;
  readyTimeoutMs?: number;
}

/** Starts the child on a free loopback port (given as `PORT`) and waits until `readyPath` answers 2xx. */
export async function startChild(options: ChildOptions): Promise<RunningChild> {
  const port = await freePort();
  const logFile = path.join(options.logDir, `${options.name}.log`);
  const fd = openSync(logFile, "a");
  let child: ChildProcess;
  try {
    // Profiling the children: BENCH_CHILD_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench -- webhooks
    // (Node refuses --cpu-prof in NODE_OPTIONS).
    const nodeArgs = process.env.BENCH_CHILD_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
    child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", options.entry], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/tmp",
        ...options.env,
        HOST: "127.0.0.1",
        PORT: String(port),
      },
      stdio: ["ignore", fd, fd],
    });
  } finally {
    closeSync(fd); // the child holds its own copy
  }
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  const pid = child.pid!;
  let stopping: Promise<void> | null = null;
  const stop = (graceMs = 25_000) =>
    (stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
      if ((await Promise.race([exited, timer])) === "timeout") {
        child.kill("SIGKILL");
        await Promise.race([exited, sleep(5_000)]);
      }
    })());
  options.cleanup.add(`stop ${options.name} (pid ${pid})`, () => stop());

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + (options.readyTimeoutMs ?? 60_000);
  for (let attempt = 0; attempt < 1_000; attempt++) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${options.name} exited before it was ready (code ${child.exitCode}):\n${tail(logFile)}`);
    }
    try {
      const response = await fetch(`${baseUrl}${options.readyPath}`, {
        headers: options.readyHeaders,
        signal: AbortSignal.timeout(2_000),
      });
      await response.arrayBuffer();
      if (response.ok) return { name: options.name, baseUrl, pid, logFile, stop };
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) break;
    await sleep(100);
  }
  throw new Error(`${options.name} was not ready at ${baseUrl}${options.readyPath} in time:\n${tail(logFile)}`);
}

/** The last lines of a child's log, for failure messages. */
export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}
