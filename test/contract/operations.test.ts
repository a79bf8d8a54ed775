/**
 * The contract covers every operation of the product's interface (listed below), every operation has exactly one of a
 * handler or a pending entry, and generated/ matches spec/.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildContract } from "../../scripts/build-spec.js";
import { contractOperations } from "../../src/contract.js";
import { HANDLERS, PENDING } from "../../src/handlers.js";

/**
 * Every operation of the product's interface, 96 in all, including the two documentation endpoints: method, path and
 * success status. This list is the reference the contract must keep covering.
 */
const SPECIFIED = `
GET /admin/demo-workspace 200
POST /admin/demo-workspace 200
DELETE /admin/demo-workspace 200
GET /admin/firehose/monitors 200
GET /admin/jobs 200
GET /admin/scheduler 200
GET /admin/sources/failures 200
GET /admin/sources/health 200
GET /alert-rules 200
POST /alert-rules 201
PATCH /alert-rules/{rule_id} 200
DELETE /alert-rules/{rule_id} 204
POST /auth/signup 201
POST /auth/login 200
GET /auth/me 200
POST /auth/forgot-password 200
POST /auth/reset-password 200
POST /auth/session 204
DELETE /auth/session 204
POST /chat 200
GET /competitors 200
POST /competitors 201
GET /competitors/{competitor_id} 200
PATCH /competitors/{competitor_id} 200
DELETE /competitors/{competitor_id} 204
GET /competitors/{competitor_id}/sources 200
GET /competitors/{competitor_id}/pricing-history 200
POST /competitors/{competitor_id}/sources 201
POST /competitors/{competitor_id}/discover-sources 200
POST /competitors/{competitor_id}/profile 200
POST /competitors/{competitor_id}/add-enriched-sources 200
PATCH /sources/{source_id} 200
DELETE /sources/{source_id} 204
POST /sources/{source_id}/run-now 202
PATCH /sources/{source_id}/health 200
GET /sources/{source_id}/learned-rules 200
DELETE /sources/{source_id}/learned-rules/{rule_id} 204
GET /source-notices 200
GET /digests 200
POST /digests 201
GET /digests/{digest_id} 200
POST /digests/{digest_id}/send 200
GET /digests/{digest_id}/deliveries 200
GET /digests/suppressions 200
POST /digests/suppressions 201
DELETE /digests/suppressions/{email} 204
POST /digests/webhooks/email 202
GET /displacement/accounts 200
POST /displacement/accounts 201
GET /displacement/accounts/cadence 200
GET /displacement/accounts/{account_id} 200
PATCH /displacement/accounts/{account_id} 200
DELETE /displacement/accounts/{account_id} 204
POST /displacement/accounts/{account_id}/signals 201
POST /displacement/accounts/{account_id}/teardown 201
GET /displacement/accounts/{account_id}/teardowns 200
GET /displacement/stories 200
POST /displacement/stories 201
PATCH /displacement/stories/{story_id} 200
DELETE /displacement/stories/{story_id} 204
GET /events 200
GET /events/activity 200
GET /events/{event_id} 200
PATCH /events/{event_id}/status 200
POST /v1/workspaces 201
GET /v1/workspaces/{workspace_id} 200
POST /v1/workspaces/{workspace_id}/alerts/subscribe 200
GET /v1/workspaces/{workspace_id}/digest 200
GET /v1/workspaces/{workspace_id}/events 200
POST /v1/workspaces/{workspace_id}/monitors 201
GET /v1/workspaces/{workspace_id}/monitors/health 200
GET /health 200
GET /insights 200
GET /insights/{competitor_id} 200
POST /insights/reanalyze/{competitor_id} 200
POST /marketing/events 204
GET /stats/feed 200
GET /stats/hero 200
POST /beta-claims 201
POST /billing/checkout 200
POST /billing/portal 200
POST /billing/webhook 200
GET /me/plan 200
GET /pricing/plans 200
GET /me/preferences 200
PATCH /me/preferences 200
POST /support/admin/setup 200
POST /support/admin/sync 200
GET /support/threads 200
GET /support/threads/{thread_id} 200
POST /support/threads/{thread_id}/close 200
POST /support/threads/{thread_id}/escalate 200
POST /support/threads/{thread_id}/reply 200
POST /support/webhooks/agentmail 202
GET /openapi.json 200
GET /docs 200
`
  .trim()
  .split("\n")
  .map((line) => {
    const [method, path, status] = line.split(" ");
    return { method: method!.toLowerCase(), path: path!, status: status! };
  });

