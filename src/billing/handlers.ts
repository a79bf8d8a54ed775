import type { AreaHandlers } from "../http/handler.js";
import { pricingCatalog } from "./catalog.js";

export const billingHandlers: AreaHandlers = {
  /** Public: no token needed (docs/product-rules.md#public-operations). */
  listPricingPlans: async (ctx) => ctx.reply.ok(pricingCatalog()),
};
