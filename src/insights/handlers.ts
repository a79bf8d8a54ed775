import { callerOf, type AreaHandlers } from "../http/handler.js";
import { CompetitorService } from "../competitors/service.js";
import { InsightService } from "./service.js";

export const insightHandlers: AreaHandlers = {
  listInsights: async (ctx) =>
    ctx.reply.ok({ competitors: await new InsightService(ctx.services.knex, callerOf(ctx)).list() }),

  /**
   * The spec answers an unknown competitor with 200 and a not-found shape, not 404 (docs/product-rules.md#insights).
   */
  getCompetitorInsight: async (ctx) => {
    const insight = await new InsightService(ctx.services.knex, callerOf(ctx)).get(ctx.path.competitor_id);
    return ctx.reply.ok(insight ?? { detail: "Competitor not found", competitor_id: ctx.path.competitor_id });
  },

  reanalyzeCompetitor: async (ctx) => {
    const competitor = await new CompetitorService(ctx.services.knex, callerOf(ctx)).get(ctx.path.competitor_id);
    const snapshots = await ctx.services
      .knex("snapshots as n")
      .join("sources as s", "s.id", "n.source_id")
      .where("s.competitor_id", competitor.id)
      .count({ n: "*" })
      .first();
    if (Number(snapshots?.n ?? 0) === 0) {
      return ctx.reply.ok({
        competitor: competitor.name,
        error: "No snapshots to analyse yet: fetch a source first",
        events_generated: null,
      });
    }
    const created = await ctx.services.detection.reanalyzeCompetitor(competitor.id);
    return ctx.reply.ok({ competitor: competitor.name, error: null, events_generated: created });
  },
};
