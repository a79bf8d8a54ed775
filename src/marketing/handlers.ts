import { type AreaHandlers } from "../http/handler.js";
import { MarketingBeacon } from "./service.js";

// Public (docs/product-rules.md#public-operations); the request's logger carries its request id into the line.
export const marketingHandlers: AreaHandlers = {
  trackMarketingEvent: async (ctx) => {
    await new MarketingBeacon(ctx.services.knex, ctx.log).track(ctx.body, ctx.ip);
    return ctx.reply.noContent();
  },
};
