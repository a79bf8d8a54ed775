/**
 * Tenancy, for every operation at once (README "Adding an operation", step 3: "the 404 for another workspace's
 * resource"). The table below is derived from generated/openapi.json, not written by hand: every operation with a path
 * parameter naming a resource, and every request-body field or query parameter naming one, is called by the owner of
 * workspace B with a resource of workspace A. The answer must be the contract's "not yours" answer (404 with
 * `{"detail": "…"}` unless the contract documents another) and nothing of workspace A may change.
 *
 * Where the rule reads differently, the contract decides: operations under `/admin/` and `/support/` answer 403 to
 * every non-admin before any lookup (src/http/access.ts), so B gets 403 there; a request field that must equal a path
 * parameter (the partner API's `workspace_id`) answers 422; OUTCOMES lists the operations whose contract documents a
 * 200 for an unknown id. Public operations have no caller and are listed in EXCLUDED with the reason.
 *
 * A new operation is covered without writing a test. When this file cannot make the resource one of its parameters
 * names, the operation's case fails with "no fixture for …": it is never skipped. Pending operations (src/pending.ts)
 * stay in the table and may answer 501 while they are pending; once built, they must pass like the others.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type supertest from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractOperations, openApiDocument } from "../../src/contract.js";
import { PENDING } from "../../src/handlers.js";
import type { OperationId } from "../../src/http/handler.js";
import {
  createAlertDelivery,
  createAlertRule,
  createCompetitor,
  createCompetitorProfile,
  createCrmConnection,
  createCrmSync,
  createDetectedEvent,
  createDigest,
  createDigestDelivery,
  createSource,
  createSuppression,
  createSwitcherStory,
  createTargetAccount,
  createWebhookDelivery,
  createWebhookSubscription,
  createWorkspace,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type ContractClient, type TestApp } from "../setup/test-app.js";

// ---------------------------------------------------------------------------------------------------------------
// The decisions this file cannot derive from the contract. Each entry says why; a stale entry fails the first test.
// ---------------------------------------------------------------------------------------------------------------

/** Operations out of scope, and why. */
const EXCLUDED: Partial<Record<OperationId, string>> = {
  receiveSupportInboundMail:
    "public webhook of the vendor's support inbox, signed by the mail provider: it has no caller, so no tenant to cross",
  trackMarketingEvent:
    "public marketing beacon without a caller; its `event_id` is a client-generated de-duplication id, not an event",
};

/** Request fields and query parameters that end in `_id` but name nothing of a workspace (`operationId.field`). */
const NOT_REFERENCES: Record<string, string> = {
  "createPartnerWorkspace.external_audit_id": "an id of the partner's own audit system, stored as given",
};

/**
 * Path parameters that are not id-like but still key one workspace's resource (`operationId.parameter`): B naming
 * A's key must find nothing of its own, and must not reach A's.
 */
const RESOURCE_KEYS: Record<string, (t: Tenant) => string> = {
  "deleteSuppression.email": (t) => t.suppressedEmail,
};

/** How to name each kind of resource of a tenant, by the parameter or field name that refers to it. */
const FIXTURES: Record<string, (t: Tenant) => string> = {
  competitor_id: (t) => t.competitorId,
  source_id: (t) => t.sourceId,
  event_id: (t) => t.eventId,
  rule_id: (t) => t.ruleId,
  digest_id: (t) => t.digestId,
  account_id: (t) => t.accountId,
  story_id: (t) => t.storyId,
  workspace_id: (t) => t.owner.workspaceId,
};

interface Outcome {
  status: number;
  /** The exact body expected, when the contract fixes it (otherwise the `{"detail": "…"}` envelope is checked). */
  body?: (a: Tenant) => unknown;
}

/**
 * Where the contract answers another workspace's resource with something else than 404 (`operationId` for the path,
 * `operationId.field` for a request field or query parameter), and where it says so.
 */
const OUTCOMES: Record<string, Outcome> = {
  // spec/insights.tsp: "An unknown competitor, or one of another workspace, answers 200 with
  // `CompetitorNotFoundResponse` (…), never 404."
  getCompetitorInsight: {
    status: 200,
    body: (a) => ({ detail: "Competitor not found", competitor_id: a.competitorId }),
  },
  // listEvents: "An unknown `competitor_id` yields an empty list." (200 is its only success; it documents no 404.)
  "listEvents.competitor_id": { status: 200, body: () => [] },
  // listSourceNotices: "an unknown `competitor_id` or `source_id` (another workspace's included) yields an empty list."
  "listSourceNotices.competitor_id": { status: 200, body: () => [] },
  "listSourceNotices.source_id": { status: 200, body: () => [] },
};

