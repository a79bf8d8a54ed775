import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { pricingCatalog } from "./catalog.js";
import { BillingService } from "./service.js";
import { PaymentsWebhook } from "./webhook.js";

export const billingHandlers: AreaHandlers = {
  /** Public: no token needed (docs/product-rules.md#public-operations). */
  listPricingPlans: async (ctx) => ctx.reply.ok(pricingCatalog()),

  getMyPlan: async (ctx) => ctx.reply.ok(await new BillingService(workspaceOf(ctx), ctx.services).myPlan()),

  createBetaClaim: async (ctx) =>
    ctx.reply.created(await new BillingService(workspaceOf(ctx), ctx.services).claimBeta(ctx.body, ctx.rawBody)),

  /** Owners only (src/http/access.ts). */
  createCheckoutSession: async (ctx) =>
    ctx.reply.ok(await new BillingService(workspaceOf(ctx), ctx.services).checkout(ctx.body)),

  /** Owners only (src/http/access.ts). */
  createBillingPortalSession: async (ctx) =>
    ctx.reply.ok(await new BillingService(workspaceOf(ctx), ctx.services).portal()),

  /** Public: authenticated by `Payments-Signature` (docs/product-rules.md#billing). */
  receivePaymentsWebhook: async (ctx) =>
    ctx.reply.ok(
      await new PaymentsWebhook(ctx.services.knex, ctx.services.config.payments.webhookSecret, ctx.log).receive(ctx),
    ),
};
