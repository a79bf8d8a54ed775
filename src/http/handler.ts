/**
 * The shape every operation handler has: `(ctx) => Reply`, keyed by operationId. Request types come from
 * generated/api-types.ts (docs/architecture.md#types-from-the-contract), so a handler cannot drift from the contract
 * unnoticed.
 */
import type { Knex } from "knex";
import type { Logger } from "pino";
import type { operations } from "../../generated/api-types.js";
import type { Wire } from "./schemas.js";
import type { TokenService } from "../auth/tokens.js";
import { WorkspaceScope } from "../db/tenancy.js";
import type { Config } from "../config.js";
import type { DetectionPipeline } from "../detection/pipeline.js";
import type { Jobs } from "../jobs/boss.js";
import type { EmailTransport } from "../email/transports.js";
import type { HttpClient } from "../lib/http-client.js";
import type { PlanName } from "../workspaces/plans.js";
import type { MemberRole } from "../workspaces/models.js";

export type OperationId = keyof operations;

/** What every handler may use: the process's shared services. */
export interface AppServices {
  config: Readonly<Config>;
  knex: Knex;
  log: Logger;
  tokens: TokenService;
  jobs: Jobs;
  /** The one outbound HTTP client (SSRF guard, caps, timeouts). */
  http: HttpClient;
  /** The transport chosen by EMAIL_TRANSPORT: queued mail is sent through it, and so are digests (sendDigest). */
  email: EmailTransport;
  /** Fetch → extract → diff → classify (used by run-now's worker and by re-analysis). */
  detection: DetectionPipeline;
}

/** The authenticated caller, loaded once per request from the token and the database. */
export interface AuthContext {
  userId: string;
  email: string;
  isAdmin: boolean;
  workspaceId: string;
  role: MemberRole;
  plan: PlanName;
}

type JsonBody<T> = T extends { content: { "application/json": infer B } } ? B : undefined;
type Params<O, K extends string> = O extends { parameters: { [P in K]?: infer Q } } ? NonNullable<Q> : never;

export interface RequestContext<Op extends OperationId = OperationId> {
  operationId: Op;
  path: Params<operations[Op], "path">;
  query: Params<operations[Op], "query">;
  body: operations[Op] extends { requestBody?: infer R } ? JsonBody<NonNullable<R>> : undefined;
  headers: Record<string, string | string[] | undefined>;
  /** The exact bytes received, for signature verification of webhooks. */
  rawBody: Buffer | undefined;
  /** The caller; `null` only on public operations (docs/product-rules.md#public-operations). */
  auth: AuthContext | null;
  ip: string;
  requestId: string;
  log: Logger;
  services: AppServices;
  /** Builds this operation's reply, typed by the contract (see ReplyBuilder). */
  reply: ReplyBuilder<Op>;
}

/** The untyped reply the HTTP layer sends (src/app.ts); handlers build it through the typed helpers below. */
export interface Reply {
  status: number;
  body?: unknown;
  /** A body already serialised as JSON (e.g. built by Postgres), sent as is. */
  json?: string;
  headers?: Record<string, string>;
  /** Defaults to JSON; `text/html` for pages such as /docs. */
  contentType?: string;
}

type Responses<Op extends OperationId> = operations[Op]["responses"];
/** The statuses an operation documents below 400: what a handler returns (errors are thrown as ApiError). */
type SuccessStatus<Op extends OperationId> = Extract<keyof Responses<Op>, number> &
  (200 | 201 | 202 | 204 | 301 | 302 | 303 | 307 | 308);
type ContentOf<R> = R extends { content: infer C } ? C : never;

/**
 * JSON text that Postgres built for a response of type `T` (json_build_object/json_agg): the type records which
 * contract shape the SQL promises, so the handler that sends it is checked against its operation like any other.
 */
export type JsonText<T> = string & { readonly __jsonOf?: T };

/**
 * Every reply an operation may give, per the contract: one of its documented success statuses with a body of that
 * status's type (JSON as a value or as Postgres-built text, or another documented content type as text).
 */
