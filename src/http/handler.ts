/**
 * The shape every operation handler has: `(ctx) => Reply`, keyed by operationId. Request types come from
 * generated/api-types.ts (STYLE.md habit 2), so a handler cannot drift from the contract unnoticed.
 */
import type { Knex } from "knex";
import type { Logger } from "pino";
import type { operations } from "../../generated/api-types.js";
import type { TokenService } from "../auth/tokens.js";
import type { Config } from "../config.js";
import type { DetectionPipeline } from "../detection/pipeline.js";
import type { Jobs } from "../jobs/boss.js";
import type { EmailTransport } from "../lib/email.js";
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
  /** The caller; `null` only on public operations (DESIGN.md §4). */
  auth: AuthContext | null;
  ip: string;
  requestId: string;
  log: Logger;
  services: AppServices;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** A body already serialised as JSON (e.g. built by Postgres), sent as is. */
  json?: string;
  headers?: Record<string, string>;
  /** Defaults to JSON; `text/html` for pages such as /docs. */
  contentType?: string;
}

export type Handler<Op extends OperationId = OperationId> = (ctx: RequestContext<Op>) => Promise<Reply>;

/** A handler map for one area: each key is an operationId and the handler is typed by it. */
export type AreaHandlers = { [Op in OperationId]?: Handler<Op> };

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const accepted = (body: unknown): Reply => ({ status: 202, body });
export const noContent = (): Reply => ({ status: 204 });

/** The caller of an authenticated operation. openapi-backend rejects unauthenticated calls before handlers run. */
export function callerOf(ctx: RequestContext<any>): AuthContext {
  if (!ctx.auth) throw new Error(`operation ${ctx.operationId} ran without an authenticated caller`);
  return ctx.auth;
}
