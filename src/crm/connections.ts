/**
 * CRM connections, made by the vendor's manual onboarding (docs/product-rules.md#connections-and-mapping;
 * docs/operations.md#admin-cli `crm-connect`): one per workspace and provider. Re-running crm-connect updates the
 * connection and re-activates it after a 401 marked it errored; `crm-status` shows admins each connection's state
 * (never its token).
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import { sealedPlace, secretBoxOf } from "../lib/secret-box.js";
import type { HttpClient } from "../lib/http-client.js";
import { isSeverity, SEVERITIES } from "../lib/severity.js";
import { assertTargetAllowed, type Resolver } from "../lib/ssrf-guard.js";
import { limitsOf, PLAN_NAMES, PLANS, type PlanName } from "../workspaces/plans.js";
import type { CrmClient } from "./client.js";
import { HubSpotClient } from "./hubspot.js";
import { IDENTIFIER, MappingError, parseMapping, type Mapping } from "./mapping.js";
import {
  DEFAULT_FIELD_NAMES,
  FIELD_ROLES,
  isProtectedProperty,
  PROVIDERS,
  type FieldNames,
  type Provider,
} from "./properties.js";
import { SalesforceClient } from "./salesforce.js";

/** Bad input or a refused change; its message is the operator's one-line error. */
export class CrmConnectError extends Error {}

export type ConnectionStatus = "active" | "errored";

