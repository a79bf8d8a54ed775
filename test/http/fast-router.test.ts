/**
 * src/http/fast-router.ts replaces openapi-backend's matchOperation and parseRequest with versions compiled at
 * start-up. They must answer exactly as openapi-backend's own do, for every operation of the contract: the same
 * operation (or none), the same parsed request, and so the same validation result.
 */
import type { OpenAPIBackend, Operation, Request } from "openapi-backend";
import { beforeAll, describe, expect, it } from "vitest";
import { contractApi } from "../../src/app.js";
import { contractOperations } from "../../src/contract.js";

let fast: OpenAPIBackend;
let reference: OpenAPIBackend;
let operations: Operation[];

beforeAll(async () => {
  [fast, reference] = await Promise.all([contractApi(), contractApi({ accelerated: false })]);
  operations = reference.router.getOperations();
});

/** Path parameter values that need decoding, and query values as express parses them (repeated keys as arrays). */
function requestsFor(operation: Operation): Request[] {
  const parameters = (operation.parameters ?? []) as { name: string; in: string }[];
  const fill = (value: string) => operation.path.replace(/\{[^}]+\}/g, value);
  const query = Object.fromEntries(parameters.filter((p) => p.in === "query").map((p) => [p.name, "5"]));
  const headers = Object.fromEntries(parameters.filter((p) => p.in === "header").map((p) => [p.name, "abc"]));
  const body = operation.requestBody ? { name: "Acme" } : undefined;
  return [
    {
      method: operation.method.toUpperCase(),
      path: fill("3f1c0b7e-9d4e-4c2a-8f1e-2b7d9c4a5e60"),
      query,
      headers,
      body,
    },
    { method: operation.method.toUpperCase(), path: fill("a%20b%C3%A9"), query: {}, headers: { "X-Mixed": "1" } },
    {
      method: operation.method,
      path: fill("x"),
      query: { ...query, extra: ["1", "2"] },
      headers: { authorization: "Bearer t" },
      body: body && JSON.stringify(body),
    },
  ];
}

describe("the start-up-compiled router", () => {
  it("is compared on every operation of the contract, not a list that could come back short", () => {
    const ids = (list: { operationId?: string }[]) => list.map((operation) => operation.operationId).sort();
    expect(ids(operations)).toEqual(ids(contractOperations()));
    expect(operations.length).toBeGreaterThan(80);
  });

  it("matches every operation's requests to the operation openapi-backend matches", () => {
    for (const operation of operations) {
      for (const request of requestsFor(operation)) {
        expect(fast.router.matchOperation(request)?.operationId, `${request.method} ${request.path}`).toBe(
          reference.router.matchOperation(request)?.operationId,
        );
      }
    }
    // Outside the contract: openapi-backend throws "404-…" for an unknown path and "405-…" for a known path's
    // unregistered method; the app answers with that status.
    const outside: [Request, string][] = [
      [{ method: "GET", path: "/no/such/path", query: {}, headers: {} }, "404"],
      [{ method: "PATCH", path: "/events", query: {}, headers: {} }, "405"],
    ];
    for (const [request, status] of outside) {
      expect(fast.router.matchOperation(request)).toBeUndefined();
      expect(statusThrown(() => fast.router.matchOperation(request, true))).toBe(status);
      expect(statusThrown(() => reference.router.matchOperation(request, true))).toBe(status);
    }
  });

  it("parses and validates every operation's requests as openapi-backend does", () => {
    let compared = 0;
    for (const operation of operations) {
      for (const request of requestsFor(operation)) {
        expect(fast.router.parseRequest(request, operation), `${operation.operationId} ${request.path}`).toEqual(
          reference.router.parseRequest(request, operation),
        );
        const ours = fast.validator.validateRequest(request, operation);
        const theirs = reference.validator.validateRequest(request, operation);
        expect(ours.errors, operation.operationId).toEqual(theirs.errors);
        expect(ours.coerced?.params, operation.operationId).toEqual(theirs.coerced?.params);
        expect(ours.coerced?.query, operation.operationId).toEqual(theirs.coerced?.query);
        compared++;
      }
    }
    expect(compared).toBe(operations.length * 3);
  });

  it("leaves requests with cookies or a raw query string to openapi-backend's own parser", () => {
    const operation = operations.find((candidate) => candidate.operationId === "listEvents")!;
    const requests: Request[] = [
      { method: "GET", path: "/events", query: {}, headers: { cookie: "a=1; b=2" } },
      { method: "GET", path: "/events?limit=5&limit=6", headers: {} },
    ];
    for (const request of requests) {
      expect(fast.router.parseRequest(request, operation)).toEqual(reference.router.parseRequest(request, operation));
    }
  });
});

/** The status a strict match throws with ("404" or "405"), or null when it matched. */
function statusThrown(match: () => unknown): string | null {
  try {
    match();
    return null;
  } catch (error) {
    return (error as Error).message.slice(0, 3);
  }
}
