/**
 * Operator commands for the manual onboarding (docs/operations.md#admin-cli): `npm run admin -- <command> …`.
 * Each prints JSON on success and exits non-zero with a one-line error on bad input; `help` and `<command> --help`
 * print the help derived from the command table (COMMANDS) and need no database.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import pino from "pino";
import { connectSlack, SlackConnectError } from "../alerts/slack.js";
import { AuthService } from "../auth/service.js";
import { ConfigError, loadConfig } from "../config.js";
import { connectCrm, CrmConnectError, listConnections } from "../crm/connections.js";
import { CrmRollup } from "../crm/rollup.js";
import { openDatabase } from "../db/database.js";
import { WorkspaceScope } from "../db/tenancy.js";
import type { DeliveryDeps } from "../delivery/types.js";
import { FirehoseNotAvailableError, FirehoseRun } from "../firehose/run.js";
import { openServices } from "../server.js";
import type { AppServices } from "../http/handler.js";
import { isPlanName, limitsOf, PLAN_NAMES, upgradeFor } from "../workspaces/plans.js";
import { promoteSubscription, upsertSubscription, WebhookSubscriptionError } from "../webhooks/subscriptions.js";

export class UsageError extends Error {}

/** What a command gets besides its arguments, from its definition and the caller. */
interface CommandContext {
  /** Its usage line without the `npm run admin -- ` prefix, for its own usage errors. */
  usage: string;
  /** Progress of a long command, one line each, prefixed with the command's name (stderr in `main`); or none. */
  progress?: (message: string) => void;
}

/**
 * One operator command, defined once: `help`, `<command> --help` and the usage errors are all derived from this.
 * The command table's keys are the command names.
 */
interface CommandDefinition {
  /** Arguments and options after the name, as in the usage line (`""` when it takes none). */
  args: string;
  /** One line for `help`'s list. */
  summary: string;
  /** `<command> --help`'s text after the usage line and summary: arguments, options, what it prints, idempotency. */
  details: string;
  run: (services: AppServices, args: string[], context: CommandContext) => Promise<unknown>;
}

const PREFIX = "npm run admin --";