/** Admin areas: their access rule (src/http/access.ts) answers 403 to any non-admin before a resource is looked up. */
const isAdminPath = (path: string) => path.startsWith("/admin/") || path.startsWith("/support/");

/** Tables that belong to no workspace, and why; every other table must be reachable from a workspace. */
const NOT_TENANT_DATA: Record<string, string> = {
  knex_migrations: "migration bookkeeping",
  knex_migrations_lock: "migration bookkeeping",
  rate_limit_buckets: "counters keyed by client address or login, shared by every tenant",
  inbound_webhook_receipts: "replay guard of signed inbound webhooks, keyed by the provider's message id",
  payments_ended_subscriptions: "the payments provider's ended subscription ids, which no event may revive",
  scheduler_state: "the one scheduler's own clock",
  scheduler_runs: "one row per scheduled slot, covering every workspace at once",
  support_inboxes: "the vendor's own support inbox at the mail provider, read by platform admins only",
  support_threads: "the vendor's own support inbox: customers write by email, not from a workspace",
  support_messages: "messages of the vendor's support threads, reached through support_threads",
};

// ---------------------------------------------------------------------------------------------------------------
// The contract, as far as this file reads it.
// ---------------------------------------------------------------------------------------------------------------

interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  nullable?: boolean;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
}

interface Parameter {
  $ref?: string;
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  operationId: OperationId;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, unknown>;
  security?: unknown[];
}

interface Contract {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; parameters?: Record<string, Parameter> };
}

const contract = openApiDocument() as unknown as Contract;

function refTarget<T>(ref: string): T {
  const [, , section, name] = ref.split("/");
  const target = (contract.components as Record<string, Record<string, unknown> | undefined>)[section!]?.[name!];
  if (!target) throw new Error(`unresolved $ref ${ref}`);
  return target as T;
}

/** The schema with `$ref`s followed and `allOf` merged (constraints written beside a reference count too). */
function resolve(schema: Schema): Schema {
  if (schema.$ref) return resolve(refTarget<Schema>(schema.$ref));
  if (!schema.allOf) return schema;
  const { allOf, ...own } = schema;
  const parts = [...allOf.map(resolve), own];
  return Object.assign({}, ...parts, {
    properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
    required: parts.flatMap((p) => p.required ?? []),
  });
}

const parametersOf = (operation: Operation): Parameter[] =>
  (operation.parameters ?? []).map((p) => (p.$ref ? refTarget<Parameter>(p.$ref) : p));

const bodySchemaOf = (operation: Operation): Schema | undefined =>
  operation.requestBody?.content["application/json"]?.schema;

const isIdLike = (name: string) => name === "id" || name.endsWith("_id") || name.endsWith("_ids");

/** The fixture name a reference uses: `competitor_ids` → `competitor_id`; a bare `id` takes the path segment's noun. */
function fixtureName(name: string, path: string): string {
  if (name.endsWith("_ids")) return name.slice(0, -1);
  if (name !== "id") return name;
  const segments = path.split("/");
  const noun = segments[segments.indexOf("{id}") - 1] ?? "";
  return `${noun.replace(/-/g, "_").replace(/s$/, "")}_id`;
}

// ---------------------------------------------------------------------------------------------------------------
// Valid values generated from schemas, so a request fails for its foreign id and never for its body.
// ---------------------------------------------------------------------------------------------------------------

const PROBE_TEXT = "tenancy-probe.example"; // a valid name, label and domain alike
const PROBE_URL = "https://tenancy-probe.example/page";

