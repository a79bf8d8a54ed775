import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/setup/global-setup.ts"],
    pool: "forks",
    // Each test file gets its own database cloned from a migrated template (test/setup/test-app.ts), so files run in
    // parallel without seeing each other's rows.
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
