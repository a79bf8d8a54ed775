import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/setup/global-setup.ts"],
    pool: "forks",
    // Each test file gets its own database cloned from a migrated template (test/setup/test-app.ts), so files run in
    // parallel without seeing each other's rows.
    fileParallelism: true,
    // Vitest's default is one worker per core less one: a single file at a time on the 2-core machines CI runs on.
    // Most of a file's time is spent waiting (child processes, pg-boss polling, HTTP fakes), so two overlap well.
    maxWorkers: 2,
    // A worker keeps its modules from one file to the next instead of importing the app again for each (about 8 s of
    // transform and import per file: 806 s → 360 s for the suite). Safe because each file starts its own service on
    // its own database, and src/ keeps no per-request state at module level.
    isolate: false,
    // Generous: a timeout here is a guard against a hang, not a speed target (those live in `npm run bench`). On two
    // busy cores a test that takes 5 s alone has taken over 30 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