function stringExample(s: Schema, at: string): string {
  const byFormat: Record<string, () => string> = {
    uuid: () => randomUUID(),
    email: () => `probe-${randomBytes(3).toString("hex")}@tenancy-probe.example`,
    "date-time": () => new Date().toISOString(),
    date: () => new Date().toISOString().slice(0, 10),
    uri: () => PROBE_URL,
  };
  const candidates = [s.format && byFormat[s.format] ? byFormat[s.format]!() : PROBE_TEXT, PROBE_URL];
  for (let value of candidates) {
    if (s.minLength !== undefined && value.length < s.minLength) value = value.padEnd(s.minLength, "x");
    if (s.maxLength !== undefined && value.length > s.maxLength) value = value.slice(0, s.maxLength);
    if (!s.pattern || new RegExp(s.pattern).test(value)) return value;
  }
  throw new Error(`cannot generate a string for ${at} (pattern ${s.pattern}): teach stringExample`);
}

/**
 * A value valid for the schema: every declared property (not only the required ones, so that a body that got through
 * would change the resource it names), the first enum value, the minimum of a range, one array item.
 */
function exampleOf(schema: Schema, at: string, index = 0): unknown {
  const s = resolve(schema);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) {
    const first = alternatives.map(resolve).find((alt) => alt.type !== "null");
    if (!first) throw new Error(`no non-null alternative at ${at}`);
    return exampleOf(first, at, index);
  }
  if (s.enum) {
    const values = s.enum.filter((v) => v !== null);
    if (values.length === 0) throw new Error(`empty enum at ${at}`);
    return values[index % values.length];
  }
  switch (s.type) {
    case "string":
      return stringExample(s, at);
    case "integer":
    case "number": {
      const low = s.minimum ?? Math.min(0, s.maximum ?? 0);
      return s.type === "integer" ? Math.ceil(low) : low;
    }
    case "boolean":
      return false;
    case "array": {
      const count = Math.min(Math.max(s.minItems ?? 1, 1), s.maxItems ?? Infinity);
      return Array.from({ length: count }, (_, i) => exampleOf(s.items ?? {}, `${at}[${i}]`, i));
    }
    case "object":
    case undefined: {
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(s.properties ?? {})) {
        out[name] = exampleOf(property, `${at}.${name}`);
      }
      return out;
    }
    default:
      throw new Error(`cannot generate a ${s.type} for ${at}: teach exampleOf`);
  }
}

