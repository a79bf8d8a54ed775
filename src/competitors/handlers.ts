import { callerOf, type AreaHandlers } from "../http/handler.js";
import { SourceService } from "../sources/service.js";
import { CompetitorService } from "./service.js";

export const competitorHandlers: AreaHandlers = {
  listCompetitors: async (ctx) => ctx.reply.ok(await new CompetitorService(ctx.services.knex, callerOf(ctx)).list()),

  createCompetitor: async (ctx) =>
    ctx.reply.created(await new CompetitorService(ctx.services.knex, callerOf(ctx)).create(ctx.body)),

  getCompetitor: async (ctx) =>
    ctx.reply.ok(await new CompetitorService(ctx.services.knex, callerOf(ctx)).get(ctx.path.competitor_id)),

  updateCompetitor: async (ctx) =>
    ctx.reply.ok(
      await new CompetitorService(ctx.services.knex, callerOf(ctx)).update(ctx.path.competitor_id, ctx.body),
    ),

  deleteCompetitor: async (ctx) => {
    await new CompetitorService(ctx.services.knex, callerOf(ctx)).delete(ctx.path.competitor_id);
    return ctx.reply.noContent();
  },

  listCompetitorSources: async (ctx) => {
    const sources = await new SourceService(ctx.services.knex, callerOf(ctx)).listForCompetitor(ctx.path.competitor_id);
    return ctx.reply.ok(sources.map((source) => source.toResponse()));
  },

  createCompetitorSource: async (ctx) => {
    const source = await new SourceService(ctx.services.knex, callerOf(ctx)).create(ctx.path.competitor_id, ctx.body);
    return ctx.reply.created(source.toResponse());
  },
};
