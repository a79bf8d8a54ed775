import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { SourceService } from "../sources/service.js";
import { PricingHistoryService } from "./pricing-history.js";
import { CompetitorService } from "./service.js";

export const competitorHandlers: AreaHandlers = {
  listCompetitors: async (ctx) => ctx.reply.ok(await new CompetitorService(workspaceOf(ctx)).list()),

  createCompetitor: async (ctx) => ctx.reply.created(await new CompetitorService(workspaceOf(ctx)).create(ctx.body)),

  getCompetitor: async (ctx) => ctx.reply.ok(await new CompetitorService(workspaceOf(ctx)).get(ctx.path.competitor_id)),

  updateCompetitor: async (ctx) =>
    ctx.reply.ok(await new CompetitorService(workspaceOf(ctx)).update(ctx.path.competitor_id, ctx.body)),

  deleteCompetitor: async (ctx) => {
    await new CompetitorService(workspaceOf(ctx)).delete(ctx.path.competitor_id);
    return ctx.reply.noContent();
  },

  getCompetitorPricingHistory: async (ctx) =>
    ctx.reply.ok(await new PricingHistoryService(workspaceOf(ctx)).get(ctx.path.competitor_id)),

  listCompetitorSources: async (ctx) => {
    const sources = await new SourceService(workspaceOf(ctx)).listForCompetitor(ctx.path.competitor_id);
    return ctx.reply.ok(sources.map((source) => source.toResponse()));
  },

  createCompetitorSource: async (ctx) => {
    const source = await new SourceService(workspaceOf(ctx)).create(ctx.path.competitor_id, ctx.body);
    return ctx.reply.created(source.toResponse());
  },
};