/** Sets or clears a user's platform-admin flag; every API process sees it on the user's next request. */
async function setAdmin(knex: AppServices["knex"], email: string, isAdmin: boolean): Promise<unknown> {
  const [user] = await knex("users")
    .whereRaw("lower(email) = ?", [email.toLowerCase()])
    .update({ is_admin: isAdmin, updated_at: knex.fn.now() })
    .returning(["id", "email", "name", "is_admin"]);
  if (!user) throw new UsageError(`no user with email ${email}`);
  return user;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Every command, in `help`'s order. */
export const COMMANDS: Record<string, CommandDefinition> = {
  "grant-admin": {
    args: "<email>",
    summary: "Makes a user a platform admin (is_admin), who can then reach /admin/*.",
    details: `<email>  the user's email, matched case-insensitively; the user must exist.
Prints the user (id, email, name, is_admin). Idempotent: granting twice changes nothing.`,
    run: ({ knex }, args, { usage }) => setAdmin(knex, positionals(args, 1, usage)[0]!, true),
  },

  "revoke-admin": {
    args: "<email>",
    summary: "Clears a user's platform-admin flag; their next /admin/* request is 403.",
    details: `<email>  the user's email, matched case-insensitively; the user must exist.
Prints the user (id, email, name, is_admin). Idempotent: revoking twice changes nothing.`,
    run: ({ knex }, args, { usage }) => setAdmin(knex, positionals(args, 1, usage)[0]!, false),
  },

  "set-plan": {
    args: `<workspace_id> <${PLAN_NAMES.join("|")}>`,
    summary: "Changes a workspace's plan, and with it its limits, at once.",
    details: `<workspace_id>  the workspace's id (a UUID).
<plan>          one of ${PLAN_NAMES.join(", ")}.
A partner's customer workspace is refused: its plan follows its partner's (set the partner's; its customers follow).
Prints the workspace (id, name, plan). Idempotent: setting the same plan again changes nothing.`,
    run: async ({ knex }, args, { usage }) => {
      const [workspaceId, plan] = positionals(args, 2, usage);
      if (!UUID.test(workspaceId!)) throw new UsageError(`not a workspace id: ${workspaceId}`);
      if (!isPlanName(plan!)) throw new UsageError(`plan must be one of ${PLAN_NAMES.join(", ")}, got ${plan}`);
      // A partner's customer workspace is on its partner's plan (docs/product-rules.md#partner-api): the database
      // would keep it there whatever this wrote, so say so rather than print a plan that was not set.
      const parent: { parent_workspace_id: string | null } | undefined = await knex("workspaces")
        .where({ id: workspaceId })
        .first("parent_workspace_id");
      if (parent?.parent_workspace_id) {
        throw new UsageError(
          `workspace ${workspaceId} was provisioned by partner ${parent.parent_workspace_id}: its plan follows the partner's; set that one`,
        );
      }
      const [workspace] = await knex("workspaces")
        .where({ id: workspaceId })
        .update({ plan, updated_at: knex.fn.now() })
        .returning(["id", "name", "plan"]);
      if (!workspace) throw new UsageError(`no workspace ${workspaceId}`);
      return workspace;
    },
  },

  "add-member": {
    args: "<workspace_id> <email> [--role member|owner] [--name N]",
    summary: "Adds a user to a workspace, creating the user (with a mail to set a password) if needed.",
    details: `<workspace_id>  the workspace's id (a UUID).
<email>         the member's email (stored lower-case).
--role R        member (default) or owner.
--name N        the new user's name (default: the email's local part); ignored for an existing user.
Respects the plan's seats. Prints { workspace_id, user_id, email, role, created_user }.
Idempotent: re-adding an existing member only changes the role.`,
    run: async (services, args, { usage }) => {
      const { values, positionals: rest } = parseOptions(args, {
        role: { type: "string", default: "member" },
        name: { type: "string" },
      });
      const [workspaceId, rawEmail] = positionals(rest, 2, usage);
      const email = rawEmail!.trim().toLowerCase();
      if (!UUID.test(workspaceId!)) throw new UsageError(`not a workspace id: ${workspaceId}`);
      if (!EMAIL.test(email)) throw new UsageError(`not an email address: ${rawEmail}`);
      if (values.role !== "member" && values.role !== "owner") throw new UsageError(`--role must be member or owner`);
      const role = values.role;
      return services.knex.transaction(async (trx) => {
        // Locked so two concurrent add-member calls cannot both take the last seat.
        const workspace = await trx("workspaces").where({ id: workspaceId }).forUpdate().first("id", "name", "plan");
        if (!workspace) throw new UsageError(`no workspace ${workspaceId}`);
        // The operator names the one workspace every membership read and written below belongs to.
        const scope = new WorkspaceScope(trx, workspaceId!);
        let user = await trx("users").whereRaw("lower(email) = ?", [email]).first("id", "email", "name");
        const existing = user && (await scope.from("memberships").where({ user_id: user.id }).first());
        if (existing) {
          // Idempotent: re-adding changes only the role.
          await scope.from("memberships").where({ user_id: user!.id }).update({ role });
          return { workspace_id: workspaceId, user_id: user!.id, email: user!.email, role, created_user: false };
        }
        const seats = limitsOf(workspace.plan).seats;
        const used = await scope.from("memberships").count({ n: "*" }).first();
        if (Number(used?.n ?? 0) >= seats) {
          throw new UsageError(
            `the ${workspace.plan} plan has ${seats} seat(s) and all are taken; ${upgradeFor(workspace.plan, "seats", "seats")} to add more`,
          );
        }
        const createdUser = !user;
        if (!user) {
          // No usable password until the invitation link sets one.
          [user] = await trx("users")
            .insert({ email, name: values.name ?? email.split("@")[0], password_hash: "!" })
            .returning(["id", "email", "name"]);
          await new AuthService(services).sendInvitation(trx, user!, workspace.name);
        }
        await scope.insert("memberships", { user_id: user!.id, role });
        return { workspace_id: workspaceId, user_id: user!.id, email: user!.email, role, created_user: createdUser };
      });
    },
  },

  "slack-connect": {
    args: "<workspace_id> --webhook-url U",
    summary: "Stores the workspace's Slack incoming-webhook URL for the slack channel.",
    details: `<workspace_id>    the workspace's id (a UUID).
--webhook-url U   the Slack incoming-webhook URL (required; stored sealed).
Needs the plan's slack flag. Prints { workspace_id, slack_webhook_url }.
Idempotent: a second call replaces the URL.`,
    run: async ({ config, knex }, args, { usage }) => {
      const { values, positionals: rest } = parseOptions(args, { "webhook-url": { type: "string" } });
      const [workspaceId] = positionals(rest, 1, usage);
      if (!UUID.test(workspaceId!)) throw new UsageError(`not a workspace id: ${workspaceId}`);
      if (!values["webhook-url"]) throw new UsageError(`usage: ${PREFIX} ${usage}`);
      return refusalsAsUsage(SlackConnectError, () => connectSlack(knex, config, workspaceId!, values["webhook-url"]!));
    },
  },

  "webhook-add": {
    args: "<workspace_id> --url U --environment staging|production [--min-severity S] [--event-types a,b|all] [--rotate-secret]",
    summary: "Creates or updates the workspace's webhook subscription for one environment.",
    details: `<workspace_id>          the workspace's id (a UUID).
--url U                 the endpoint the events are POSTed to (required; a private address is refused).
--environment E         staging or production (required); at most one subscription per environment.
--min-severity S        the lowest severity delivered.
--event-types a,b|all   the event types delivered (source_broken and source_recovered name source health notices); all clears the filter.
--rotate-secret         issue a new signing secret.
Needs api_access. Prints the subscription with its signing_secret.
Idempotent: a second call updates the subscription and keeps its secret unless --rotate-secret.`,
    run: async ({ config, knex }, args, { usage }) => {
      const { values, positionals: rest } = parseOptions(args, {
        url: { type: "string" },
        environment: { type: "string" },
        "min-severity": { type: "string" },
        "event-types": { type: "string" },
        "rotate-secret": { type: "boolean", default: false },
      });
      const [workspaceId] = positionals(rest, 1, usage);
      if (values.url === undefined || values.environment === undefined) {
        throw new UsageError(`usage: ${PREFIX} ${usage}`);
      }
      return refusalsAsUsage(WebhookSubscriptionError, () =>
        upsertSubscription(
          { knex, config },
          {
            workspaceId: workspaceId!,
            url: values.url!,
            environment: values.environment!,
            minSeverity: values["min-severity"],
            eventTypes: values["event-types"],
            rotateSecret: values["rotate-secret"],
          },
        ),
      );
    },
  },

  "webhook-promote": {
    args: "<subscription_id>",
    summary: "Moves a webhook subscription from staging to production, replacing the production one if any.",
    details: `<subscription_id>  the staging subscription's id (a UUID).
Prints the promoted subscription with its signing_secret. Refused when it is already in production.`,
    run: async ({ config, knex }, args, { usage }) => {
      const [subscriptionId] = positionals(args, 1, usage);
      return refusalsAsUsage(WebhookSubscriptionError, () => promoteSubscription({ knex, config }, subscriptionId!));
    },
  },

  "crm-connect": {
    args: "<workspace_id> --provider salesforce|hubspot --base-url U --token T [--severity-threshold S] [--fields JSON] [--mapping JSON]",
    summary: "Stores a CRM connection (Salesforce or HubSpot) for write-back.",
    details: `<workspace_id>          the workspace's id (a UUID).
--provider P            salesforce or hubspot (required).
--base-url U            the instance's API base URL (required; a private address is refused).
--token T               the API token (required; stored sealed, shown by its last four characters).
--severity-threshold S  the lowest severity written (default high).
--fields JSON           renames the custom fields: {"last_move":"…","last_move_date":"…","last_move_severity":"…"}.
--mapping JSON          {competitor_id: {"account_ids":[…]} | {"filter":{…}} | {"view_id":"…"}}.
Needs api_access. Prints the connection (the token only by its last four characters).
Idempotent: one connection per provider; a second call updates it and re-activates it.`,
    run: async ({ config, knex }, args, { usage }) => {
      const { values, positionals: rest } = parseOptions(args, {
        provider: { type: "string" },
        "base-url": { type: "string" },
        token: { type: "string" },
        "severity-threshold": { type: "string" },
        fields: { type: "string" },
        mapping: { type: "string" },
      });
      const [workspaceId] = positionals(rest, 1, usage);
      if (values.provider === undefined || values["base-url"] === undefined || values.token === undefined) {
        throw new UsageError(`usage: ${PREFIX} ${usage}`);
      }
      return refusalsAsUsage(CrmConnectError, () =>
        connectCrm(
          { knex, config },
          {
            workspaceId: workspaceId!,
            provider: values.provider!,
            baseUrl: values["base-url"]!,
            token: values.token!,
            severityThreshold: values["severity-threshold"],
            fields: values.fields,
            mapping: values.mapping,
          },
        ),
      );
    },
  },

  // How admins see a connection a 401 marked errored (status, last_error, errored_at); the token shows its last 4.
  "crm-status": {
    args: "[<workspace_id>]",
    summary: "Shows each CRM connection's status and last error (of one workspace, or of all).",
    details: `<workspace_id>  only this workspace's connections (default: every workspace's).
Prints the connections with status, last_error and errored_at; the token only by its last four characters.
Read-only.`,
    run: async ({ config, knex }, args, { usage }) => {
      if (args.length > 1 || args.some((arg) => arg.startsWith("--"))) {
        throw new UsageError(`usage: ${PREFIX} ${usage}`);
      }
      return refusalsAsUsage(CrmConnectError, () => listConnections({ knex, config }, args[0]));
    },
  },

  // The daily rollup of one UTC day (yesterday by default), now, as the scheduled run would post it.
  "crm-rollup": {
    args: "<workspace_id> [--date YYYY-MM-DD]",
    summary: "Runs the workspace's daily CRM rollup of one day now, as the scheduled run would.",
    details: `<workspace_id>     the workspace's id (a UUID); it needs a CRM connection.
--date YYYY-MM-DD  the UTC day rolled up (default: yesterday).
Prints { workspace_id, day, connections: [{ connection_id, provider, outcome }] } (outcome: done, failed,
stopped or skipped); progress, one line per connection, goes to stderr.
Idempotent: once per account per day; a connection already done for the day is skipped.`,
    run: async (services, args, { usage, progress }) => {
      const { values, positionals: rest } = parseOptions(args, { date: { type: "string" } });
      const [workspaceId] = positionals(rest, 1, usage);
      const day = values.date ?? new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) {
        throw new UsageError(`--date must be a day as YYYY-MM-DD, got ${day}`);
      }
      await existingWorkspace(services.knex, workspaceId!);
      const connections = await new CrmRollup(deliveryDepsOf(services)).runDay(workspaceId!, day, progress);
      if (connections.length === 0) throw new UsageError(`workspace ${workspaceId} has no CRM connection`);
      return { workspace_id: workspaceId, day, connections };
    },
  },

  // The workspace's firehose, now, over every configured source; prints what each source found.
  "firehose-run": {
    args: "<workspace_id>",
    summary: "Runs the workspace's firehose now over every configured source.",
    details: `<workspace_id>  the workspace's id (a UUID); its plan needs realtime (growth or enterprise).
Prints { workspace_id, ran_at, searched_since, sources: { <source>: { found, created, error } }, events_created }
(found -1: no credentials, not searched); progress, one line per source, goes to stderr.
Idempotent: a mention already seen makes no second event.`,
    run: async (services, args, { usage, progress }) => {
      const [workspaceId] = positionals(args, 1, usage);
      await existingWorkspace(services.knex, workspaceId!);
      return refusalsAsUsage(FirehoseNotAvailableError, () =>
        new FirehoseRun(deliveryDepsOf(services)).run(workspaceId!, undefined, progress),
      );
    },
  },
};

