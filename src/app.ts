/**
 * The HTTP application: express for transport, openapi-backend for routing, authentication and validation against
 * generated/openapi.json, and one handler per operationId from the area registry (src/handlers.ts).
 */
import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import { OpenAPIBackend, type Context } from "openapi-backend";
import type { Ajv } from "ajv";
import type { AccessChangeFeed } from "./auth/access-changes.js";
import { Authenticator } from "./auth/context.js";
import { contractOperations, openApiDocument } from "./contract.js";
import { accessError } from "./http/access.js";
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
  const api = await operationRouter(services, new Authenticator(services.knex, services.tokens, accessChanges));
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", "loopback");
  // Outside the contract and the access log: an operator endpoint, scraped every few seconds.
  app.get("/metrics", metricsHandler(services.config));
  app.use(requestLog(services));
  app.use("/docs/assets", express.static(docsAssetsDirectory(), { immutable: true, maxAge: "1d", index: false }));
  app.use(
    express.json({
      limit: "1mb",
      type: ["application/json", "application/*+json"],
      // Webhook signatures are computed over the exact bytes received.
      verify: (req: RawRequest, _res, buffer) => {
        req.rawBody = buffer;
      },
    }),
  );
  app.use(throughTheContract(api));
  app.use(lastResortErrors);
  return { app, api };
}

/** openapi-backend with every operation's handler: routes, authenticates, authorises and validates, then calls it. */
async function operationRouter(services: AppServices, authenticator: Authenticator): Promise<OpenAPIBackend> {
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

  api.registerSecurityHandler("BearerAuth", async (c: Context) => {
    const auth = await authenticator.authenticate(header(c.request.headers.authorization));
    if (!auth) return false;
    const denied = accessError(c.operation.operationId as OperationId, c.operation.path, auth);
    if (denied) throw denied;
    return auth;
  });

  api.register({
    notFound: async (_c: Context, _req: RawRequest, res: Response) => sendError(res, new ApiError(404, "Not Found")),
    methodNotAllowed: async (_c: Context, _req: RawRequest, res: Response) =>
      sendError(res, new ApiError(405, "Method Not Allowed")),
    unauthorizedHandler: named(async (c: Context, _req: RawRequest, res: Response) => {
      const error = (c.security?.BearerAuth as { error?: unknown } | undefined)?.error;
      sendError(res, error instanceof ApiError ? error : unauthorized());
    }),
    validationFail: named(async (c: Context, _req: RawRequest, res: Response) =>
      sendError(res, new ApiError(422, validationIssues(c.validation.errors))),
    ),
    notImplemented: named(async (c: Context, _req: RawRequest, res: Response) =>
      sendReply(res, pendingReply(c.operation.operationId as OperationId)),
    ),
  });

  for (const { operationId } of contractOperations()) {
    const handler = HANDLERS[operationId] as ((ctx: RequestContext) => Promise<Reply>) | undefined;
    if (!handler) {
      if (!PENDING.has(operationId)) throw new Error(`operation ${operationId} has no handler and is not pending`);
      continue;
    }
    api.register(
      operationId,
      named(async (c: Context, req: RawRequest, res: Response) => {
        const nulIssues = nulCharacterIssues({
          path: c.request.params,
          query: c.request.query,
          body: c.request.requestBody,
        });
        if (nulIssues.length > 0) return sendError(res, new ApiError(422, nulIssues));
        const ctx: RequestContext = {
          operationId,
          path: c.request.params as never,
          query: c.request.query as never,
          body: c.request.requestBody as never,
          headers: req.headers,
          rawBody: req.rawBody,
          auth: (c.security?.BearerAuth as AuthContext | undefined) ?? null,
          ip: req.ip ?? "",
          requestId: req.requestId!,
          log: res.locals.log,
          services,
          reply: REPLY_BUILDER,
        };
        try {
          sendReply(res, await handler(ctx));
        } catch (error) {
          const apiError = error instanceof ApiError ? error : fromDatabaseError(error);
          if (apiError) return sendError(res, apiError);
          throw error;
        }
      }),
    );
  }
  await api.init();
  accelerateRouting(api);
  return api;
}

type RouteHandler = (c: Context, req: RawRequest, res: Response) => Promise<unknown>;

/** Names the request's operation (for its access-log line and its metrics), then handles it. */
function named(handle: RouteHandler): RouteHandler {
  return (c, req, res) => {
    res.locals.operationId = c.operation?.operationId;
    return handle(c, req, res);
  };
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
          req: { method: req.method, url: req.originalUrl },
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

/** Hands every request to openapi-backend. */
function throughTheContract(api: OpenAPIBackend) {
  return async (req: RawRequest, res: Response, next: NextFunction) => {
    // openapi-backend decodes path parameters with decodeURIComponent, which throws on a malformed escape such as
    // `%E0%A4%A`: that is bad input, answered 422 on a known route and 404 elsewhere, never a 500.
    if (!isDecodablePath(req.path)) {
      const known = api.router.matchOperation({ method: req.method, path: req.path, headers: {}, query: {} });
      return sendError(
        res,
        known
          ? new ApiError(422, [
              { loc: ["path"], msg: "Malformed percent-encoding in the URL path", type: "value_error" },
            ])
          : new ApiError(404, "Not Found"),
      );
    }
    try {
      await api.handleRequest(
        // openapi-backend copies the request with `{...req}`, losing express's getters: pass a plain object.
        {
          method: req.method,
          path: req.path,
          query: req.query as never,
          headers: req.headers as never,
          body: req.body,
        },
        req,
        res,
      );
    } catch (error) {
      next(error);
    }
  };
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
    // of events cost a tenth of the request (bench/, GET /events). Node leaves the body out of a HEAD answer itself.
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", Buffer.byteLength(reply.json));
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

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
