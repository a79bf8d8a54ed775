/**
 * The breaking-change gate: `npm run check:breaking`, run by .ci/run.
 *
 * contract/released/openapi.json is the contract of the last release, what clients generated their code from.
 * generated/openapi.json must not break it: Optic's breaking-change rules (a removed operation, response status or
 * response property, a narrowed or changed type, a new required parameter or request field, a removed enum value)
 * decide. An intended break is released deliberately: copy generated/openapi.json over the released file, raise
 * `info.version` in spec/main.tsp, and say what broke under that version in CHANGELOG.md, all in one commit. The gate
 * also checks that CHANGELOG.md has a section for the released file's version, so the released file cannot move
 * without one.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RELEASED = "contract/released/openapi.json";
const CURRENT = "generated/openapi.json";

function releasedVersionIsInChangelog(): string | null {
  const version = (JSON.parse(readFileSync(path.join(root, RELEASED), "utf8")) as { info: { version: string } }).info
    .version;
  const changelog = readFileSync(path.join(root, "CHANGELOG.md"), "utf8");
  const heading = new RegExp(`^## ${version.replace(/\./g, "\\.")}(\\s|$)`, "m");
  return heading.test(changelog) ? null : `CHANGELOG.md has no "## ${version}" section for ${RELEASED}`;
}

function main(): void {
  const changelogProblem = releasedVersionIsInChangelog();
  if (changelogProblem) {
    console.error(`check:breaking: ${changelogProblem}`);
    process.exit(1);
  }
  const optic = path.join(root, "node_modules/.bin/optic");
  // Optic reports usage to its vendor unless told not to; CI has no business sending anything anywhere.
  const result = spawnSync(optic, ["diff", RELEASED, CURRENT, "--check"], {
    cwd: root,
    env: { ...process.env, OPTIC_TELEMETRY_LEVEL: "off" },
    encoding: "utf8",
  });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  if (result.status === 0) {
    // "Operations: No operations changed", or the count of changed ones (every one passing the rules).
    const summary = output.split("\n").find((line) => line.startsWith("Operations:"));
    console.log(`check:breaking: ${CURRENT} keeps ${RELEASED}${summary ? ` (${summary.trim()})` : ""}`);
    return;
  }
  console.error(output);
  console.error(
    `check:breaking: ${CURRENT} breaks the released contract (${RELEASED}).\n` +
      `If the break is intended: raise info.version in spec/main.tsp, run npm run build:spec, copy ${CURRENT} to ` +
      `${RELEASED}, and describe the break under the new version in CHANGELOG.md, in one commit.`,
  );
  process.exit(result.status ?? 1);
}

main();
