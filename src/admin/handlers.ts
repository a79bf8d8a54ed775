import { ok, type AreaHandlers, type RequestContext } from "../http/handler.js";
import { AdminService } from "./service.js";

// Platform admins only: enforced for every /admin/* operation in src/http/access.ts.
const service = (ctx: RequestContext) => new AdminService(ctx.services.knex, ctx.services.config.schedulerTickSeconds);

export const adminHandlers: AreaHandlers = {
  listJobs: async (ctx) => ok(await service(ctx).jobs(ctx.query.limit ?? 50)),

  listFailedSources: async (ctx) => ok(await service(ctx).failedSources(ctx.query.limit ?? 50, ctx.query.offset ?? 0)),

  getSourceHealth: async (ctx) => ok(await service(ctx).sourceHealth()),

  getSchedulerStatus: async (ctx) => ok(await service(ctx).scheduler()),
};
