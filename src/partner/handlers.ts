import { workspaceOf, type AreaHandlers, type RequestContext } from "../http/handler.js";
import { PartnerService } from "./service.js";

const partner = (ctx: RequestContext<any>) => new PartnerService(workspaceOf(ctx), ctx.services);

export const partnerHandlers: AreaHandlers = {
  createPartnerWorkspace: async (ctx) => ctx.reply.created(await partner(ctx).provision(ctx.body)),

  getPartnerWorkspace: async (ctx) => ctx.reply.ok(await partner(ctx).get(ctx.path.workspace_id)),

  subscribePartnerAlerts: async (ctx) =>
    ctx.reply.ok(await partner(ctx).subscribeAlerts(ctx.path.workspace_id, ctx.body)),

  getPartnerDigest: async (ctx) =>
    ctx.reply.ok(await partner(ctx).digest(ctx.path.workspace_id, ctx.query.period ?? "daily")),

  listPartnerEvents: async (ctx) => ctx.reply.ok(await partner(ctx).listEvents(ctx.path.workspace_id, ctx.query)),

  registerPartnerMonitor: async (ctx) =>
    ctx.reply.created(await partner(ctx).registerMonitor(ctx.path.workspace_id, ctx.body)),

  getPartnerMonitorHealth: async (ctx) => ctx.reply.ok(await partner(ctx).monitorHealth(ctx.path.workspace_id)),
};
