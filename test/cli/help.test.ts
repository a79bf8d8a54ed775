/**
 * `npm run admin -- help` and `<command> --help` (docs/operations.md#admin-cli): derived from the command table, so a
 * command without help fails here; answered without a database; an unknown command is a one-line error; and the
 * progress lines `crm-rollup` and `firehose-run` report beside their JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_CLI_TIMEOUT_MS, runAdminCli } from "../setup/admin-cli.js";
import { COMMANDS, helpText, resolveAdminCommand, runAdminCommand, UsageError } from "../../src/cli/admin.js";
import { FIREHOSE_SOURCES } from "../../src/firehose/sources.js";
import type { AppServices } from "../../src/http/handler.js";
import { FakeSalesforce } from "../fakes/salesforce.js";
import { connect, newEvent, workspaceWithCompetitor } from "../crm/helpers.js";
import { createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

const NAMES = Object.keys(COMMANDS);
/** Help must not touch the services: any use of these would throw. */
const NO_SERVICES = {} as AppServices;

/** `npm run admin -- …` as an operator runs it, against a database that does not answer. */
const adminWithoutDatabase = (argv: string[]) => runAdminCli(argv, { DATABASE_URL: "postgres://127.0.0.1:1/none" });

const usageLine = (name: string) => `usage: npm run admin -- ${[name, COMMANDS[name]!.args].filter(Boolean).join(" ")}`;

describe("help", () => {
  it("lists every command of the table, with its arguments and a one-line summary, and nothing else", () => {
    const text = helpText();
    // Each command is a line `  <name> <args>` followed by its summary, indented further.
    const listed = [...text.matchAll(/^ {2}(\S+)(.*)\n {6}(.+)$/gm)];
    expect(listed.map((match) => match[1])).toEqual([...NAMES, "help"]);
    for (const [, name, args, summary] of listed.slice(0, -1)) {
      expect(args!.trim()).toBe(COMMANDS[name!]!.args);
      expect(summary).toBe(COMMANDS[name!]!.summary);
      expect(summary).not.toContain("\n");
    }
    for (const argv of [[], ["help"], ["--help"], ["-h"]]) expect(resolveAdminCommand(argv)).toEqual({ help: text });
  });

  it("gives each command its own help, from `<command> --help`, `-h` or `help <command>`, without services", async () => {
    for (const name of NAMES) {
      const definition = COMMANDS[name]!;
      expect(definition.summary.length, name).toBeGreaterThan(0);
      expect(definition.details.length, name).toBeGreaterThan(0);
      const help = (await runAdminCommand([name, "--help"], NO_SERVICES)) as string;
      expect(help.split("\n")[0]).toBe(usageLine(name));
      expect(help).toContain(definition.summary);
      expect(help).toContain(definition.details);
      expect(await runAdminCommand(["help", name], NO_SERVICES)).toBe(help);
      // Anywhere after the name, even after other arguments.
      expect(await runAdminCommand([name, "x", "-h"], NO_SERVICES)).toBe(help);
    }
  });

  it("uses the help's usage line in each command's usage error", async () => {
    // Three stray positionals: more than any command takes, refused before the database is used.
    for (const name of NAMES) {
      await expect(runAdminCommand([name, "a", "b", "c"], NO_SERVICES), name).rejects.toThrow(
        new UsageError(usageLine(name)),
      );
    }
  });

  it("refuses an unknown command in one line that points to help", async () => {
    const cases: [string[], string][] = [
      [["grant-admn", "a@example.com"], "grant-admn"],
      [["help", "grant-admn"], "grant-admn"],
      [["--version"], "--version"],
    ];
    for (const [argv, name] of cases) {
      const refusal = await runAdminCommand(argv, NO_SERVICES).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(UsageError);
      expect((refusal as Error).message).toBe(`unknown command ${name}; see npm run admin -- help for the list`);
    }
  });

  it(
    "answers help on stdout with exit 0, and an unknown command with one stderr line and exit 1, with no database",
    async () => {
      const [help, unknown] = await Promise.all([
        adminWithoutDatabase(["help"]),
        adminWithoutDatabase(["grant-admn"]).catch((error) => error),
      ]);
      expect(help.stdout.trim()).toBe(helpText());
      expect(help.stderr).toBe("");
      expect(unknown.code).toBe(1);
      expect(unknown.stdout).toBe("");
      expect(unknown.stderr.trim().split("\n")).toEqual([
        "unknown command grant-admn; see npm run admin -- help for the list",
      ]);
      // Each run loads the service's modules through tsx: ~10 s of a quiet core, several times that on a busy one.
    },
    ADMIN_CLI_TIMEOUT_MS,
  );
});

