import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { SuppressionService } from "./service.js";

export const suppressionHandlers: AreaHandlers = {
  listSuppressions: async (ctx) => ctx.reply.ok(await new SuppressionService(workspaceOf(ctx)).list()),

  createSuppression: async (ctx) => ctx.reply.created(await new SuppressionService(workspaceOf(ctx)).create(ctx.body)),

  // The router hands over the path parameter URL-decoded (`%40` → `@`).
  deleteSuppression: async (ctx) => {
    await new SuppressionService(workspaceOf(ctx)).delete(ctx.path.email);
    return ctx.reply.noContent();
  },
};
