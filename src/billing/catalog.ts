/**
 * The public pricing catalog (`GET /pricing/plans`, docs/product-rules.md#plans-and-limits): every plan with its limits
 * and per-seat prices, built from the one plan table (src/workspaces/plans.ts) so the catalog can never disagree with
 * the limits the service enforces.
 */
import type { Schemas } from "../http/schemas.js";
import { PLAN_NAMES, PLANS } from "../workspaces/plans.js";

/** Every plan, in the contract's order (`free`, `starter`, `growth`, `enterprise`). */
export function pricingCatalog(): Schemas["PricingPlansResponse"] {
  return {
    plans: PLAN_NAMES.map((name) => {
      const { plan, label, limits, list_price_per_seat_monthly, beta_price_per_seat_monthly } = PLANS[name];
      return { plan, label, ...limits, list_price_per_seat_monthly, beta_price_per_seat_monthly };
    }),
  };
}
