/**
 * The one contract check every test response goes through: the status must be documented for the operation, the
 * body must validate against generated/openapi.json, required response headers must be present, and unknown routes
 * must answer the JSON error envelope. Bodies are checked strictly: an object may carry only the properties its schema
 * declares (see sealObjectSchemas), so an internal column that leaks into a response fails the test that sees it.
 */
import type { Ajv } from "ajv";
import { OpenAPIBackend } from "openapi-backend";
import type supertest from "supertest";
import { openApiDocument } from "../../src/contract.js";
import { accelerateRouting } from "../../src/http/fast-router.js";
import { addContractFormats } from "../../src/http/formats.js";
import { PENDING } from "../../src/handlers.js";
import type { OperationId } from "../../src/http/handler.js";

type Response = supertest.Response;

let backend: OpenAPIBackend | undefined;

/** Loads the contract validator once per test file (openapi-backend dereferences the document asynchronously). */
export async function loadContract(): Promise<void> {
  if (backend) return;
  const api = new OpenAPIBackend({
    definition: sealObjectSchemas(structuredClone(openApiDocument())),
    validate: true,
    // Compiles each operation's validators on first use instead of all ~90 at start (14 ms instead of 10-30 s per
    // test file on these 2 cores) and skips re-validating the document, which its own tests check
    // (test/contract/operations.test.ts, Spectral in `npm run lint:spec`).
    quick: true,
    ajvOpts: { allErrors: true, strict: false },
    customizeAjv: (ajv: Ajv) => addContractFormats(ajv),
  });
  await api.init();
  // openapi-backend's own matcher rebuilds its operation list and path regexps on every call: ~5 ms per response.
  accelerateRouting(api);
  backend = api;
}

/**
 * Marks every object schema that lists its properties and says nothing of others as `additionalProperties: false`.
 * OpenAPI lets an object carry undeclared properties unless told otherwise; a client generated from the contract
 * would silently drop them, so a response that sends one is off-contract (and often a leak of an internal column).
 * Safe here because the document composes objects only through `oneOf` of whole objects, never `allOf` of parts
 * (allOf wraps single `$ref`s to attach descriptions), which a sealed part would break.
 */
export function sealObjectSchemas<T>(node: T): T {
  if (Array.isArray(node)) {
    for (const item of node) sealObjectSchemas(item);
  } else if (node && typeof node === "object") {
    const schema = node as Record<string, unknown>;
    if (schema.type === "object" && schema.properties && schema.additionalProperties === undefined) {
      schema.additionalProperties = false;
    }
    for (const value of Object.values(schema)) sealObjectSchemas(value);
  }
  return node;
}

function contract(): OpenAPIBackend {
  if (!backend) throw new Error("call loadContract() before checking responses");
  return backend;
}

export class ContractViolation extends Error {}

/** What the check needs of a response, whichever client received it. */
export interface ObservedResponse {
  method: string;
  /** The request path, with or without a query string. */
  path: string;
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The parsed JSON body, when there is one. */
  body: unknown;
  /** The raw body text. */
  text: string;
}

/** The contract check for a supertest response (test-app.ts applies it to every request of `app.http`). */
export function matchesContract(res: Response): void {
  const request = (res as unknown as { req: { method: string; path: string } }).req;
  checkResponse({
    method: request.method,
    path: request.path,
    status: res.status,
    headers: res.headers as Record<string, string>,
    body: res.body,
    text: res.text ?? "",
  });
}

/** The contract check for any response: the SDK journey test runs it on what openapi-fetch receives. */
export function checkResponse(res: ObservedResponse): void {
  const url = new URL(res.path, "http://x");
  const api = contract();
  const operation = api.router.matchOperation({ method: res.method, path: url.pathname, query: {}, headers: {} });
  const where = `${res.method} ${url.pathname} → ${res.status}`;
  const isJson = /application\/json/.test(String(res.headers["content-type"] ?? ""));

  if (!operation) {
    // Unknown routes still answer the error envelope (docs/product-rules.md#error-envelopes).
    if (res.status !== 404 && res.status !== 405) throw new ContractViolation(`${where}: no such operation`);
    assertErrorEnvelope(res, where);
    return;
  }
  const operationId = operation.operationId as OperationId;
  if (res.status === 501 && PENDING.has(operationId)) {
    assertErrorEnvelope(res, where);
    return;
  }
  const documented = operation.responses?.[String(res.status)] as
    { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean }> } | undefined;
  if (!documented) {
    throw new ContractViolation(
      `${where}: status ${res.status} is not documented for ${operationId}; body ${JSON.stringify(res.body)}`,
    );
  }
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (header.required && res.headers[name.toLowerCase()] === undefined) {
      throw new ContractViolation(`${where}: required header ${name} is missing`);
    }
  }
  const contentTypes = Object.keys(documented.content ?? {});
  if (contentTypes.length === 0) {
    if (res.text && res.text.length > 0)
      throw new ContractViolation(`${where}: documented without a body, got ${res.text.slice(0, 200)}`);
    return;
  }
  if (!contentTypes.includes("application/json")) {
    const received = String(res.headers["content-type"] ?? "").split(";")[0];
    if (!contentTypes.includes(received!))
      throw new ContractViolation(`${where}: content type ${received} is not one of ${contentTypes}`);
    return;
  }
  if (!isJson)
    throw new ContractViolation(`${where}: expected a JSON body, got ${String(res.headers["content-type"])}`);
  const result = api.validator.validateResponse(res.body, operation, res.status);
  if (result.errors && result.errors.length > 0) {
    throw new ContractViolation(
      `${where}: body does not match the contract of ${operationId}: ${JSON.stringify(result.errors.slice(0, 5))}\nbody: ${String(JSON.stringify(res.body)).slice(0, 1000)}`,
    );
  }
}

function assertErrorEnvelope(res: ObservedResponse, where: string): void {
  if (typeof (res.body as { detail?: unknown } | undefined)?.detail !== "string")
    throw new ContractViolation(`${where}: expected {detail: string}, got ${res.text}`);
}
