/**
 * Schema-driven fuzzing of the whole contract: 10,000 generated requests spread over every operation of
 * generated/openapi.json, valid and invalid (hostile field values, wrong types, malformed JSON, unknown ids, missing or
 * forged tokens). Every response must be documented for its operation and match its schema (the contract check every
 * test uses), and none may be a 5xx: whatever a client sends gets a 4xx that says why (docs/product-rules.md#status-codes).
 * The only 5xx allowed are the 501 of operations not built yet and a documented 503.
 *
 * A failure prints fast-check's seed and the shrunk request; `FUZZ_SEED=<seed>` replays it.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/contract.js";
import { PENDING } from "../../src/handlers.js";
import type { OperationId } from "../../src/http/handler.js";
import {
  createAlertRule,
  createCompetitor,
  createDigest,
  createEvent,
  createSource,
  createSuppression,
  createSwitcherStory,
  createTargetAccount,
  createWorkspace,
  type TestMember,
} from "../setup/factories.js";
import { hostileString, hostileValue, SchemaArbitraries, type Schema } from "../setup/schema-arbitrary.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

/** At least 10,000 requests in `npm test`; `FUZZ_RUNS` changes it for a local investigation. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);

const PASSWORD_HASHING = new Set<OperationId>(["signUp", "logIn", "resetPassword"]);

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: Schema;
}

interface Operation {
  id: OperationId;
  method: "get" | "post" | "patch" | "put" | "delete";
  path: string;
  parameters: Parameter[];
  body?: Schema;
  documented: Set<string>;
}

interface FuzzRequest {
  operation: Operation;
  url: string;
  headers: Record<string, string>;
  /** The request body as sent: JSON text, malformed text, or nothing. */
  body?: string;
}

type Caller = "owner" | "admin" | "none" | "garbage";

function operationsOf(document: ReturnType<typeof openApiDocument>): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, Record<string, unknown>>)) {
      if (!op || typeof op !== "object" || typeof op.operationId !== "string") continue;
      const content = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content;
      operations.push({
        id: op.operationId as OperationId,
        method: method as Operation["method"],
        path,
        parameters: (op.parameters as Parameter[] | undefined) ?? [],
        body: content?.["application/json"]?.schema,
        documented: new Set(Object.keys((op.responses as object) ?? {})),
      });
    }
  }
  return operations;
}

describe("fuzzing every operation of the contract", () => {
  let app: TestApp;
  let owner: TestMember;
  let admin: TestMember;
  /** Real ids per path parameter name, so generated requests reach past the 404 into the handlers. */
  const knownIds: Record<string, string[]> = {};

  beforeAll(async () => {
    app = await startTestApp();
    owner = await createWorkspace(app, { plan: "growth" });
    admin = await createWorkspace(app, { plan: "enterprise", isAdmin: true });
    const competitor = await createCompetitor(app, owner);
    const source = await createSource(app, owner, { competitorId: competitor.id });
    const event = await createEvent(app, owner, { competitorId: competitor.id });
    const rule = await createAlertRule(app, owner, {});
    const digest = await createDigest(app, owner);
    const suppression = await createSuppression(app, owner, { email: "bounced@example.com" });
    const account = await createTargetAccount(app, owner, { competitorId: competitor.id });
    const story = await createSwitcherStory(app, owner, { accountId: account.id });
    Object.assign(knownIds, {
      competitor_id: [competitor.id],
      source_id: [source.id],
      event_id: [event.id],
      rule_id: [rule.id],
      digest_id: [digest.id],
      email: [suppression.email],
      workspace_id: [owner.workspaceId],
      account_id: [account.id],
      story_id: [story.id],
    });
  });

  afterAll(async () => {
    await app?.stop();
  });

  it(`answers ${RUNS.toLocaleString("en")} generated requests within the contract and without a 5xx`, async () => {
    const document = openApiDocument();
    const schemas = new SchemaArbitraries(document as never);
    const operations = operationsOf(document);
    const bearer: Record<Caller, string | undefined> = {
      owner: owner.bearer,
      admin: admin.bearer,
      none: undefined,
      garbage: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
    };
    const counts = new Map<number, number>();
    const timeByOperation = new Map<string, number>();

    const requestFor = (operation: Operation): fc.Arbitrary<FuzzRequest> =>
      fc
        .record({
          path: fc.tuple(...pathValues(operation, knownIds), fc.constant("")),
          query: queryOf(operation, schemas),
          headers: headersOf(operation),
          caller: fc.constantFrom<Caller>("owner", "owner", "owner", "admin", "none", "garbage"),
          body: bodyOf(operation, schemas),
        })
        .map(({ path, query, headers, caller, body }) => {
          let index = 0;
          const filled = operation.path.replace(/\{[^}]+\}/g, () => pathSegment(path[index++]!));
          const url = query.toString() ? `${filled}?${query}` : filled;
          const auth = bearer[caller];
          return describedRequest({
            operation,
            url,
            headers: auth ? { ...headers, authorization: auth } : headers,
            body,
          });
        });

    const runStarted = performance.now();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          ...operations.map((operation) => ({
            arbitrary: requestFor(operation),
            // A password hash costs ~0.45 s of a core by design (src/auth/passwords.ts): the operations that compute
            // one are sent a quarter as often, so the run stays within minutes on 2 cores.
            weight: PASSWORD_HASHING.has(operation.id) ? 1 : 4,
          })),
        ),
        async (request) => {
          const started = performance.now();
          const response = await send(app, request);
          const id = request.operation.id;
          timeByOperation.set(id, (timeByOperation.get(id) ?? 0) + performance.now() - started);
          counts.set(response.status, (counts.get(response.status) ?? 0) + 1);
          const allowed5xx =
            (response.status === 501 && PENDING.has(request.operation.id)) ||
            (response.status === 503 && request.operation.documented.has("503"));
          if (response.status >= 500 && !allowed5xx) {
            throw new Error(`${request.operation.id} answered ${response.status}: ${response.text.slice(0, 500)}`);
          }
        },
      ),
      {
        numRuns: RUNS,
        seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined,
        // Shrinking replays requests against a database the earlier ones changed; a few hundred steps find a small
        // failing request without running for minutes.
        maxSkipsPerRun: 0,
        endOnFailure: false,
      },
    );
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(RUNS);
    // A fuzzer that only ever hits the 401/422 walls proves little: requests must also get through to the handlers.
    expect([...counts.keys()].filter((status) => status >= 200 && status < 300).length).toBeGreaterThan(0);
    const slowest = [...timeByOperation].sort((a, b) => b[1] - a[1]).slice(0, 5);
    const sending = [...timeByOperation.values()].reduce((a, b) => a + b, 0);
    console.log(
      `fuzz: ${total} requests in ${((performance.now() - runStarted) / 1000).toFixed(1)} s, ` +
        `${(sending / 1000).toFixed(1)} s of them answering; statuses ${JSON.stringify(Object.fromEntries([...counts].sort((a, b) => a[0] - b[0])))}; ` +
        `most time: ${slowest.map(([id, ms]) => `${id} ${(ms / 1000).toFixed(1)} s`).join(", ")}`,
    );
  }, 900_000);
});