export type ReplyOf<Op extends OperationId> = {
  [S in SuccessStatus<Op>]: ReplyWith<S, ContentOf<Responses<Op>[S]>>;
}[SuccessStatus<Op>];

type ReplyWith<S extends number, C> = [C] extends [never]
  ? { status: S; body?: undefined; json?: undefined; headers?: Record<string, string>; contentType?: undefined }
  : C extends { "application/json": infer B }
    ? | { status: S; body: Wire<B>; json?: undefined; headers?: Record<string, string>; contentType?: undefined }
      | { status: S; json: JsonText<B>; body?: undefined; headers?: Record<string, string>; contentType?: undefined }
    : { status: S; body: string; json?: undefined; headers?: Record<string, string>; contentType: string };

export type Handler<Op extends OperationId = OperationId> = (ctx: RequestContext<Op>) => Promise<ReplyOf<Op>>;

/** A handler map for one area: each key is an operationId and the handler is typed by it. */
export type AreaHandlers = { [Op in OperationId]?: Handler<Op> };

type JsonAt<Op extends OperationId, S> = S extends keyof Responses<Op>
  ? ContentOf<Responses<Op>[S]> extends { "application/json": infer B }
    ? B
    : never
  : never;

/**
 * How a handler answers (`ctx.reply`): one method per success status, each taking exactly the body the contract
 * documents for that status of this operation. A status the operation does not document takes `never`, and an object
 * literal with a field the contract lacks, misnamed or mistyped, fails `tsc` (the parameter types the literal).
 */
export interface ReplyBuilder<Op extends OperationId> {
  ok(body: Wire<JsonAt<Op, 200>>): ReplyOf<Op>;
  /** 200 with JSON text Postgres built (see JsonText). */
  okJson(json: JsonText<JsonAt<Op, 200>>): ReplyOf<Op>;
  /** 200 with a document of another content type (an HTML page). */
  okText(body: string, contentType: string): ReplyOf<Op>;
  /** 200 with binary content of another content type (a PNG screenshot). */
  okBytes(body: Buffer, contentType: string): ReplyOf<Op>;
  created(body: Wire<JsonAt<Op, 201>>): ReplyOf<Op>;
  accepted(body: Wire<JsonAt<Op, 202>>): ReplyOf<Op>;
  noContent(...nothing: 204 extends SuccessStatus<Op> ? [] : [never]): ReplyOf<Op>;
}

/** The one builder behind every `ctx.reply`: the types above do the checking, the values are plain replies. */
export const REPLY_BUILDER: ReplyBuilder<OperationId> = {
  ok: (body) => ({ status: 200, body }) as never,
  okJson: (json) => ({ status: 200, json }) as never,
  okText: (body, contentType) => ({ status: 200, body, contentType }) as never,
  okBytes: (body, contentType) => ({ status: 200, body, contentType }) as never,
  created: (body) => ({ status: 201, body }) as never,
  accepted: (body) => ({ status: 202, body }) as never,
  noContent: () => ({ status: 204 }) as never,
};

/** The caller of an authenticated operation. openapi-backend rejects unauthenticated calls before handlers run. */
export function callerOf(ctx: RequestContext<any>): AuthContext {
  if (!ctx.auth) throw new Error(`operation ${ctx.operationId} ran without an authenticated caller`);
  return ctx.auth;
}

/**
 * What every workspace service is constructed with: the caller (role and plan come from here, and only from here)
 * and their workspace's data, which no query can leave (src/db/tenancy.ts).
 */
export interface Workspace {
  caller: AuthContext;
  scope: WorkspaceScope;
}

/** The caller's workspace, for the service an authenticated operation delegates to. */
export function workspaceOf(ctx: RequestContext<any>): Workspace {
  const caller = callerOf(ctx);
  return { caller, scope: new WorkspaceScope(ctx.services.knex, caller.workspaceId) };
}
