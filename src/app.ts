/**
 * The HTTP application: express for transport, openapi-backend for routing, authentication and validation against
 * generated/openapi.json, and one handler per operationId from the area registry (src/handlers.ts).
 */
import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import { OpenAPIBackend, type Operation } from "openapi-backend";
import type { Ajv } from "ajv";
import type { AccessChangeFeed } from "./auth/access-changes.js";
import { Authenticator } from "./auth/context.js";
import { credentialsOf } from "./auth/session-cookie.js";
import { contractOperations, openApiDocument } from "./contract.js";
import { accessError } from "./http/access.js";
import { redactUrl } from "./http/redact.js";
import { accelerateRouting } from "./http/fast-router.js";
import { addContractFormats, nulCharacterIssues } from "./http/formats.js";
import { ApiError, fromDatabaseError, unauthorized, validationIssues } from "./http/errors.js";
import {
  REPLY_BUILDER,
  type AppServices,
  type AuthContext,
  type OperationId,
  type Reply,
  type RequestContext,
} from "./http/handler.js";
import { HANDLERS, PENDING, pendingReply } from "./handlers.js";
import { docsAssetsDirectory } from "./docs/handlers.js";
import { webApp } from "./web/serve.js";
import { metricsHandler } from "./metrics/endpoint.js";
import { metrics } from "./metrics/metrics.js";

interface RawRequest extends Request {
  rawBody?: Buffer;
  requestId?: string;
}

export interface BuiltApp {
  app: express.Express;
  api: OpenAPIBackend;
}

/**
 * `accessChanges`: the process's access-change feed, which lets the app cache callers (src/auth/context.ts); without
 * it every request reads its caller.
 */
export async function buildApp(
  services: AppServices,
  accessChanges: AccessChangeFeed | null = null,
): Promise<BuiltApp> {
  const api = await contractApi();
  const authenticator = new Authenticator(services.knex, services.tokens, accessChanges);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", "loopback");
  // Outside the contract and the access log: an operator endpoint, scraped every few seconds.
  app.get("/metrics", metricsHandler(services.config));
  app.use(requestLog(services));
  app.use(throughTheContract(services, api, authenticator, jsonBodies()));
  // Reached only by paths outside the contract.
  app.use("/docs/assets", express.static(docsAssetsDirectory(), { immutable: true, maxAge: "1d", index: false }));
  // The web app (/app) and the public home page (/): documents for browsers, src/web/serve.ts.
  app.use(webApp());
  app.use((_req: RawRequest, res: Response) => sendError(res, new ApiError(404, "Not Found")));
  app.use(lastResortErrors);
  return { app, api };
}

/** Parses JSON request bodies (1 MB at most), keeping the exact bytes received for webhook signatures. */
function jsonBodies() {
  const parse = express.json({
    limit: "1mb",
    type: ["application/json", "application/*+json"],
    verify: (req: RawRequest, _res, buffer) => {
      req.rawBody = buffer;
    },
  });
  return (req: RawRequest, res: Response) =>
    new Promise<void>((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
}

/**
 * openapi-backend over generated/openapi.json: its router matches a request's operation and its validator checks and
 * coerces the request against that operation. throughTheContract drives both. `accelerated: false` keeps
 * openapi-backend's own router, which test/http/fast-router.test.ts holds the accelerated one to.
 */
export async function contractApi({ accelerated = true } = {}): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition: structuredClone(openApiDocument()),
    strict: true,
    validate: true,
    // Compiles an operation's request validators when it is first called rather than all ~90 at start: start-up
    // drops from seconds to milliseconds (every test file starts the app). The document itself is checked where it
    // is built (test/contract/operations.test.ts, Spectral in `npm run lint:spec`), so skipping that re-check is safe.
    quick: true,
    coerceTypes: true,
    ajvOpts: { allErrors: true, useDefaults: true, strict: false },
    customizeAjv: (ajv: Ajv) => addContractFormats(ajv),
  });
  await api.init();
  if (accelerated) accelerateRouting(api);
  return api;
}

type OperationHandler = (ctx: RequestContext) => Promise<Reply>;

/** Every operation's handler from the area registry; an operation without one must be listed as pending. */
function operationHandlers(): Map<OperationId, OperationHandler> {
  const handlers = new Map<OperationId, OperationHandler>();
  for (const { operationId } of contractOperations()) {
    const handler = HANDLERS[operationId] as OperationHandler | undefined;
    if (handler) handlers.set(operationId, handler);
    else if (!PENDING.has(operationId)) throw new Error(`operation ${operationId} has no handler and is not pending`);
  }
  return handlers;
}

/**
 * Request id (kept from a well-formed `X-Request-Id`, else new), one access-log line per request (pino JSON), and the
 * request's count and latency by operationId (`unmatched`: a path outside the contract).
 */
function requestLog(services: AppServices) {
  return (req: RawRequest, res: Response, next: NextFunction) => {
    const incoming = req.headers["x-request-id"];
    req.requestId = typeof incoming === "string" && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader("X-Request-Id", req.requestId);
    res.locals.log = services.log.child({ requestId: req.requestId });
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const operation: string = res.locals.operationId ?? "unmatched";
      res.locals.log.info(
        {
          // Credentials in the query (an unsubscribe link's token) never reach the log.
          req: { method: req.method, url: redactUrl(req.originalUrl) },
          res: { statusCode: res.statusCode },
          operation,
          responseTime: ms,
        },
        "request completed",
      );
      metrics.httpRequests.inc({ operation, status: String(res.statusCode) });
      metrics.httpDuration.observe({ operation }, ms / 1000);
    });
    next();
  };
}

