/**
 * The embedded Postgres's clean-up when its process dies first: an uncaught error must still stop the server (and
 * exit non-zero, the error's own code, not one the clean-up chose).
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { waitFor } from "../setup/wait.js";

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it("stops the server when the process that started it crashes", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rivalscope-crash-pg-"));
  // The server runs as the `postgres` user when we are root, and must reach its data directory.
  chmodSync(dir, 0o755);
  try {
    const child = spawn(process.execPath, ["--import", "tsx", "test/meta/fixtures/crash-with-postgres.ts", dir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    const pid = Number(/postgres pid (\d+)/.exec(output)?.[1]);
    expect(pid, output).toBeGreaterThan(0);
    expect(output).toMatch(/crash on purpose/);
    expect(code).toBe(1);
    // Fast shutdown takes well under a second here; 10 s is a generous bound, not a sleep.
    await waitFor(async () => !isRunning(pid), 10_000, "the crashed process's Postgres to stop");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
