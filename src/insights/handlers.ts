import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { InsightService } from "./service.js";

export const insightHandlers: AreaHandlers = {
  listInsights: async (ctx) => ctx.reply.ok(await new InsightService(workspaceOf(ctx)).list()),

  getCompetitorInsight: async (ctx) =>
    ctx.reply.ok(await new InsightService(workspaceOf(ctx)).get(ctx.path.competitor_id)),

  reanalyzeCompetitor: async (ctx) =>
    ctx.reply.ok(await new InsightService(workspaceOf(ctx)).reanalyze(ctx.path.competitor_id, ctx.services.detection)),
};
