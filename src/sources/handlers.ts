import { callerOf, type AreaHandlers } from "../http/handler.js";
import { SourceService } from "./service.js";

export const sourceHandlers: AreaHandlers = {
  updateSource: async (ctx) =>
    ctx.reply.ok(
      (await new SourceService(ctx.services.knex, callerOf(ctx)).update(ctx.path.source_id, ctx.body)).toResponse(),
    ),

  runSourceNow: async (ctx) =>
    ctx.reply.accepted(
      await new SourceService(ctx.services.knex, callerOf(ctx)).runNow(ctx.path.source_id, ctx.services.jobs),
    ),

  deleteSource: async (ctx) => {
    await new SourceService(ctx.services.knex, callerOf(ctx)).delete(ctx.path.source_id);
    return ctx.reply.noContent();
  },
};
