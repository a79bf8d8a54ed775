import { callerOf, type AreaHandlers } from "../http/handler.js";
import { SuppressionService } from "./service.js";

export const suppressionHandlers: AreaHandlers = {
  listSuppressions: async (ctx) => ctx.reply.ok(await new SuppressionService(ctx.services.knex, callerOf(ctx)).list()),

  createSuppression: async (ctx) =>
    ctx.reply.created(await new SuppressionService(ctx.services.knex, callerOf(ctx)).create(ctx.body)),

  // The router hands over the path parameter URL-decoded (`%40` → `@`).
  deleteSuppression: async (ctx) => {
    await new SuppressionService(ctx.services.knex, callerOf(ctx)).delete(ctx.path.email);
    return ctx.reply.noContent();
  },
};