/**
 * Every request's way through the contract, in order: openapi-backend's router finds its operation (404, 405); the
 * caller is authenticated (401) and authorised for the operation (403, src/http/access.ts); openapi-backend's
 * validator checks the parameters and body and coerces them to their types (422); then the operation's handler runs
 * (501 while it is pending). openapi-backend's own handleRequest takes the same steps but parses the request four
 * times over, a quarter of the API's CPU on GET /events (bench/): driving its router and validator directly parses it
 * once.
 */
function throughTheContract(
  services: AppServices,
  api: OpenAPIBackend,
  authenticator: Authenticator,
  parseBody: (req: RawRequest, res: Response) => Promise<void>,
) {
  const handlers = operationHandlers();
  return async (req: RawRequest, res: Response, next: NextFunction) => {
    try {
      // A malformed or oversized body is answered first, whatever the path (lastResortErrors). Most requests have
      // none: the parser is not even entered for them.
      if (req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined) {
        await parseBody(req, res);
      }
      // openapi-backend decodes path parameters with decodeURIComponent, which throws on a malformed escape such as
      // `%E0%A4%A`: that is bad input, answered 422 on a known route and 404 elsewhere, never a 500.
      const decodable = isDecodablePath(req.path);
      // A plain object: openapi-backend copies the request with `{...req}`, which would lose express's getters.
      const request = {
        method: req.method,
        path: req.path,
        query: req.query as Record<string, string | string[]>,
        headers: req.headers as Record<string, string | string[]>,
        body: req.body as unknown,
      };
      const match = matchOperation(api, request);
      // A path outside the contract may still be a static asset of the docs page (see buildApp).
      if (match === 404) return next();
      if (match === 405) return sendError(res, new ApiError(405, "Method Not Allowed"));
      const operationId = match.operationId as OperationId;
      // Names the request's operation for its access-log line and its metrics.
      res.locals.operationId = operationId;
      if (!decodable) {
        return sendError(
          res,
          new ApiError(422, [
            { loc: ["path"], msg: "Malformed percent-encoding in the URL path", type: "value_error" },
          ]),
        );
      }

      let auth: AuthContext | null = null;
      if (match.security?.length) {
        auth = await authenticator.authenticate(credentialsOf(req.method, req.headers));
        if (!auth) return sendError(res, unauthorized());
        const denied = accessError(operationId, match.path, auth);
        if (denied) return sendError(res, denied);
      }

      const validation = api.validator.validateRequest(request, match);
      if (validation.errors) return sendError(res, new ApiError(422, validationIssues(validation.errors)));
      // The validator coerced the parameters (and filled in their defaults) in place of the parsed ones; the body
      // object was checked and given its defaults as it is.
      const path = validation.coerced?.params ?? {};
      const query = validation.coerced?.query ?? {};
      const nulIssues = nulCharacterIssues({ path, query, body: request.body });
      if (nulIssues.length > 0) return sendError(res, new ApiError(422, nulIssues));

      const handler = handlers.get(operationId);
      if (!handler) return sendReply(res, pendingReply(operationId));
      const ctx: RequestContext = {
        operationId,
        path: path as never,
        query: query as never,
        body: request.body as never,
        headers: req.headers,
        rawBody: req.rawBody,
        auth,
        ip: req.ip ?? "",
        requestId: req.requestId!,
        log: res.locals.log,
        services,
        reply: REPLY_BUILDER,
      };
      sendReply(res, await handler(ctx));
    } catch (error) {
      const apiError = error instanceof ApiError ? error : fromDatabaseError(error);
      if (apiError) return sendError(res, apiError);
      next(error);
    }
  };
}

/** The request's operation, or 404 (no such path) or 405 (the path exists, the method does not). */
function matchOperation(api: OpenAPIBackend, request: Parameters<OpenAPIBackend["router"]["matchOperation"]>[0]) {
  try {
    return api.router.matchOperation(request, true) as Operation;
  } catch (error) {
    return (error as Error).message.startsWith("405") ? 405 : 404;
  }
}

/** Errors that escaped everything else: body-parser failures a client caused, then anything else as a logged 500. */
function lastResortErrors(error: unknown, _req: RawRequest, res: Response, _next: NextFunction): void {
  const parserError = error as { type?: string; status?: number; message?: string; body?: string };
  if (parserError.type === "entity.parse.failed") {
    return sendError(
      res,
      new ApiError(422, [
        { loc: ["body"], msg: "JSON decode error: the body is not valid JSON", type: "json_invalid" },
      ]),
    );
  }
  if (parserError.type === "entity.too.large")
    return sendError(res, new ApiError(413, "Request body too large (1 MB at most)"));
  if (parserError.type === "encoding.unsupported" || parserError.type === "charset.unsupported") {
    return sendError(res, new ApiError(415, "Unsupported content encoding or charset"));
  }
  if (typeof parserError.status === "number" && parserError.status >= 400 && parserError.status < 500) {
    return sendError(res, new ApiError(parserError.status, parserError.message ?? "Bad request"));
  }
  res.locals.log?.error({ err: error }, "unhandled error");
  if (!res.headersSent) sendError(res, new ApiError(500, "Internal Server Error"));
}

function sendReply(res: Response, reply: Reply): void {
  res.status(reply.status);
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if (reply.json !== undefined) {
    // Text Postgres built goes out as it is: express's send would first copy it into a Buffer, which for a 50 KB page
    // of events cost a tenth of the request (bench/, GET /events). Node sets Content-Length itself.
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.end(reply.json);
  } else if (reply.status === 204 || reply.body === undefined) {
    res.end();
  } else if (reply.contentType && reply.contentType !== "application/json") {
    res.type(reply.contentType).send(reply.body);
  } else {
    res.json(reply.body);
  }
}

function sendError(res: Response, error: ApiError): void {
  sendReply(res, { status: error.status, body: error.body, headers: error.headers });
}

function isDecodablePath(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