function pathValues(operation: Operation, knownIds: Record<string, string[]>): fc.Arbitrary<string>[] {
  return operation.parameters
    .filter((p) => p.in === "path")
    .map((p) => {
      const known = knownIds[p.name] ?? [];
      return fc.oneof(
        ...(known.length > 0 ? [{ arbitrary: fc.constantFrom(...known), weight: 6 }] : []),
        { arbitrary: fc.uuid(), weight: 2 },
        { arbitrary: hostileInUrl().filter((s) => s.length > 0), weight: 1 },
      );
    });
}

/**
 * Hostile values that fit in a URL: Node's HTTP parser answers 431 to a request line over 16 KB before the app sees
 * it, which says nothing about the app (huge values are sent in bodies instead).
 */
const hostileInUrl = () => hostileString().filter((s) => s.length <= 200);

/** Percent-encodes a path segment; a lone surrogate becomes the invalid UTF-8 it would be on the wire. */
function pathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80";
  }
}

function queryOf(operation: Operation, schemas: SchemaArbitraries): fc.Arbitrary<URLSearchParams> {
  const params = operation.parameters.filter((p) => p.in === "query");
  if (params.length === 0) return fc.constant(new URLSearchParams());
  const values = params.map((p) =>
    fc.option(fc.oneof({ arbitrary: schemas.valid(p.schema), weight: 4 }, { arbitrary: hostileInUrl(), weight: 1 }), {
      // A required parameter is usually present; an optional one usually absent.
      freq: p.required ? 8 : 2,
    }),
  );
  return fc.tuple(...values).map((chosen) => {
    const query = new URLSearchParams();
    chosen.forEach((value, i) => {
      if (value !== null && value !== undefined) query.set(params[i]!.name, String(value));
    });
    return query;
  });
}

function headersOf(operation: Operation): fc.Arbitrary<Record<string, string>> {
  const params = operation.parameters.filter((p) => p.in === "header");
  if (params.length === 0) return fc.constant({});
  return fc
    .tuple(...params.map(() => fc.option(fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")))))
    .map((values) => {
      const headers: Record<string, string> = {};
      values.forEach((value, i) => {
        if (value !== null) headers[params[i]!.name.toLowerCase()] = value;
      });
      return headers;
    });
}

function bodyOf(operation: Operation, schemas: SchemaArbitraries): fc.Arbitrary<string | undefined> {
  if (!operation.body) return fc.constant(undefined);
  return fc.oneof(
    { arbitrary: schemas.valid(operation.body).map((v) => JSON.stringify(v)), weight: 3 },
    { arbitrary: schemas.nearlyValid(operation.body).map((v) => JSON.stringify(v)), weight: 3 },
    { arbitrary: hostileValue().map((v) => JSON.stringify(v)), weight: 1 },
    { arbitrary: fc.constantFrom('{"name": ', "not json", "[".repeat(10_000), '{"a":1}x'), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

/** How fast-check prints a failing request: short enough to read (bodies and URLs can be 100 KB). */
function describedRequest(request: FuzzRequest): FuzzRequest {
  const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);
  return Object.assign(request, {
    [fc.toStringMethod]: () =>
      `${request.operation.method.toUpperCase()} ${clip(request.url)} as ${request.headers.authorization ? "caller" : "anonymous"}` +
      (request.body === undefined ? "" : ` body ${clip(request.body)}`),
  });
}

async function send(app: TestApp, request: FuzzRequest) {
  const test = app.http[request.operation.method](request.url).set(request.headers);
  if (request.body === undefined) return test;
  return test.set("content-type", "application/json").send(request.body);
}
