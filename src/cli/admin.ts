/**
 * Operator commands for the manual onboarding (docs/operations.md#admin-cli): `npm run admin -- <command> …`.
 * Each prints JSON on success and exits non-zero with a one-line error on bad input.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import pino from "pino";
import { connectSlack, SlackConnectError } from "../alerts/slack.js";
import { AuthService } from "../auth/service.js";
import { ConfigError, loadConfig } from "../config.js";
import { connectCrm, CrmConnectError, listConnections } from "../crm/connections.js";
import { openDatabase } from "../db/database.js";
import { WorkspaceScope } from "../db/tenancy.js";
import { openServices } from "../server.js";
import type { AppServices } from "../http/handler.js";
import { isPlanName, limitsOf, PLAN_NAMES } from "../workspaces/plans.js";
import { promoteSubscription, upsertSubscription, WebhookSubscriptionError } from "../webhooks/subscriptions.js";

export class UsageError extends Error {}

const USAGE = `usage: npm run admin -- <command>
  grant-admin <email>
  revoke-admin <email>
  set-plan <workspace_id> <${PLAN_NAMES.join("|")}>
  add-member <workspace_id> <email> [--role member|owner] [--name N]
  slack-connect <workspace_id> --webhook-url U
  webhook-add <workspace_id> --url U --environment staging|production [--min-severity S] [--event-types a,b|all] [--rotate-secret]
  webhook-promote <subscription_id>
  crm-connect <workspace_id> --provider salesforce|hubspot --base-url U --token T [--severity-threshold S] [--fields JSON] [--mapping JSON]
  crm-status [<workspace_id>]`;

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

type Command = (services: AppServices, args: string[]) => Promise<unknown>;

const COMMANDS: Record<string, Command> = {
  "grant-admin": ({ knex }, args) => setAdmin(knex, positionals(args, 1, "grant-admin <email>")[0]!, true),
  "revoke-admin": ({ knex }, args) => setAdmin(knex, positionals(args, 1, "revoke-admin <email>")[0]!, false),

  "set-plan": async ({ knex }, args) => {
    const [workspaceId, plan] = positionals(args, 2, "set-plan <workspace_id> <plan>");
    if (!UUID.test(workspaceId!)) throw new UsageError(`not a workspace id: ${workspaceId}`);
    if (!isPlanName(plan!)) throw new UsageError(`plan must be one of ${PLAN_NAMES.join(", ")}, got ${plan}`);
    const [workspace] = await knex("workspaces")
      .where({ id: workspaceId })
      .update({ plan, updated_at: knex.fn.now() })
      .returning(["id", "name", "plan"]);
    if (!workspace) throw new UsageError(`no workspace ${workspaceId}`);
    return workspace;
  },

  "add-member": async (services, args) => {
    const { values, positionals: rest } = parseOptions(args, {
      role: { type: "string", default: "member" },
      name: { type: "string" },
    });
    const [workspaceId, rawEmail] = positionals(rest, 2, "add-member <workspace_id> <email> [--role R] [--name N]");
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
        throw new UsageError(`the ${workspace.plan} plan has ${seats} seat(s) and all are taken`);
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

  "slack-connect": async ({ config, knex }, args) => {
    const usage = "slack-connect <workspace_id> --webhook-url U";
    const { values, positionals: rest } = parseOptions(args, { "webhook-url": { type: "string" } });
    const [workspaceId] = positionals(rest, 1, usage);
    if (!UUID.test(workspaceId!)) throw new UsageError(`not a workspace id: ${workspaceId}`);
    if (!values["webhook-url"]) throw new UsageError(`usage: npm run admin -- ${usage}`);
    return refusalsAsUsage(SlackConnectError, () => connectSlack(knex, config, workspaceId!, values["webhook-url"]!));
  },

  "webhook-add": async ({ config, knex }, args) => {
    const usage =
      "webhook-add <workspace_id> --url U --environment staging|production [--min-severity S] [--event-types a,b|all] [--rotate-secret]";
    const { values, positionals: rest } = parseOptions(args, {
      url: { type: "string" },
      environment: { type: "string" },
      "min-severity": { type: "string" },
      "event-types": { type: "string" },
      "rotate-secret": { type: "boolean", default: false },
    });
    const [workspaceId] = positionals(rest, 1, usage);
    if (values.url === undefined || values.environment === undefined) {
      throw new UsageError(`usage: npm run admin -- ${usage}`);
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

  "webhook-promote": async ({ config, knex }, args) => {
    const [subscriptionId] = positionals(args, 1, "webhook-promote <subscription_id>");
    return refusalsAsUsage(WebhookSubscriptionError, () => promoteSubscription({ knex, config }, subscriptionId!));
  },

  "crm-connect": async ({ config, knex }, args) => {
    const usage =
      "crm-connect <workspace_id> --provider salesforce|hubspot --base-url U --token T [--severity-threshold S] [--fields JSON] [--mapping JSON]";
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
      throw new UsageError(`usage: npm run admin -- ${usage}`);
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

  // How admins see a connection a 401 marked errored (status, last_error, errored_at); the token shows its last 4.
  "crm-status": async ({ config, knex }, args) => {
    if (args.length > 1 || args.some((arg) => arg.startsWith("--"))) {
      throw new UsageError("usage: npm run admin -- crm-status [<workspace_id>]");
    }
    return refusalsAsUsage(CrmConnectError, () => listConnections({ knex, config }, args[0]));
  },
};

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
  if (values.length !== count) throw new UsageError(`usage: npm run admin -- ${usage}`);
  return values;
}

export async function runAdminCommand(argv: string[], services: AppServices): Promise<unknown> {
  const [name, ...args] = argv;
  if (!name || name === "help" || name === "--help") throw new UsageError(USAGE);
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command ${name}\n${USAGE}`);
  return command(services, args);
}

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config);
  const services = await openServices(config, database, pino({ level: "warn" }), { worker: false });
  try {
    console.log(JSON.stringify(await runAdminCommand(process.argv.slice(2), services), null, 2));
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