/** Property paths in the schema whose name is id-like, below the top level (`sources[].competitor_id`). */
function nestedReferences(schema: Schema, at: string, depth = 0, seen = new Set<Schema>()): string[] {
  const s = resolve(schema);
  if (seen.has(s) || depth > 8) return [];
  seen.add(s);
  const found: string[] = [];
  for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) found.push(...nestedReferences(alt, at, depth, seen));
  if (s.items) found.push(...nestedReferences(s.items, `${at}[]`, depth + 1, seen));
  for (const [name, property] of Object.entries(s.properties ?? {})) {
    if (depth > 0 && isIdLike(name)) found.push(`${at}.${name}`);
    found.push(...nestedReferences(property, `${at}.${name}`, depth + 1, seen));
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------------------
// The table.
// ---------------------------------------------------------------------------------------------------------------

interface Reference {
  in: "path" | "query" | "body";
  name: string;
  /** The fixture it takes: the name of a FIXTURES entry, or a RESOURCE_KEYS entry. */
  fixture: string;
}

interface Case {
  operationId: OperationId;
  method: string;
  path: string;
  operation: Operation;
  /** The reference that names workspace A's resource; every other reference names B's own. */
  probe: Reference;
  references: Reference[];
  title: string;
}

interface Exclusion {
  operationId: OperationId;
  reason: string;
}

function buildTable(): { cases: Case[]; excluded: Exclusion[]; problems: string[] } {
  const cases: Case[] = [];
  const excluded: Exclusion[] = [];
  const problems: string[] = [];
  for (const { operationId, method, path } of contractOperations()) {
    const operation = contract.paths[path]![method]!;
    const references: Reference[] = [];
    for (const p of parametersOf(operation)) {
      const key = `${operationId}.${p.name}`;
      if (p.in === "path" && key in RESOURCE_KEYS) references.push({ in: "path", name: p.name, fixture: key });
      else if ((p.in === "path" || p.in === "query") && isIdLike(p.name) && !(key in NOT_REFERENCES)) {
        references.push({ in: p.in, name: p.name, fixture: fixtureName(p.name, path) });
      }
    }
    const body = bodySchemaOf(operation);
    if (body) {
      for (const name of Object.keys(resolve(body).properties ?? {})) {
        if (isIdLike(name) && !(`${operationId}.${name}` in NOT_REFERENCES)) {
          references.push({ in: "body", name, fixture: fixtureName(name, path) });
        }
      }
      for (const nested of nestedReferences(body, "body")) {
        if (!(`${operationId}.${nested.replace(/^body\./, "")}` in NOT_REFERENCES)) {
          problems.push(
            `${operationId}: ${nested} names a resource below the top level; this file does not probe those`,
          );
        }
      }
    }
    if (references.length === 0) continue;
    const exclusion = EXCLUDED[operationId];
    if (exclusion) {
      excluded.push({ operationId, reason: exclusion });
      continue;
    }
    if (Array.isArray(operation.security) && operation.security.length === 0) {
      problems.push(
        `${operationId} is public and names a resource: probe it here or list it in EXCLUDED with a reason`,
      );
      continue;
    }
    const route = `${method.toUpperCase()} ${path}`;
    for (const probe of references.filter((r) => r.in === "path").slice(0, 1)) {
      cases.push({ operationId, method, path, operation, probe, references, title: `${route} (${operationId})` });
    }
    for (const probe of references.filter((r) => r.in !== "path")) {
      const title = `${route} (${operationId}) with A's ${probe.name} in the ${probe.in}`;
      cases.push({ operationId, method, path, operation, probe, references, title });
    }
  }
  return { cases, excluded, problems };
}

const table = buildTable();

// ---------------------------------------------------------------------------------------------------------------
// Two tenants, each with one of every resource.
// ---------------------------------------------------------------------------------------------------------------

interface Tenant {
  owner: TestMember;
  /** Part of the tenant's names and domain: no answer to the other tenant may contain it. */
  marker: string;
  competitorId: string;
  sourceId: string;
  eventId: string;
  ruleId: string;
  digestId: string;
  suppressedEmail: string;
  accountId: string;
  storyId: string;
}

let app: TestApp;
beforeAll(async () => {
  // API only: no worker or scheduler changes a row between the two snapshots of a case.
  app = await startTestApp({ ROLE: "api" });
});
afterAll(async () => app?.stop());

const knex = (): Knex => app.service.services.knex;

async function seedTenant(label: string): Promise<Tenant> {
  const marker = `tenant-${label}-${randomBytes(4).toString("hex")}`;
  // Enterprise, so no plan limit answers before the tenancy check; not an admin, so no admin rule applies.
  const owner = await createWorkspace(app, { plan: "enterprise", isAdmin: false, name: `Workspace ${marker}` });
  const competitor = await createCompetitor(app, owner, { name: `Competitor ${marker}`, domain: `${marker}.example` });
  const competitorId = competitor.id;
  // One URL for every workspace of a label (the marker is in the names): the factory extracts its pages once.
  const source = await createSource(app, owner, { competitorId, url: `https://tenant-${label}.example/pricing` });
  // Independent rows in parallel: the table runs dozens of cases, each with a fresh workspace A.
  const [event, rule, suppression, subscription, connection] = await Promise.all([
    createDetectedEvent(app, owner, {
      competitorId,
      source_id: source.id,
      title: `${marker} raised Pro from $49 to $59/month`,
    }),
    createAlertRule(app, owner, { competitorId, frequency: "daily" }),
    createSuppression(app, owner, { email: `suppressed-${marker}@example.com` }),
    createWebhookSubscription(app, owner),
    createCrmConnection(app, owner),
    createCompetitorProfile(app, { competitorId, summary: `Profile of ${marker}` }),
  ]);
  const eventId = event.id;
  const [digest] = await Promise.all([
    // After the event, so that the digest's payload holds it.
    createDigest(app, owner),
    createWebhookDelivery(app, { subscriptionId: subscription.id, eventId, status: "delivered" }),
    createAlertDelivery(app, { eventId, channel: "email", recipient: owner.email, status: "sent" }),
    createCrmSync(app, { connectionId: connection.id, eventId }),
  ]);
  await createDigestDelivery(app, owner, { digestId: digest.id, recipient_email: owner.email, status: "sent" });
  const account = await createTargetAccount(app, owner, { company_name: `Account ${marker}`, competitorId });
  const story = await createSwitcherStory(app, owner, { company_name: `Story ${marker}`, accountId: account.id });
  return {
    owner,
    marker,
    competitorId,
    sourceId: source.id,
    eventId,
    ruleId: rule.id,
    digestId: digest.id,
    suppressedEmail: suppression.email,
    accountId: account.id,
    storyId: story.id,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Everything of a workspace, to compare before and after a call.
// ---------------------------------------------------------------------------------------------------------------

interface ForeignKey {
  table: string;
  column: string;
  references: string;
  referenced_column: string;
}

interface Catalogue {
  tables: string[];
  columns: Map<string, Set<string>>;
  foreignKeys: ForeignKey[];
}

let catalogue: Catalogue | undefined;

async function readCatalogue(): Promise<Catalogue> {
  if (catalogue) return catalogue;
  const columns = await knex()
    .select("table_name", "column_name")
    .from("information_schema.columns")
    .where({ table_schema: "public" });
  const tables: { table_name: string }[] = await knex()
    .select("table_name")
    .from("information_schema.tables")
    .where({ table_schema: "public", table_type: "BASE TABLE" })
    .orderBy("table_name");
  const { rows: foreignKeys } = await knex().raw(
    `SELECT c.conrelid::regclass::text AS "table", a.attname AS "column",
            c.confrelid::regclass::text AS "references", fa.attname AS referenced_column
       FROM pg_constraint c
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
      WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace AND cardinality(c.conkey) = 1`,
  );
  const byTable = new Map<string, Set<string>>();
  for (const { table_name, column_name } of columns) {
    if (!byTable.has(table_name)) byTable.set(table_name, new Set());
    byTable.get(table_name)!.add(column_name);
  }
  catalogue = { tables: tables.map((t) => t.table_name), columns: byTable, foreignKeys };
  return catalogue;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * SQL condition on `alias` selecting the rows of `table` that belong to workspace `ws`: its own `workspace_id`, or a
 * foreign key (followed transitively) to a row that does. Users belong through their memberships, and the outbox
 * through its recipients. `null` when the table has no path to a workspace.
 */
function ownedBy(c: Catalogue, table: string, alias: string, ws: string, depth = 0): string | null {
  const literal = `'${ws}'::uuid`;
  if (table === "workspaces") return `${alias}.id = ${literal}`;
  if (c.columns.get(table)?.has("workspace_id")) return `${alias}.workspace_id = ${literal}`;
  const members = `SELECT m.user_id FROM memberships m WHERE m.workspace_id = ${literal}`;
  if (table === "users") return `${alias}.id IN (${members})`;
  if (table === "email_outbox") {
    return `lower(${alias}.to_address) IN (SELECT lower(u.email) FROM users u WHERE u.id IN (${members}))`;
  }
  if (depth > 5) return null;
  const inner = `t${depth + 1}`;
  const clauses = c.foreignKeys
    .filter((fk) => fk.table === table)
    .flatMap((fk) => {
      const condition = ownedBy(c, fk.references, inner, ws, depth + 1);
      return condition
        ? [
            `${alias}."${fk.column}" IN (SELECT ${inner}."${fk.referenced_column}" FROM "${fk.references}" ${inner} WHERE ${condition})`,
          ]
        : [];
    });
  return clauses.length > 0 ? `(${clauses.join(" OR ")})` : null;
}

/** A row as JSON, with long texts (page bodies, payloads) replaced by their digest so a failing diff stays readable. */
function rowDigest(json: string): string {
  const row = JSON.parse(json) as Record<string, unknown>;
  for (const [key, value] of Object.entries(row)) {
    const text =
      typeof value === "string" ? value : value !== null && typeof value === "object" ? JSON.stringify(value) : null;
    if (text !== null && text.length > 200) {
      row[key] = `<${text.length} characters, sha256 ${createHash("sha256").update(text).digest("hex").slice(0, 16)}>`;
    }
  }
  return JSON.stringify(row);
}

/**
 * Every row of the workspace, table by table, in a stable order, plus the queued jobs that name any of them: a call
 * that changed, added or removed anything of the workspace changes this.
 */
async function workspaceState(workspaceId: string): Promise<Record<string, string[]>> {
  if (!UUID.test(workspaceId)) throw new Error(`not a workspace id: ${workspaceId}`);
  const c = await readCatalogue();
  const selects = c.tables
    .filter((table) => !(table in NOT_TENANT_DATA))
    .map((table) => {
      const condition = ownedBy(c, table, "t0", workspaceId);
      if (!condition) throw new Error(`table ${table} belongs to no workspace: list it in NOT_TENANT_DATA with why`);
      return `SELECT '${table}' AS "table", row_to_json(t0)::text AS row FROM "${table}" t0 WHERE ${condition}`;
    });
  const { rows } = await knex().raw(`${selects.join(" UNION ALL ")} ORDER BY 1, 2`);
  const state: Record<string, string[]> = {};
  const ids = new Set<string>([workspaceId]);
  for (const { table, row } of rows as { table: string; row: string }[]) {
    (state[table] ??= []).push(rowDigest(row));
    const id = (JSON.parse(row) as { id?: unknown }).id;
    if (typeof id === "string") ids.add(id);
  }
  const { rows: jobs } = await knex().raw(
    `SELECT json_build_object('name', name, 'state', state, 'data', data)::text AS row
       FROM pgboss.job WHERE data::text LIKE ANY(?) ORDER BY 1`,
    [[...ids].map((id) => `%${id}%`)],
  );
  state["pgboss.job"] = jobs.map((r: { row: string }) => rowDigest(r.row));
  return state;
}

// ---------------------------------------------------------------------------------------------------------------
// One case: B calls the operation with A's resource where the probe is, its own everywhere else.
// ---------------------------------------------------------------------------------------------------------------

const isPending = (c: Case) => PENDING.has(c.operationId);

function idOf(c: Case, reference: Reference, tenant: Tenant): string | string[] {
  const fixture = FIXTURES[reference.fixture] ?? RESOURCE_KEYS[reference.fixture];
  let value: string;
  if (fixture) value = fixture(tenant);
  // The answer of a pending operation (501) or an admin one (403) comes before any lookup: a stand-in id will do
  // until the operation is built, and then this branch no longer applies and the case fails as it should.
  else if (isPending(c) || isAdminPath(c.path)) value = randomUUID();
  else {
    const what = reference.in === "body" ? "request field" : `${reference.in} parameter`;
    throw new Error(
      `no fixture for ${what} ${reference.name} of operation ${c.operationId}: ` +
        `make one in seedTenant and name it in FIXTURES (test/contract/tenancy.test.ts)`,
    );
  }
  return reference.name.endsWith("_ids") ? [value] : value;
}

function buildRequest(c: Case, a: Tenant, b: Tenant): { url: string; body?: Record<string, unknown> } {
  // Probing the path, every path parameter names A's (a child of A's resource under A's parent); probing a field,
  // the path names B's own resource, so that the field is the only foreign thing in the request.
  const ownerOf = (reference: Reference) =>
    reference === c.probe || (c.probe.in === "path" && reference.in === "path") ? a : b;
  const pathValues: Record<string, string> = {};
  const query = new URLSearchParams();
  for (const p of parametersOf(c.operation)) {
    const reference = c.references.find((r) => r.in === p.in && r.name === p.name);
    if (p.in === "path") {
      pathValues[p.name] = reference
        ? String(idOf(c, reference, ownerOf(reference)))
        : String(exampleOf(p.schema ?? {}, p.name));
    } else if (p.in === "query") {
      if (reference === c.probe) query.set(p.name, String(idOf(c, reference, a)));
      else if (p.required) {
        query.set(p.name, String(reference ? idOf(c, reference, b) : exampleOf(p.schema ?? {}, p.name)));
      }
    }
  }
  let url = c.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathValues[name]!));
  if ([...query].length > 0) url += `?${query}`;

  const schema = bodySchemaOf(c.operation);
  if (!schema) return { url };
  const body = exampleOf(schema, "body") as Record<string, unknown>;
  const required = new Set(resolve(schema).required ?? []);
  for (const reference of c.references.filter((r) => r.in === "body")) {
    if (reference === c.probe) body[reference.name] = idOf(c, reference, a);
    // The contract requires such a field to equal the path's (e.g. `workspace_id`, "422 otherwise").
    else if (reference.name in pathValues) body[reference.name] = pathValues[reference.name];
    else if (required.has(reference.name)) body[reference.name] = idOf(c, reference, b);
    else delete body[reference.name];
  }
  return { url, body };
}

function expectedOutcome(c: Case): Outcome {
  if (isAdminPath(c.path)) return { status: 403 };
  if (isPending(c)) return { status: 501 };
  const key = c.probe.in === "path" ? c.operationId : `${c.operationId}.${c.probe.name}`;
  const override = OUTCOMES[key];
  if (override) return override;
  // A body field that must equal a path parameter is a validation failure when it names another workspace.
  if (c.probe.in === "body" && c.references.some((r) => r.in === "path" && r.name === c.probe.name)) {
    return { status: 422 };
  }
  if (!("404" in c.operation.responses)) {
    throw new Error(
      `${c.operationId} documents no 404, so this file cannot know what another workspace's ${c.probe.name} ` +
        `answers: say it in OUTCOMES (test/contract/tenancy.test.ts), citing the contract`,
    );
  }
  return { status: 404 };
}

function send(c: Case, bearer: string, request: { url: string; body?: Record<string, unknown> }): supertest.Test {
  const method = c.method as keyof ContractClient;
  if (!["get", "post", "patch", "put", "delete"].includes(method)) throw new Error(`no client for ${c.method}`);
  const test = app.http[method](request.url).set("Authorization", bearer);
  return request.body === undefined ? test : test.send(request.body);
}

describe("the tenancy table", () => {
  it("is derived from openapi.json, and every exception it lists still exists", () => {
    const operations = new Set<string>(contractOperations().map((o) => o.operationId));
    const fieldKeys = new Set(
      contractOperations().flatMap(({ operationId, method, path }) => {
        const operation = contract.paths[path]![method]!;
        const body = bodySchemaOf(operation);
        return [
          ...parametersOf(operation).map((p) => `${operationId}.${p.name}`),
          ...Object.keys(body ? (resolve(body).properties ?? {}) : {}).map((name) => `${operationId}.${name}`),
        ];
      }),
    );
    expect(table.problems).toEqual([]);
    expect(Object.keys(EXCLUDED).filter((id) => !operations.has(id))).toEqual([]);
    expect(Object.keys(OUTCOMES).filter((key) => !operations.has(key) && !fieldKeys.has(key))).toEqual([]);
    expect([...Object.keys(NOT_REFERENCES), ...Object.keys(RESOURCE_KEYS)].filter((k) => !fieldKeys.has(k))).toEqual(
      [],
    );
    expect(table.cases.length).toBeGreaterThan(0);
  });

  it("excludes only public operations, which have no caller and so no tenant", () => {
    const publicOperations = contractOperations()
      .filter(({ method, path }) => contract.paths[path]![method]!.security?.length === 0)
      .map((o) => o.operationId);
    expect(table.excluded.map((e) => e.operationId).filter((id) => !publicOperations.includes(id))).toEqual([]);
  });

  it("reaches every table from a workspace, or says why a table belongs to none", async () => {
    const c = await readCatalogue();
    const orphans = c.tables.filter((t) => !(t in NOT_TENANT_DATA) && !ownedBy(c, t, "t0", randomUUID()));
    expect(orphans).toEqual([]);
    expect(Object.keys(NOT_TENANT_DATA).filter((t) => !c.tables.includes(t))).toEqual([]);
  });
});

// Concurrent: each case makes its own workspace A and compares only A's rows, so cases cannot see each other.
describe.concurrent("another workspace's resource", () => {
  // The caller. Only its bearer and, when a field is probed, its own resources in the path are used; nothing of it is
  // compared, so one workspace B serves every case.
  let b: Tenant;
  beforeAll(async () => {
    b = await seedTenant("b");
  });

  it.for(table.cases.map((c) => [c.title, c] as const))("%s", async ([, c], { expect }) => {
    const expected = expectedOutcome(c);
    const a = await seedTenant("a");
    const request = buildRequest(c, a, b);
    const before = await workspaceState(a.owner.workspaceId);

    const res = await send(c, b.owner.bearer, request);

    const where = `${c.method.toUpperCase()} ${request.url} ${JSON.stringify(request.body ?? null)} → ${res.status} ${res.text}`;
    expect(res.status, where).toBe(expected.status);
    if (expected.body) expect(res.body, where).toEqual(expected.body(a));
    else if (expected.status === 422) expect(Array.isArray(res.body.detail), where).toBe(true);
    else expect(typeof res.body.detail, where).toBe("string");
    expect(res.text, `${where}: the answer shows workspace A's data`).not.toContain(a.marker);
    expect(await workspaceState(a.owner.workspaceId), `${where}: workspace A changed`).toEqual(before);
  });
});