describe("progress", () => {
  let app: TestApp;
  let sf: FakeSalesforce;
  beforeAll(async () => {
    [app, sf] = await Promise.all([startTestApp(), new FakeSalesforce().start()]);
  });
  afterAll(async () => {
    await app?.stop();
    await sf?.stop();
  });

  /** The command's result and the progress lines it reported. */
  async function withProgress(...argv: string[]): Promise<{ result: any; lines: string[] }> {
    const lines: string[] = [];
    const result = await runAdminCommand(argv, app.service.services, { progress: (line) => lines.push(line) });
    return { result, lines };
  }

  it("crm-rollup reports each connection's start and end, with the accounts posted; the JSON is unchanged", async () => {
    const setup = await workspaceWithCompetitor(app);
    const account = sf.addAccount();
    const connection = await connect(app, setup, "salesforce", sf, {
      [setup.competitor.id]: { account_ids: [account] },
    });
    const day = "2026-02-11";
    await newEvent(app, setup, { severity: "high", detected_at: new Date(`${day}T09:00:00Z`) });

    const first = await withProgress("crm-rollup", setup.owner.workspaceId, "--date", day);
    expect(first.result).toEqual({
      workspace_id: setup.owner.workspaceId,
      day,
      connections: [{ connection_id: connection.id, provider: "salesforce", outcome: "done" }],
    });
    expect(first.lines).toEqual([
      "crm-rollup: salesforce connection 1/1 started",
      "crm-rollup: salesforce connection 1/1 done (1 account(s) posted)",
    ]);

    const second = await withProgress("crm-rollup", setup.owner.workspaceId, "--date", day);
    expect(second.lines).toEqual([
      "crm-rollup: salesforce connection 1/1 started",
      "crm-rollup: salesforce connection 1/1 skipped (already done)",
    ]);
    // Without a listener the command runs as before.
    expect(await runAdminCommand(["crm-rollup", setup.owner.workspaceId, "--date", day], app.service.services)).toEqual(
      second.result,
    );
  });

  it("firehose-run reports each source's start and end, then the events stored; the JSON is unchanged", async () => {
    // No competitors: every source is asked for nothing, so no provider is called.
    const owner = await createWorkspace(app, { plan: "growth" });
    const { result, lines } = await withProgress("firehose-run", owner.workspaceId);
    expect(Object.keys(result.sources)).toEqual(FIREHOSE_SOURCES.map((source) => source.name));
    expect(result.events_created).toBe(0);

    const count = FIREHOSE_SOURCES.length;
    expect(lines).toHaveLength(2 * count + 1);
    FIREHOSE_SOURCES.forEach((source, index) => {
      const label = `firehose-run: source ${index + 1}/${count} ${source.name}`;
      expect(lines).toContain(`${label} started (0 competitor(s) since ${result.searched_since})`);
      const found = result.sources[source.name].found;
      expect(lines).toContain(
        found < 0 ? `${label} skipped (no credentials)` : `${label} done (${found} mention(s) found)`,
      );
    });
    expect(lines.at(-1)).toBe("firehose-run: stored 0 new event(s)");
  });
});