async function existingWorkspace(knex: AppServices["knex"], workspaceId: string): Promise<void> {
  if (!UUID.test(workspaceId)) throw new UsageError(`not a workspace id: ${workspaceId}`);
  if (!(await knex("workspaces").where({ id: workspaceId }).first("id"))) {
    throw new UsageError(`no workspace ${workspaceId}`);
  }
}

/** What the worker-side rules need, from the CLI's services (it runs them in its own process). */
function deliveryDepsOf({ config, knex, jobs, http, log }: AppServices): DeliveryDeps {
  return { config, knex, jobs, http, log };
}

/** A service's refusals (bad URL, unknown id, …) are the operator's one-line errors; anything else is a crash. */
async function refusalsAsUsage<T>(refusal: new (...args: never[]) => Error, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw error instanceof refusal ? new UsageError(error.message) : error;
  }
}

/** Options and positionals of a command; an unknown or malformed option is the operator's one-line error. */
function parseOptions<const O extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: O) {
  try {
    return parseArgs({ args, allowPositionals: true, options });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function positionals(args: string[], count: number, usage: string): string[] {
  const values = args.filter((a) => !a.startsWith("--"));
  if (values.length !== count) throw new UsageError(`usage: ${PREFIX} ${usage}`);
  return values;
}

/** A command's usage line, without the `npm run admin -- ` prefix. */
function usageOf(name: string): string {
  const { args } = COMMANDS[name]!;
  return args ? `${name} ${args}` : name;
}

/** `help`: every command's usage line with its one-line summary, from the command table. */
export function helpText(): string {
  const commands = Object.entries(COMMANDS).map(([name, { summary }]) => `  ${usageOf(name)}\n      ${summary}`);
  return [
    `usage: ${PREFIX} <command> [arguments]`,
    "",
    "Each command prints JSON on stdout; errors are one line on stderr (exit 1); progress, if any, goes to stderr.",
    "",
    "commands:",
    ...commands,
    `  help [<command>]`,
    `      Prints this list, or one command's help (also: ${PREFIX} <command> --help).`,
  ].join("\n");
}

/** `<command> --help`: its usage line, summary and details. */
export function commandHelpText(name: string): string {
  const { summary, details } = COMMANDS[name]!;
  return `usage: ${PREFIX} ${usageOf(name)}\n\n${summary}\n\n${details}`;
}

const HELP_FLAGS = new Set(["--help", "-h"]);

/**
 * What argv asks for, decided without a database: help text, or a known command with its arguments. An unknown
 * command is the operator's one-line error. `help`, `--help`, `-h` or nothing at all is the list; `help <command>`, or
 * `--help`/`-h` anywhere after a command's name, is that command's help.
 */
export function resolveAdminCommand(
  argv: string[],
): { help: string } | { name: string; definition: CommandDefinition; args: string[] } {
  const [first, ...rest] = argv;
  const asked = first === undefined || first === "help" || HELP_FLAGS.has(first);
  const name = asked ? rest[0] : first;
  if (name === undefined) return { help: helpText() };
  if (!Object.hasOwn(COMMANDS, name)) {
    throw new UsageError(`unknown command ${name}; see ${PREFIX} help for the list`);
  }
  if (asked || rest.some((arg) => HELP_FLAGS.has(arg))) return { help: commandHelpText(name) };
  return { name, definition: COMMANDS[name]!, args: rest };
}

/**
 * Runs one command with the service's services and returns what it prints (a help request returns its text).
 * `options.progress` hears a long command's progress lines, each prefixed with the command's name (`main` writes them
 * to stderr, so stdout stays the JSON result).
 */
export async function runAdminCommand(
  argv: string[],
  services: AppServices,
  options: { progress?: (line: string) => void } = {},
): Promise<unknown> {
  const request = resolveAdminCommand(argv);
  if ("help" in request) return request.help;
  const { name, definition, args } = request;
  const { progress } = options;
  return definition.run(services, args, {
    usage: usageOf(name),
    progress: progress && ((message) => progress(`${name}: ${message}`)),
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // Help and unknown commands are answered before the configuration is read or a database opened (or started).
  const request = resolveAdminCommand(argv);
  if ("help" in request) {
    console.log(request.help);
    return;
  }
  const config = loadConfig();
  const database = await openDatabase(config);
  const services = await openServices(config, database, pino({ level: "warn" }), { worker: false });
  try {
    const progress = (line: string) => process.stderr.write(`${line}\n`);
    console.log(JSON.stringify(await runAdminCommand(argv, services, { progress }), null, 2));
  } finally {
    await services.http.close();
    await services.jobs.stop();
    await database.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    const expected = error instanceof UsageError || error instanceof ConfigError;
    console.error(expected ? error.message : `error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