export interface CrmConnection {
  id: string;
  workspace_id: string;
  provider: Provider;
  base_url: string;
  token: string;
  severity_threshold: string;
  field_names: FieldNames;
  mapping: Mapping;
  status: ConnectionStatus;
  last_error: string | null;
  errored_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What the CLI prints: the connection without its token, which is shown by its last four characters only. */
export type ConnectionView = Omit<CrmConnection, "token"> & { token_hint: string };

export interface ConnectInput {
  workspaceId: string;
  provider: string;
  baseUrl: string;
  token: string;
  /** Absent on an update: unchanged; on a create: DEFAULT_SEVERITY_THRESHOLD. */
  severityThreshold?: string;
  /** `--fields` JSON; absent on an update: unchanged; on a create: the provider's defaults. */
  fields?: string;
  /** `--mapping` JSON; absent on an update: unchanged; on a create: `{}` (nothing is written until mapped). */
  mapping?: string;
}

export interface ConnectDeps {
  knex: Knex;
  config: Pick<Config, "allowPrivateTargets" | "secretsKey">;
  /** DNS for the SSRF check; the system resolver unless a test gives another. */
  resolve?: Resolver;
}

/**
 * The spec speaks of "the workspace severity threshold" without a value. `high`: each write lands on every open deal
 * of the mapped accounts, in front of sales reps, so by default only the moves worth a rep's attention are written;
 * `--severity-threshold medium` (or `low`) widens it.
 */
export const DEFAULT_SEVERITY_THRESHOLD = "high";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_URL_LENGTH = 2048;
const MAX_TOKEN_LENGTH = 4096;
/**
 * HubSpot's own deal properties a rename must not point at: `hs_…` are HubSpot-defined, and these are the standard
 * ones a sales team relies on (on top of PROTECTED_PROPERTIES). Salesforce renames must be custom fields (`__c`).
 */
const HUBSPOT_STANDARD_DEAL_PROPERTIES = new Set([
  "dealname",
  "pipeline",
  "dealtype",
  "description",
  "createdate",
  "closed_lost_reason",
  "closed_won_reason",
  "num_associated_contacts",
]);
const COLUMNS = [
  "id",
  "workspace_id",
  "provider",
  "base_url",
  "token",
  "severity_threshold",
  "field_names",
  "mapping",
  "status",
  "last_error",
  "errored_at",
  "created_at",
  "updated_at",
] as const;

/** `crm-connect`: creates or updates the workspace's connection to the provider, and (re-)activates it. */
export async function connectCrm(deps: ConnectDeps, input: ConnectInput): Promise<ConnectionView> {
  if (!UUID.test(input.workspaceId)) throw new CrmConnectError(`not a workspace id: ${input.workspaceId}`);
  if (!(PROVIDERS as readonly string[]).includes(input.provider)) {
    throw new CrmConnectError(`--provider must be one of ${PROVIDERS.join(", ")}, got ${input.provider}`);
  }
  const provider = input.provider as Provider;
  const baseUrl = parseBaseUrl(input.baseUrl, deps.config.allowPrivateTargets);
  const token = parseToken(input.token);
  const severity = input.severityThreshold === undefined ? undefined : parseSeverity(input.severityThreshold);
  const fields = input.fields === undefined ? undefined : parseFieldNames(provider, input.fields);
  let mapping: Mapping | undefined;
  try {
    mapping = input.mapping === undefined ? undefined : parseMapping(provider, input.mapping);
  } catch (error) {
    throw error instanceof MappingError ? new CrmConnectError(error.message) : error;
  }

  const workspace = await deps.knex("workspaces").where({ id: input.workspaceId }).first<{ plan: PlanName }>("plan");
  if (!workspace) throw new CrmConnectError(`no workspace ${input.workspaceId}`);
  // docs/product-rules.md#access-and-roles: CRM write-back is machine integration, which `api_access` (Growth and
  // above) gates.
  if (!limitsOf(workspace.plan).api_access) {
    const plans = PLAN_NAMES.filter((plan) => PLANS[plan].limits.api_access).join(" or ");
    throw new CrmConnectError(
      `workspace ${input.workspaceId} is on the ${workspace.plan} plan; CRM write-back needs api_access (${plans})`,
    );
  }
  const scope = new WorkspaceScope(deps.knex, input.workspaceId);
  if (mapping) await assertOwnCompetitors(scope, Object.keys(mapping));
  // Checked now, through the same guard every call passes, so a private target is refused when it is configured.
  if (!deps.config.allowPrivateTargets) {
    try {
      await assertTargetAllowed(baseUrl.hostname, { checkAddresses: true, exemptHosts: new Set() }, deps.resolve);
    } catch (error) {
      throw new CrmConnectError(`--base-url refused: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // Stored sealed and bound to its row (src/lib/secret-box.ts): only the worker that calls the CRM opens it. A new
  // row's id is chosen here so the token can be sealed for it in the insert itself.
  const box = secretBoxOf(deps.config);
  const newId = randomUUID();
  const changes: Record<string, unknown> = {
    base_url: baseUrl.origin,
    status: "active",
    last_error: null,
    errored_at: null,
    updated_at: deps.knex.fn.now(),
  };
  if (severity !== undefined) changes.severity_threshold = severity;
  if (fields !== undefined) changes.field_names = JSON.stringify(fields);
  if (mapping !== undefined) changes.mapping = JSON.stringify(mapping);
  const row = await deps.knex.transaction(async (trx) => {
    const trxScope = scope.on(trx);
    // One statement, so two concurrent calls for one provider cannot both insert.
    const [upserted] = await trxScope
      .insert("crm_connections", {
        id: newId,
        provider,
        base_url: baseUrl.origin,
        token: box.seal(token, sealedPlace.crmToken(newId)),
        severity_threshold: severity ?? DEFAULT_SEVERITY_THRESHOLD,
        field_names: JSON.stringify(fields ?? DEFAULT_FIELD_NAMES[provider]),
        mapping: JSON.stringify(mapping ?? {}),
      })
      .onConflict(["workspace_id", "provider"])
      .merge(changes)
      .returning([...COLUMNS]);
    if (upserted.id !== newId) {
      // The existing connection keeps its id: the new token is sealed for that row.
      await trxScope
        .from("crm_connections")
        .where({ id: upserted.id })
        .update({ token: box.seal(token, sealedPlace.crmToken(upserted.id as string)) });
    }
    return upserted as CrmConnection;
  });
  return viewOf({ ...row, token });
}

/** `crm-status`: every connection (of one workspace, when given), with its status and last error. */
export async function listConnections(
  { knex, config }: { knex: Knex; config: Pick<Config, "secretsKey"> },
  workspaceId?: string,
): Promise<ConnectionView[]> {
  if (workspaceId !== undefined && !UUID.test(workspaceId)) {
    throw new CrmConnectError(`not a workspace id: ${workspaceId}`);
  }
  let query: Knex.QueryBuilder;
  if (workspaceId === undefined) {
    // The platform admin's view: every workspace's connections.
    query = acrossWorkspaces(knex).from("crm_connections");
  } else {
    const scope = new WorkspaceScope(knex, workspaceId);
    query = scope.from("crm_connections");
  }
  const rows = (await query
    .orderBy([{ column: "workspace_id" }, { column: "provider" }])
    .select([...COLUMNS])) as CrmConnection[];
  const box = secretBoxOf(config);
  return rows.map((row) => viewOf({ ...row, token: box.open(row.token, sealedPlace.crmToken(row.id)) }));
}

/** What operators see of a connection; `connection.token` is the plaintext. */
export function viewOf(connection: CrmConnection): ConnectionView {
  const { token, ...rest } = connection;
  // A short token would be half given away by its last four characters.
  return { ...rest, token_hint: token.length >= 12 ? `…${token.slice(-4)}` : "…" };
}

/** The client of the connection's provider; every call goes through `http` (the SSRF guard applies each time). */
export function clientFor(
  deps: { http: HttpClient; config: Pick<Config, "secretsKey"> },
  connection: Pick<CrmConnection, "id" | "provider" | "base_url" | "token">,
): CrmClient {
  const endpoint = {
    ...connection,
    token: secretBoxOf(deps.config).open(connection.token, sealedPlace.crmToken(connection.id)),
  };
  return connection.provider === "salesforce"
    ? new SalesforceClient(deps.http, endpoint)
    : new HubSpotClient(deps.http, endpoint);
}

/** An origin: Salesforce's instance URL or HubSpot's API base. API paths are ours to add. */
function parseBaseUrl(raw: string, allowPrivateTargets: boolean): URL {
  if (raw.length > MAX_URL_LENGTH) throw new CrmConnectError(`--base-url is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new CrmConnectError(`--base-url is not a URL: ${raw}`);
  }
  // The bearer token goes over this connection: https, except to a local fake when private targets are allowed.
  const httpAllowed = allowPrivateTargets && url.protocol === "http:";
  if (url.protocol !== "https:" && !httpAllowed) throw new CrmConnectError("--base-url must be an https:// URL");
  if (url.username || url.password) throw new CrmConnectError("--base-url must not contain a user name or password");
  if (url.pathname !== "/" || url.search || url.hash) {
    throw new CrmConnectError(`--base-url must be the instance or API origin only, like ${url.origin}`);
  }
  return url;
}

function parseToken(raw: string): string {
  const token = raw.trim();
  if (token === "") throw new CrmConnectError("--token must not be empty");
  if (token.length > MAX_TOKEN_LENGTH)
    throw new CrmConnectError(`--token is longer than ${MAX_TOKEN_LENGTH} characters`);
  // It becomes an HTTP header value: printable ASCII without spaces.
  if (!/^[\x21-\x7e]+$/.test(token)) throw new CrmConnectError("--token must be printable ASCII without spaces");
  return token;
}

function parseSeverity(raw: string): string {
  if (!isSeverity(raw)) {
    throw new CrmConnectError(`--severity-threshold must be one of ${SEVERITIES.join(", ")}, got ${raw}`);
  }
  return raw;
}

/** `--fields`: exactly the three roles, each renamed to a distinct custom field the allowlist will accept. */
export function parseFieldNames(provider: Provider, raw: string): FieldNames {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new CrmConnectError("--fields is not valid JSON");
  }
  const expected = FIELD_ROLES.join(", ");
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new CrmConnectError(`--fields must be a JSON object with exactly ${expected}`);
  }
  const keys = Object.keys(parsed);
  if (keys.length !== FIELD_ROLES.length || !FIELD_ROLES.every((role) => keys.includes(role))) {
    throw new CrmConnectError(`--fields must have exactly the keys ${expected}`);
  }
  const values = parsed as Record<string, unknown>;
  for (const role of FIELD_ROLES) {
    const name = values[role];
    if (typeof name !== "string" || !IDENTIFIER.test(name)) {
      throw new CrmConnectError(`--fields ${role} must be a field name (letters, digits, underscores)`);
    }
    // docs/product-rules.md#read-only-allowlist: stage, owner, amount and close date are never written, whatever the
    // configuration says.
    if (isProtectedProperty(name))
      throw new CrmConnectError(`--fields ${role} must not be ${name}: it is never written`);
    if (provider === "salesforce" && !name.endsWith("__c")) {
      throw new CrmConnectError(`--fields ${role} must be a Salesforce custom field (ending in __c), got ${name}`);
    }
    if (
      provider === "hubspot" &&
      (name.startsWith("hs_") || HUBSPOT_STANDARD_DEAL_PROPERTIES.has(name.toLowerCase()))
    ) {
      throw new CrmConnectError(`--fields ${role} must be a custom deal property, not HubSpot's ${name}`);
    }
  }
  const names = FIELD_ROLES.map((role) => values[role] as string);
  if (new Set(names.map((name) => name.toLowerCase())).size !== names.length) {
    throw new CrmConnectError("--fields must name three different fields");
  }
  return { last_move: names[0]!, last_move_date: names[1]!, last_move_severity: names[2]! };
}

async function assertOwnCompetitors(scope: WorkspaceScope, competitorIds: string[]): Promise<void> {
  if (competitorIds.length === 0) return;
  const rows: { id: string }[] = await scope.from("competitors").whereIn("id", competitorIds).select("id");
  const own = new Set(rows.map((row) => row.id));
  const foreign = competitorIds.find((id) => !own.has(id));
  if (foreign !== undefined)
    throw new CrmConnectError(`--mapping names ${foreign}, which is not a competitor of the workspace`);
}
