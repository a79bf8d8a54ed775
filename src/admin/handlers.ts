import { type AreaHandlers, type AppServices } from "../http/handler.js";
import { DemoFlag } from "./demo-workspace.js";
import { AdminService } from "./service.js";

// Platform admins only: enforced for every /admin/* operation in src/http/access.ts.
const service = ({ services }: { services: AppServices }) =>
  new AdminService(services.knex, services.config.schedulerTickSeconds);

export const adminHandlers: AreaHandlers = {
  listJobs: async (ctx) => ctx.reply.ok(await service(ctx).jobs(ctx.query.limit ?? 50)),

  listFailedSources: async (ctx) =>
    ctx.reply.ok(await service(ctx).failedSources(ctx.query.limit ?? 50, ctx.query.offset ?? 0)),

  getSourceHealth: async (ctx) => ctx.reply.ok(await service(ctx).sourceHealth()),

  getSchedulerStatus: async (ctx) => ctx.reply.ok(await service(ctx).scheduler()),

  getDemoWorkspace: async (ctx) => ctx.reply.ok(await new DemoFlag(ctx.services.knex).status()),

  setDemoWorkspace: async (ctx) => ctx.reply.ok(await new DemoFlag(ctx.services.knex).grant(ctx.body.workspace_id)),

  clearDemoWorkspace: async (ctx) => ctx.reply.ok(await new DemoFlag(ctx.services.knex).clear()),
};
