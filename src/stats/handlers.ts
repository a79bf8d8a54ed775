import { type AreaHandlers } from "../http/handler.js";
import { PublicStats } from "./service.js";

// Public operations (docs/product-rules.md#public-operations): no caller, so the services get the database only.
export const statsHandlers: AreaHandlers = {
  getDemoFeed: async (ctx) => ctx.reply.ok(await new PublicStats(ctx.services.knex).feed(ctx.query.limit ?? 4)),

  getHeroStat: async (ctx) => ctx.reply.ok(await new PublicStats(ctx.services.knex).hero()),
};
