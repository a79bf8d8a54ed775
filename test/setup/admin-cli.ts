/**
 * `npm run admin -- …` as an operator runs it: its own process, its own connection, nothing shared with the service
 * under test. It runs node with tsx's loader, which is what the npm script runs, without npm's own start-up.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Each run loads the service's modules through tsx: about 10 s of a quiet core, several times that on a busy one, so
 * a test that runs the CLI as a process allows this much.
 */
export const ADMIN_CLI_TIMEOUT_MS = 180_000;

/** Resolves with stdout and stderr; rejects on a non-zero exit with an error carrying `code`, `stdout`, `stderr`. */
export function runAdminCli(
  argv: string[],
  env: Record<string, string | undefined>,
): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ["--import", "tsx", "src/cli/admin.ts", ...argv], { env: { ...process.env, ...env } });
}

/** The lines a failed run wrote to stderr. */
export function stderrLines(failure: { stderr?: string }): string[] {
  return (failure.stderr ?? "").trim().split("\n");
}