/** Public operations (docs/product-rules.md#public-operations), the one-click unsubscribe included. */
const PUBLIC = new Set([
  "GET /health",
  "GET /openapi.json",
  "GET /docs",
  "POST /auth/signup",
  "POST /auth/login",
  "POST /auth/forgot-password",
  "POST /auth/reset-password",
  "POST /auth/session",
  "DELETE /auth/session",
  "GET /pricing/plans",
  "GET /stats/feed",
  "GET /stats/hero",
  "POST /marketing/events",
  "POST /billing/webhook",
  "POST /digests/webhooks/email",
  "POST /support/webhooks/agentmail",
  "GET /unsubscribe",
  "POST /unsubscribe",
]);

const document = JSON.parse(readFileSync("generated/openapi.json", "utf8"));

describe("the contract", () => {
  it("lists the 96 operations of the product's interface", () => {
    expect(SPECIFIED).toHaveLength(96);
  });

  it.each(SPECIFIED)("has $method $path answering $status", ({ method, path, status }) => {
    const operation = document.paths[path]?.[method];
    expect(operation, `${method.toUpperCase()} ${path} is missing`).toBeDefined();
    expect(Object.keys(operation.responses)).toContain(status);
    expect(operation.operationId).toMatch(/^[a-z][A-Za-z]+$/);
    expect(operation.description ?? operation.summary, "every operation is documented").toBeTruthy();
  });

  it("requires the bearer token (or the web app's session cookie) everywhere except the public operations", () => {
    for (const { method, path } of contractOperations()) {
      const security = document.paths[path][method].security ?? document.security;
      const key = `${method.toUpperCase()} ${path}`;
      if (PUBLIC.has(key)) expect(security, key).toEqual([]);
      else expect(security, key).toEqual([{ BearerAuth: [] }, { SessionCookie: [] }]);
    }
  });

  it("documents 401 on every authenticated operation and 422 on every operation with input", () => {
    for (const { method, path } of contractOperations()) {
      const operation = document.paths[path][method];
      const key = `${method.toUpperCase()} ${path}`;
      if (!PUBLIC.has(key)) expect(Object.keys(operation.responses), key).toContain("401");
      const hasInput =
        (operation.parameters ?? []).some((p: { in: string }) => p.in !== "header") || operation.requestBody;
      if (hasInput) expect(Object.keys(operation.responses), key).toContain("422");
    }
  });

  it("documents every schema, property and parameter", () => {
    const undocumented: string[] = [];
    for (const [name, schema] of Object.entries<any>(document.components.schemas)) {
      if (!schema.description) undocumented.push(`schema ${name}`);
      for (const [property, definition] of Object.entries<any>(schema.properties ?? {})) {
        if (!definition.description) undocumented.push(`${name}.${property}`);
      }
    }
    for (const { method, path } of contractOperations()) {
      for (const parameter of document.paths[path][method].parameters ?? []) {
        if (!parameter.description) undocumented.push(`${method} ${path} ${parameter.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it("has unique operationIds", () => {
    const ids = contractOperations().map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("emits scalar query parameters without explode: false (openapi-backend would split them)", () => {
    for (const { method, path } of contractOperations()) {
      for (const parameter of document.paths[path][method].parameters ?? []) {
        if (parameter.in === "query" && parameter.schema?.type !== "array")
          expect(parameter.explode, `${path} ${parameter.name}`).toBeUndefined();
      }
    }
  });
});

describe("the handler registry", () => {
  const operationIds = contractOperations().map((o) => o.operationId);

  it("covers every operation with a handler or a pending entry", () => {
    const covered = new Set([...Object.keys(HANDLERS), ...PENDING]);
    expect(operationIds.filter((id) => !covered.has(id))).toEqual([]);
  });

  it("never has both a handler and a pending entry for one operation", () => {
    expect(Object.keys(HANDLERS).filter((id) => PENDING.has(id as never))).toEqual([]);
  });

  it("has no handler or pending entry for an operation the contract does not have", () => {
    const known = new Set(operationIds);
    expect([...Object.keys(HANDLERS), ...PENDING].filter((id) => !known.has(id as never))).toEqual([]);
  });
});

describe("generated/", () => {
  it("is what spec/ compiles to (run npm run build:spec after changing spec/)", async () => {
    const { openapi, types, sdkTypes, sdk } = await buildContract();
    expect(readFileSync("generated/openapi.json", "utf8") === openapi, "generated/openapi.json is stale").toBe(true);
    expect(readFileSync("generated/api-types.ts", "utf8") === types, "generated/api-types.ts is stale").toBe(true);
    expect(readFileSync("generated/sdk-types.ts", "utf8") === sdkTypes, "generated/sdk-types.ts is stale").toBe(true);
    expect(readFileSync("generated/sdk.ts", "utf8") === sdk, "generated/sdk.ts is stale").toBe(true);
    // A TypeSpec compile: ~30 s of a quiet core, minutes of a busy one.
  }, 240_000);
});
